package redislimit

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlyPoolAndEndpoint: of this module, the package imports
// pool and endpoint only (plans/000-architecture.md), so that a shared
// limiter stays a bucket the pool is handed, nothing more.
func TestImportsOnlyPoolAndEndpoint(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH: cannot run go list")
	}
	out, err := exec.Command(gobin, "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/solroute/solroute"
	allowed := map[string]bool{module + "/pool": true, module + "/endpoint": true}
	for _, imp := range strings.Fields(string(out)) {
		if (imp == module || strings.HasPrefix(imp, module+"/")) && !allowed[imp] {
			t.Errorf("redislimit imports %s: only pool and endpoint are allowed", imp)
		}
	}
}
