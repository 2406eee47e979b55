package solroute_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDocExamplesCompile type-checks every ```go block of README.md and
// docs/*.md (issue 21: "every example in README and docs compiles as a
// test"), so a renamed or removed name cannot stay in the documentation.
//
// A block that starts with a package clause or an import declaration is a
// whole file: it is compiled as it is, in a package of its own ("package
// main" put in front when it has none). Any other block is a fragment: it
// is the body of a function returning error in package frag, whose
// parameters are the free variables of fragmentParams; the packages of
// fragmentImports it names are imported, and the variables it declares at
// its top level are used after it. Every block is preceded by a //line
// directive, so the compiler names the Markdown file and line. All of them
// are built by one "go build" of a directory under the module whose name
// starts with "_" (which ./... never matches), removed at the end.
//
// It runs under -short too: with the build cache warm the build takes
// about 1 s (7 s with a cold cache, after the test's own build).
func TestDocExamplesCompile(t *testing.T) {
	goTool := goCommand(t)
	blocks := allGoBlocks(t)
	dir, err := os.MkdirTemp(".", "_doctest")
	if errors.Is(err, fs.ErrPermission) {
		t.Skipf("the module's directory is read-only (a module cache?): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	pkgs, err := writeDocPackages(dir, blocks)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"build", "-gcflags=-e"}, pkgs...)
	cmd := exec.Command(goTool, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	err = cmd.Run()
	t.Logf("go build of %d blocks (%d packages): %v", len(blocks), len(pkgs), time.Since(began).Round(time.Millisecond))
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("go build did not run: %v\n%s", err, out.Bytes())
	}
	if err == nil {
		return
	}
	reportBuildErrors(t, blocks, out.String())
}

// goCommand is the go command of the toolchain running the test: the one
// in $GOROOT/bin (the go command sets GOROOT for the tests it runs), else
// the one on PATH.
func goCommand(t *testing.T) string {
	t.Helper()
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to compile the documentation's examples: %v", err)
	}
	return p
}

// allGoBlocks reads the ```go blocks of every documentation file; README.md
// has some, so finding none there means the reading is broken.
func allGoBlocks(t *testing.T) []docBlock {
	t.Helper()
	files, err := docFiles()
	if err != nil {
		t.Fatal(err)
	}
	var all []docBlock
	for _, f := range files {
		blocks, err := goBlocks(f)
		if err != nil {
			t.Fatal(err)
		}
		if f == "README.md" && len(blocks) == 0 {
			t.Fatal("README.md: no ```go block found; the test reads fences wrong")
		}
		all = append(all, blocks...)
	}
	return all
}

// writeDocPackages writes the blocks under dir: every fragment, with
// fragmentVars, into dir/frag, and every whole file into a package of its
// own, dir/fileN. It returns the packages as go build names them.
func writeDocPackages(dir string, blocks []docBlock) ([]string, error) {
	files := map[string]string{}
	whole := 0
	for i, b := range blocks {
		if isWholeFile(b.code) {
			whole++
			files[fmt.Sprintf("file%d/main.go", whole)] = wholeFile(b)
			continue
		}
		files[fmt.Sprintf("frag/block%d.go", i+1)] = fragmentFile(b)
	}
	pkgs := map[string]bool{}
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			return nil, err
		}
		pkgs["./"+filepath.ToSlash(filepath.Dir(p))] = true
	}
	var list []string
	for p := range pkgs {
		list = append(list, p)
	}
	return list, nil
}

// buildMessage is a compiler message that names a Markdown file.
var buildMessage = regexp.MustCompile(`^(\S+\.md):(\d+)(?::\d+)?: `)

// reportBuildErrors fails the test once for each block the compiler
// rejected, naming the block and the compiler's messages (at the block's
// own lines), and once more with every message that names no block.
func reportBuildErrors(t *testing.T, blocks []docBlock, out string) {
	t.Helper()
	byBlock := map[int][]string{}
	var other []string
	last := -1 // the block of the message before, for its continuation lines
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			continue // the package the next messages are about
		case strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " "):
			// continues the message before
		default:
			last = blockOf(blocks, line)
		}
		if last < 0 {
			other = append(other, line)
			continue
		}
		byBlock[last] = append(byBlock[last], line)
	}
	for i, b := range blocks {
		if msgs := byBlock[i]; len(msgs) > 0 {
			t.Errorf("%s: this ```go block does not compile:\n\t%s", b.where(), strings.Join(msgs, "\n\t"))
		}
	}
	if len(other) > 0 || len(byBlock) == 0 {
		t.Errorf("go build of the documentation's examples failed:\n\t%s", strings.Join(other, "\n\t"))
	}
}

// blockOf returns the index of the block a compiler message names, or -1:
// the last block of its file that starts at or before its line (a message
// about the code the test adds after a block counts past the block's end).
func blockOf(blocks []docBlock, msg string) int {
	m := buildMessage.FindStringSubmatch(msg)
	if m == nil {
		return -1
	}
	line, _ := strconv.Atoi(m[2])
	found := -1
	for i, b := range blocks {
		if samePath(b, m[1]) && b.start <= line {
			found = i
		}
	}
	return found
}

// samePath reports whether a path the go command printed (absolute, or
// relative to the module root, with or without "./") is the block's file.
func samePath(b docBlock, printed string) bool {
	if filepath.IsAbs(printed) {
		return filepath.Clean(printed) == b.abs
	}
	return filepath.ToSlash(filepath.Clean(printed)) == b.file
}
