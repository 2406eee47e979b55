package config

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine (an HTTP server's or
// a client's connection) outlives them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
