package solroute_test

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// docBlock is one ```go block of a Markdown file.
type docBlock struct {
	file  string // slash path from the module root: "README.md", "docs/sending.md"
	abs   string // the file's absolute path, for the //line directive
	start int    // line of the block's first code line (the fence is start-1)
	end   int    // line of the block's last code line
	code  string
}

// where names the block as an editor opens it: the line of its fence.
func (b docBlock) where() string { return fmt.Sprintf("%s:%d", b.file, b.start-1) }

// docFiles are the Markdown files whose ```go blocks must compile:
// README.md and every docs/*.md, relative to the module root (the
// directory the root package's tests run in).
func docFiles() ([]string, error) {
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return append([]string{"README.md"}, files...), nil
}

// goBlocks reads the ```go blocks of one Markdown file. A fence is a line
// that is exactly ```go (an info string of "go" alone) and the next line
// that is exactly ```; a block that is not Go is fenced otherwise.
func goBlocks(file string) ([]docBlock, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	var (
		blocks []docBlock
		cur    *docBlock
		lines  []string
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimRight(line, " ") == "```go":
			cur, lines = &docBlock{file: filepath.ToSlash(file), abs: abs, start: n + 1}, nil
		case cur != nil && strings.TrimRight(line, " ") == "```":
			cur.end, cur.code = n-1, strings.Join(lines, "\n")+"\n"
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			lines = append(lines, line)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s: the ```go block is not closed", cur.where())
	}
	return blocks, sc.Err()
}

// isWholeFile reports whether a block is a Go file of its own: its first
// line that is not blank or a comment starts a package clause or an
// import declaration.
func isWholeFile(code string) bool {
	for _, line := range strings.Split(code, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		return strings.HasPrefix(line, "package ") || strings.HasPrefix(line, "import ") || line == "import("
	}
	return false
}

// lineDirective maps the lines that follow it to the block's own lines, so
// the compiler names the Markdown file and line. The path is absolute: a
// relative one would be read from the generated file's directory.
func (b docBlock) lineDirective() string { return fmt.Sprintf("//line %s:%d\n", b.abs, b.start) }

// wholeFile is a whole-file block as it is, with "package main" put in
// front when it has no package clause.
func wholeFile(b docBlock) string {
	head := ""
	if f, err := parser.ParseFile(token.NewFileSet(), "", b.code, parser.PackageClauseOnly); err != nil || f.Name == nil {
		head = "package main\n\n"
	}
	return head + b.lineDirective() + b.code
}

// fragmentFile wraps a fragment in a function of package frag whose
// parameters are the free variables (fragmentParams) it does not declare
// at its top level (a fragment that makes a client declares c), so that
// one that uses a variable in the statement declaring it
// ("ctx := f(ctx)") does not compile, as in a reader's function; it
// imports the packages
// it and they name from fragmentImports, and uses each variable it
// declares at its top level, so that "declared and not used" is not an
// error for what a fragment leaves to the code after it. The function
// returns an error, so a fragment can "return err" as a caller would.
func fragmentFile(b docBlock) string {
	declared, used := fragmentNames(b.code)
	imports := map[string]bool{}
	for _, name := range used {
		imports[name] = true
	}
	var params []string
	for _, p := range fragmentParams {
		if slices.Contains(declared, p.name) {
			continue // the fragment makes it (c, err := solroute.New(...))
		}
		params = append(params, p.name+" "+p.typ)
		if p.pkg != "" {
			imports[p.pkg] = true
		}
	}
	var s strings.Builder
	s.WriteString("package frag\n\n")
	s.WriteString("import (\n")
	for _, name := range slices.Sorted(maps.Keys(imports)) {
		fmt.Fprintf(&s, "\t%s %q\n", name, fragmentImports[name])
	}
	s.WriteString(")\n\n")
	fmt.Fprintf(&s, "func _(%s) error {\n", strings.Join(params, ", "))
	s.WriteString(b.lineDirective())
	s.WriteString(b.code)
	for _, name := range declared {
		fmt.Fprintf(&s, "\t_ = %s\n", name)
	}
	s.WriteString("\treturn nil\n}\n")
	return s.String()
}

// fragmentNames parses a fragment as a function body and returns the
// variables it declares at its top level and the package names of
// fragmentImports it uses (as x in x.Name) without declaring them, each
// sorted. A fragment that does not parse returns neither: the compiler
// then reports where it is wrong.
func fragmentNames(code string) (declared, used []string) {
	src := "package p\nfunc _() {\n" + code + "\n}\n"
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	seen := map[string]bool{}
	for _, st := range body.List {
		for _, name := range declaredBy(st) {
			if name != "_" && !seen[name] {
				seen[name] = true
				declared = append(declared, name)
			}
		}
	}
	pkgs := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && fragmentImports[x.Name] != "" && !seen[x.Name] {
				pkgs[x.Name] = true
			}
		}
		return true
	})
	for name := range pkgs {
		used = append(used, name)
	}
	sort.Strings(declared)
	sort.Strings(used)
	return declared, used
}

// declaredBy returns the names a top-level statement declares: x, y of
// "x, y := ..." and of "var x, y T".
func declaredBy(st ast.Stmt) []string {
	var names []string
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, e := range st.Lhs {
				if id, ok := e.(*ast.Ident); ok {
					names = append(names, id.Name)
				}
			}
		}
	case *ast.DeclStmt:
		if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, spec := range gd.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					names = append(names, id.Name)
				}
			}
		}
	}
	return names
}
