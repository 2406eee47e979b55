package config

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportDirection enforces plans/000-architecture.md: no library package
// depends on config, fixtures or cmd/...
func TestImportDirection(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH: cannot run go list -deps")
	}
	for _, lib := range append(libraries, "metrics", "tracing") {
		t.Run(lib, func(t *testing.T) {
			if files, _ := filepath.Glob(filepath.Join("..", filepath.FromSlash(lib), "*.go")); len(files) == 0 {
				// A package not written yet imports nothing.
				t.Skipf("%s has no Go files yet", lib)
			}
			cmd := exec.Command(gobin, "list", "-e", "-deps", "-f", "{{.ImportPath}}{{if .Error}} ERROR: {{.Error}}{{end}}", module+lib)
			out, err := cmd.Output()
			if err != nil {
				var stderr string
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = string(ee.Stderr)
				}
				t.Fatalf("go list -deps %s: %v\n%s", lib, err, stderr)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			checked := 0
			for _, l := range lines {
				path, _, _ := strings.Cut(l, " ")
				if path == module+lib && strings.Contains(l, " ERROR: ") {
					t.Fatalf("go list %s: %s", lib, l)
				}
				if forbiddenDep(path) {
					t.Errorf("%s depends on %s: library packages must not import config, fixtures or cmd", lib, path)
				}
				checked++
			}
			if checked == 0 {
				t.Fatalf("go list -deps %s listed nothing", lib)
			}
		})
	}
}

// libraries are the library packages, less the opt-in metrics and
// tracing.
var libraries = []string{"endpoint", "pool", "internal/rolestate", "internal/admission", "internal/slots", "retrypolicy", "internal/retry", "transport", "internal/engine", "internal/wire", "methods", "confirm", "internal/resolve"}

// optIn are what only a program that imports package metrics, tracing or
// redislimit may link (plan 000, plan 012, plan 013): those packages and
// their dependencies.
var optIn = []string{module + "metrics", module + "tracing", "github.com/prometheus/", "go.opentelemetry.io/",
	module + "redislimit", "github.com/redis/go-redis/"}

// TestOptInPackagesStayOptIn: neither the root package nor any library
// package (config among them) links client_golang, OpenTelemetry or
// go-redis, so that a program that does not import package metrics,
// tracing or redislimit links none of them.
func TestOptInPackagesStayOptIn(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH: cannot run go list -deps")
	}
	for _, lib := range append([]string{"", "config"}, libraries...) {
		path := strings.TrimSuffix(module+lib, "/")
		out, err := exec.Command(gobin, "list", "-deps", path).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", path, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) == 0 || deps[len(deps)-1] != path {
			t.Fatalf("go list -deps %s did not list it last", path)
		}
		for _, d := range deps {
			for _, bad := range optIn {
				if d == bad || strings.HasPrefix(d, strings.TrimSuffix(bad, "/")+"/") {
					t.Errorf("%s links %s", path, d)
				}
			}
		}
	}
}

// module is this module's import path prefix.
const module = "github.com/solroute/solroute/"

// forbiddenDep reports whether a library package may not depend on path.
func forbiddenDep(path string) bool {
	for _, f := range []string{module + "config", module + "fixtures", module + "cmd"} {
		if path == f || strings.HasPrefix(path, f+"/") {
			return true
		}
	}
	return false
}

// TestForbiddenDep makes sure the check above can fail.
func TestForbiddenDep(t *testing.T) {
	for _, tt := range []struct {
		path string
		bad  bool
	}{
		{module + "config", true},
		{module + "cmd/solroute", true},
		{module + "fixtures", true},
		{module + "fixtures/recorded", true},
		{module + "configx", false},
		{module + "pool", false},
		{"net/http", false},
	} {
		if got := forbiddenDep(tt.path); got != tt.bad {
			t.Errorf("forbiddenDep(%s) = %v, want %v", tt.path, got, tt.bad)
		}
	}
}

// pureInternal are the internal packages config may import: pure
// functions of their input, shared with endpoint and the root, that hold
// no machinery (the clusters' genesis hashes, HTTP header syntax).
var pureInternal = map[string]bool{module + "internal/genesis": true, module + "internal/httpheader": true}

// TestConfigBuildsNothing: config decodes into the settings types and
// builds no pool, transport or client (the root package does): its
// non-test files call no constructor of pool or transport and import no
// client package (solana-go's rpc, the pool's machinery: any internal
// package but pureInternal).
func TestConfigBuildsNothing(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); p == "github.com/gagliardetto/solana-go/rpc" || strings.HasPrefix(p, module+"internal/") && !pureInternal[p] {
				t.Errorf("%s imports %s", name, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && (pkg.Name == "pool" || pkg.Name == "transport") && sel.Sel.Name == "New" {
				t.Errorf("%s: %s calls %s.New", fset.Position(sel.Pos()), name, pkg.Name)
			}
			return true
		})
	}
}
