package tools

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// library is the library's module path; its internal packages are
// below internalPrefix.
const (
	library        = "github.com/solroute/solroute"
	internalPrefix = library + "/internal/"
)

// TestNoLibraryInternals asks the go command what every package of this
// module imports, in its code and its tests, and fails on any package of
// the library's internal/ (see the package doc). The library's own
// packages import their machinery; only this module's imports count.
func TestNoLibraryInternals(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH to list the imports: %v", err)
	}
	const format = "{{.ImportPath}} {{join .Imports \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}"
	out, err := exec.Command(goTool, "list", "-f", format, "./...").Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("go list ./...: %v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 5 || !strings.Contains(string(out), library+"/metrics") {
		t.Fatalf("go list ./... did not list this module's packages and their imports:\n%s", out)
	}
	for _, line := range lines {
		imports := strings.Fields(line)
		for _, imp := range imports[1:] {
			if strings.HasPrefix(imp, internalPrefix) {
				t.Errorf("%s imports the library's %s: use its public packages", imports[0], imp)
			}
		}
	}
}
