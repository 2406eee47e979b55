package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// unlinked are import paths the solroute binary must not link (issue 11,
// item 6): the benchmark harness, in each of its homes (the last, the
// tools module, issue 21), the comparators only the benchmark measures,
// and the dashboard's tooling (issue 15: its checks and the renderer of
// docs/img/dashboard.svg). A path matches itself and every package below
// it.
var unlinked = []string{
	"github.com/solroute/solroute/internal/bench",
	"github.com/solroute/solroute/bench",
	"github.com/hashicorp/go-retryablehttp",
	"github.com/solroute/solroute/internal/dashboard",
	"github.com/solroute/solroute/internal/dashshot",
	"github.com/solroute/solroute/tools",
}

// TestBinaryLinksNoBenchmark asks the go command what this command links.
func TestBinaryLinksNoBenchmark(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH to list the dependencies: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps: %v\n%s", err, stderr)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != "github.com/solroute/solroute/cmd/solroute" {
		t.Fatalf("go list -deps . did not list this command last:\n%s", out)
	}
	for _, dep := range deps {
		for _, bad := range unlinked {
			if dep == bad || strings.HasPrefix(dep, bad+"/") {
				t.Errorf("cmd/solroute links %s", dep)
			}
		}
	}
}
