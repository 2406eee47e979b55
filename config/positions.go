package config

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// positions maps every key path of a document ("endpoints[1].roles.read")
// to the line where it first appears. go-toml's decoder reports lines only
// for its own errors; this index gives one to every problem found later
// (a bad duration, a missing variable, a duplicate name).
type positions struct {
	lines  map[string]int
	byLine map[int][]string
	// newlines holds the offset of every '\n' of the document, so that a
	// node's line is a binary search (unstable.Parser.Shape scans from the
	// start of the document each time).
	newlines []int
	// keys holds every key = value's path at the offset of its last key
	// part, in document order: a value the decoder cannot convert (a
	// number out of range) is reported with a line and column only, and
	// the key before that column is the one it belongs to.
	keys []keyAt
}

// keyAt is one key = value's path and where its key starts.
type keyAt struct {
	offset int
	path   string
}

// indexPositions walks the document's syntax tree. A syntax error ends the
// walk: the index then covers the keys before it, which is enough because
// the decoder reports that error itself.
func indexPositions(data []byte) *positions {
	ps := &positions{lines: map[string]int{}, byLine: map[int][]string{}}
	for i, c := range data {
		if c == '\n' {
			ps.newlines = append(ps.newlines, i)
		}
	}
	var p unstable.Parser
	p.Reset(data)
	// arrays counts the elements of each array of tables, by resolved path.
	arrays := map[string]int{}
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			table = ps.header(&p, e, arrays, false)
		case unstable.ArrayTable:
			table = ps.header(&p, e, arrays, true)
		case unstable.KeyValue:
			ps.keyValue(&p, table, e)
		}
	}
	return ps
}

// header records a [table] or [[array.table]] header and returns the
// resolved path of the table it opens.
func (ps *positions) header(p *unstable.Parser, e *unstable.Node, arrays map[string]int, array bool) string {
	path := ""
	it := e.Key()
	for it.Next() {
		k := it.Node()
		path = join(path, string(k.Data))
		line := ps.lineAt(k.Raw)
		if array && it.IsLast() {
			n := arrays[path]
			arrays[path] = n + 1
			ps.record(path, line)
			path += "[" + strconv.Itoa(n) + "]"
		} else if n, ok := arrays[path]; ok {
			path += "[" + strconv.Itoa(n-1) + "]"
		}
		ps.record(path, line)
	}
	return path
}

// keyValue records a key = value line, and the keys of inline tables and
// arrays in its value.
func (ps *positions) keyValue(p *unstable.Parser, table string, e *unstable.Node) {
	path := table
	it := e.Key()
	offset := 0
	for it.Next() {
		k := it.Node()
		path = join(path, string(k.Data))
		ps.record(path, ps.lineAt(k.Raw))
		offset = int(k.Raw.Offset)
	}
	ps.keys = append(ps.keys, keyAt{offset: offset, path: path})
	ps.value(p, path, ps.lines[path], e.Value())
}

// value records the paths inside an inline table or an array.
func (ps *positions) value(p *unstable.Parser, path string, line int, v *unstable.Node) {
	if v == nil {
		return
	}
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				ps.keyValue(p, path, c)
			}
		}
	case unstable.Array:
		i := 0
		it := v.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			elem := path + "[" + strconv.Itoa(i) + "]"
			i++
			elemLine := line
			if c.Raw.Length > 0 {
				elemLine = ps.lineAt(c.Raw)
			}
			ps.record(elem, elemLine)
			ps.value(p, elem, elemLine, c)
		}
	}
}

// lineAt returns the 1-based line where r starts.
func (ps *positions) lineAt(r unstable.Range) int {
	n, _ := slices.BinarySearch(ps.newlines, int(r.Offset))
	return n + 1
}

// record keeps the first line seen for path, and every path seen on a
// line (a key defined twice is reported at its second line).
func (ps *positions) record(path string, line int) {
	if line <= 0 {
		return
	}
	if _, ok := ps.lines[path]; !ok {
		ps.lines[path] = line
	}
	ps.byLine[line] = append(ps.byLine[line], path)
}

// line returns the line of path, or of its nearest recorded ancestor, or 0.
func (ps *positions) line(path string) int {
	if ps == nil {
		return 0
	}
	for path != "" {
		if l, ok := ps.lines[path]; ok {
			return l
		}
		path = parent(path)
	}
	return 0
}

// pathBefore is the path of the last key that starts on line before
// column col (both 1-based), or "" when none does.
func (ps *positions) pathBefore(line, col int) string {
	if line <= 0 || line > len(ps.newlines)+1 {
		return ""
	}
	start := 0
	if line > 1 {
		start = ps.newlines[line-2] + 1
	}
	at := start + col - 1
	path := ""
	for _, k := range ps.keys {
		if k.offset >= start && k.offset < at {
			path = k.path
		}
	}
	return path
}

// pathAt finds the indexed path on line whose keys, without array indexes,
// are key or end with key; go-toml's errors carry a line and such a key
// (sometimes only its last parts). It falls back to the key's parts as a
// path.
func (ps *positions) pathAt(line int, key []string) string {
	want := joinKeys(key)
	for _, p := range ps.byLine[line] {
		if s := stripIndexes(p); s == want || strings.HasSuffix(s, "."+want) {
			return p
		}
	}
	return want
}
