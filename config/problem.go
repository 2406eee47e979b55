package config

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a configuration document.
type Problem struct {
	// Path names the key the way the document spells it, for example
	// "endpoints[2].roles.send.burst_capacity" or
	// `endpoints[0].headers."X Key"`: a key that is not a TOML bare key is
	// quoted, with its control and non-printable characters escaped, so
	// that no key can forge a line of the error output. It is "" for a
	// TOML syntax error that belongs to no key.
	Path string
	// Line is the 1-based line of the key in the document (or of its
	// nearest enclosing table when the key is missing). 0 means unknown:
	// the Document was not parsed from a document, or the key is missing
	// from the top level.
	Line int
	// Message says what is wrong and what is expected. It never quotes a
	// value of the document (a URL, a header value, a duration ...): the
	// path and the line say where the value is. An endpoint's name, its
	// non-secret label, may be quoted.
	Message string
}

// String returns "line N: path: message", leaving out the parts that are
// unknown. Control and non-printable characters of the path and the
// message are escaped (see Path), even in a Problem built by hand.
func (p Problem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(p.Line))
		b.WriteString(": ")
	}
	if p.Path != "" {
		b.WriteString(printable(p.Path))
		b.WriteString(": ")
	}
	b.WriteString(printable(p.Message))
	return b.String()
}

// ValidationError lists every problem found in a document at once: TOML
// syntax and type errors, unknown keys, bad values, missing environment
// variables and the endpoint specs' own validation. Problems are ordered by
// line.
type ValidationError struct {
	// File is the document's file name ("" when parsed from bytes without
	// one).
	File string
	// Problems holds at least one problem.
	Problems []Problem
}

// Error lists every problem, one per line, as "file:line: path: message".
// Control and non-printable characters are escaped everywhere, the file
// name included, so each problem is exactly one line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	file := printable(e.File)
	if file != "" {
		b.WriteString(file)
		b.WriteString(": ")
	}
	b.WriteString("invalid configuration (")
	b.WriteString(strconv.Itoa(len(e.Problems)))
	if len(e.Problems) == 1 {
		b.WriteString(" problem):")
	} else {
		b.WriteString(" problems):")
	}
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		if file != "" && p.Line > 0 {
			b.WriteString(file)
			b.WriteString(":")
			b.WriteString(strconv.Itoa(p.Line))
			b.WriteString(": ")
			p.Line = 0
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// problems collects Problems while a document is checked.
type problems struct {
	list []Problem
	pos  *positions
}

// add records a problem at path, locating its line.
func (ps *problems) add(path, message string) {
	ps.list = append(ps.list, Problem{Path: path, Line: ps.pos.line(path), Message: message})
}

// hasAtOrBelow reports whether a problem was already recorded at path or
// at a path under it.
func (ps *problems) hasAtOrBelow(path string) bool {
	for _, p := range ps.list {
		if p.Path == path || under(p.Path, path) {
			return true
		}
	}
	return false
}

// hasAt reports whether a problem was already recorded at path itself.
func (ps *problems) hasAt(path string) bool {
	for _, p := range ps.list {
		if p.Path == path {
			return true
		}
	}
	return false
}

// related reports whether one of the first n problems is at path, under
// it, or at a table it is under.
func (ps *problems) related(path string, n int) bool {
	for _, p := range ps.list[:n] {
		if p.Path == path || under(p.Path, path) || under(path, p.Path) {
			return true
		}
	}
	return false
}

// under reports whether path is below table ("a.b[0]" is below "a.b" and
// "a"; "a.bc" is not below "a.b").
func under(path, table string) bool {
	return strings.HasPrefix(path, table+".") || strings.HasPrefix(path, table+"[")
}

// sorted returns the problems ordered by line (unknown lines last), then
// path, keeping the order of problems on the same key.
func (ps *problems) sorted() []Problem {
	out := slices.Clone(ps.list)
	slices.SortStableFunc(out, func(a, b Problem) int {
		la, lb := a.Line, b.Line
		if la == 0 {
			la = math.MaxInt
		}
		if lb == 0 {
			lb = math.MaxInt
		}
		if c := cmp.Compare(la, lb); c != 0 {
			return c
		}
		return cmp.Compare(a.Path, b.Path)
	})
	return out
}
