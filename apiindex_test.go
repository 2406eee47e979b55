package solroute_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// updateAPI rewrites docs/api.md from the source: go test -run TestAPIIndex -update-api .
var updateAPI = flag.Bool("update-api", false, "rewrite docs/api.md from the exported names")

// apiIndexFile is the index of every exported name users can import.
const apiIndexFile = "docs/api.md"

// apiHeader opens docs/api.md.
const apiHeader = `# The names you import

Every exported name of the module's importable packages, package by package, with the first
sentence of its doc comment (` + "`go doc`" + ` has the rest). The machinery behind them lives under
` + "`internal/`" + ` and cannot be imported ([plan 000](../plans/000-architecture.md)). This page is
generated from the source and held to it by ` + "`TestAPIIndex`" + `; after changing what a package
exports, run ` + "`go test -run TestAPIIndex -update-api .`" + `.

The methods every value type carries for printing and encoding (` + "`String`, `Error`, `GoString`,\n`Format`, `LogValue`, `MarshalText`, `UnmarshalText`, `MarshalJSON`, `Unwrap`, `As`, `Is`" + `) are
listed on one line under their type.
`

// interfaceMethods are the printing, encoding and error-chain methods the
// index lists on one line under their type.
var interfaceMethods = map[string]bool{"String": true, "Error": true, "GoString": true, "Format": true, "LogValue": true,
	"MarshalText": true, "UnmarshalText": true, "MarshalJSON": true, "Unwrap": true, "As": true, "Is": true}

// TestAPIIndex: docs/api.md names every exported name of every importable
// package (the root, the faces, the opt-ins, the test kit), each with its
// doc comment's first sentence, exactly as the source says today: an
// export added, removed or redocumented without the index fails here.
func TestAPIIndex(t *testing.T) {
	got := apiIndex(t)
	if *updateAPI {
		if err := os.WriteFile(apiIndexFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(apiIndexFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the source exports; run go test -run TestAPIIndex -update-api . (first difference at byte %d)",
			apiIndexFile, firstDiff(got, want))
	}
}

// firstDiff is the index of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// apiIndex renders the index of every importable package under the module.
func apiIndex(t *testing.T) []byte {
	t.Helper()
	var out bytes.Buffer
	out.WriteString(apiHeader)
	for _, dir := range importableDirs(t) {
		pkg := packageDoc(t, dir)
		if pkg == nil {
			continue
		}
		path := "github.com/solroute/solroute"
		if dir != "." {
			path += "/" + filepath.ToSlash(dir)
		}
		fmt.Fprintf(&out, "\n## `%s`\n\n", path)
		writePackage(&out, pkg)
	}
	return out.Bytes()
}

// importableDirs lists the module's directories whose package users can
// import: not internal/, cmd/, testdata, the test-only soak and smoke, a
// nested module (tools/) or a hidden directory.
func importableDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		base := d.Name()
		if p != "." && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "internal" || base == "cmd" ||
			base == "testdata" || base == "soak" || base == "smoke") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != "." {
			return filepath.SkipDir
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	return dirs
}

// packageDoc parses dir's non-test files; nil when it holds none, or only
// a command.
func packageDoc(t *testing.T, dir string) *doc.Package {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name == "main" {
			return nil
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil
	}
	p, err := doc.NewFromFiles(fset, files, dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writePackage writes one package's names: its constants and variables,
// functions, then each type with its constants, constructors and methods.
func writePackage(out *bytes.Buffer, p *doc.Package) {
	for _, v := range append(p.Consts, p.Vars...) {
		ns := slicesSorted(v.Names)
		fmt.Fprintf(out, "- `%s`: %s\n", strings.Join(ns, "`, `"), firstSentence(p, v.Doc))
	}
	for _, f := range p.Funcs {
		fmt.Fprintf(out, "- `%s`: %s\n", f.Name, firstSentence(p, f.Doc))
	}
	for _, ty := range p.Types {
		fmt.Fprintf(out, "- `%s`: %s\n", ty.Name, firstSentence(p, ty.Doc))
		for _, v := range append(ty.Consts, ty.Vars...) {
			fmt.Fprintf(out, "  - `%s`\n", strings.Join(v.Names, "`, `"))
		}
		for _, f := range ty.Funcs {
			fmt.Fprintf(out, "  - `%s`: %s\n", f.Name, firstSentence(p, f.Doc))
		}
		var also []string
		for _, m := range ty.Methods {
			if interfaceMethods[m.Name] {
				also = append(also, m.Name)
				continue
			}
			fmt.Fprintf(out, "  - `%s.%s`: %s\n", ty.Name, m.Name, firstSentence(p, m.Doc))
		}
		if len(also) > 0 {
			fmt.Fprintf(out, "  - also `%s`\n", strings.Join(also, "`, `"))
		}
	}
}

// slicesSorted returns a sorted copy of s.
func slicesSorted(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// firstSentence is a doc comment's first sentence, as go doc's synopsis
// reads it (up to the first period and space, or the first blank line).
func firstSentence(p *doc.Package, s string) string {
	if s = p.Synopsis(s); s == "" {
		return "(undocumented)"
	}
	return s
}
