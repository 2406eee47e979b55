package redislimit

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlyFaces: of this module, the package imports pool,
// endpoint and config only (plans/000-architecture.md): a shared limiter
// stays a bucket source the pool is handed, built from the [limits]
// settings config parses, nothing more.
func TestImportsOnlyFaces(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH: cannot run go list")
	}
	out, err := exec.Command(gobin, "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/solroute/solroute"
	allowed := map[string]bool{module + "/pool": true, module + "/endpoint": true, module + "/config": true}
	for _, imp := range strings.Fields(string(out)) {
		if (imp == module || strings.HasPrefix(imp, module+"/")) && !allowed[imp] {
			t.Errorf("redislimit imports %s: only pool, endpoint and config are allowed", imp)
		}
	}
}
