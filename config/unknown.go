package config

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// maxUnknownKeys is how many unknown keys Parse reports one by one. go-toml's
// strict decoder spends time proportional to the whole document on each
// unknown key it reports, so a large document made of unknown keys (not a
// solroute config at all) would take seconds to minutes: past this many,
// Parse reports the first ones from its own index and stops.
const maxUnknownKeys = 64

// knownKeys lists the key paths of the document, without array indexes,
// read from the struct tags in document.go. A path maps to true when its
// value is a leaf of any type (decoded as any: what lies below it is the
// value's business, checked later, never an unknown key). The keys of a
// table the document names itself ([methods.NAME]) are spelt "*" (see
// wildcard).
func knownKeys() map[string]bool {
	known := map[string]bool{}
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		for f := range t.Fields() {
			path := join(prefix, f.Tag.Get("toml"))
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Map {
				// A table of tables named by the document ([methods.NAME]):
				// any key, spelt "*" (a key "*" itself is quoted).
				known[path] = false
				path += ".*"
				ft = ft.Elem()
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
			}
			leaf := ft.Kind() != reflect.Struct
			known[path] = leaf
			if !leaf {
				walk(path, ft)
			}
		}
	}
	walk("", reflect.TypeFor[document]())
	return known
}

// unknownKeys returns the indexed paths, in document order, that name no
// key of the document: the path is not known, no ancestor is a leaf (below
// headers, cluster, ... any key is the value's business), and no ancestor
// in the document is itself unknown (below an unknown table or dotted key
// only that key is returned). It may count differently from go-toml's
// strict decoder (which reports every dotted key under an unknown one, and
// skips an unknown table with no keys), but it finds some whenever the
// decoder does, and none in a document Parse accepts. below counts the
// indexed paths under the keys returned.
func (ps *positions) unknownKeys(known map[string]bool) (unknown []string, below int) {
	present := make(map[string]bool, len(ps.lines))
	for path := range ps.lines {
		present[wildcard(stripIndexes(path), known)] = true
	}
	for path := range ps.lines {
		stripped := wildcard(stripIndexes(path), known)
		if _, ok := known[stripped]; ok {
			continue
		}
		// An element of an array ("key[0]") is its key's value.
		_, isKey := ps.lines[parent(path)]
		element := strings.HasSuffix(path, "]") && isKey
		underUnknown, underLeaf := element, false
		for p := parent(stripped); p != "" && !underLeaf; p = parent(p) {
			leaf, ok := known[p]
			underLeaf = leaf
			underUnknown = underUnknown || !ok && present[p]
		}
		switch {
		case underLeaf:
		case underUnknown:
			below++
		default:
			unknown = append(unknown, path)
		}
	}
	sort.Slice(unknown, func(i, j int) bool {
		li, lj := ps.lines[unknown[i]], ps.lines[unknown[j]]
		return li < lj || li == lj && unknown[i] < unknown[j]
	})
	return unknown, below
}

// tooManyUnknown reports, when a document holds more than maxUnknownKeys
// unknown keys counting those under unknown tables, the first
// maxUnknownKeys of them and how many more there are, as problems; ok is
// false when there are not that many.
func (c *checker) tooManyUnknown() (ok bool) {
	unknown, below := c.pos.unknownKeys(knownKeys())
	if len(unknown)+below <= maxUnknownKeys {
		return false
	}
	shown := unknown[:min(len(unknown), maxUnknownKeys)]
	for _, path := range shown {
		c.list = append(c.list, Problem{Path: path, Line: c.pos.lines[path], Message: "unknown key"})
	}
	at := shown[len(shown)-1]
	if len(unknown) > len(shown) {
		at = unknown[len(shown)]
	}
	c.list = append(c.list, Problem{Path: at, Line: c.pos.lines[at],
		Message: "and " + strconv.Itoa(len(unknown)-len(shown)+below) + " more unknown keys from here on: is this a solroute configuration?"})
	return true
}

// wildcard spells stripped (a path without indexes) as knownKeys does:
// the key below a table of named tables becomes "*".
func wildcard(stripped string, known map[string]bool) string {
	out := ""
	for _, k := range pathKeys(stripped) {
		if out == "" {
			out = k
			continue
		}
		if _, named := known[out+".*"]; named {
			k = "*"
		}
		out += "." + k
	}
	return out
}
