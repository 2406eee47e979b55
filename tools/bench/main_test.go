package bench

import (
	"context"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain serves a cluster when this test binary is re-executed as a
// cell's child process (Options.Isolate), and checks for leaked goroutines
// otherwise.
func TestMain(m *testing.M) {
	if os.Getenv(ChildEnv) != "" {
		if err := ServeChild(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
