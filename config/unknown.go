package config

import (
	"strconv"
	"strings"
)

// maxUnknownKeys is how many unknown keys Parse reports one by one. Past
// this many, counting the keys under unknown tables, the document is
// likely not a solroute configuration at all: Parse reports the first ones
// and how many more there are, and nothing else.
const maxUnknownKeys = 64

// unknownKey is a key of the document that names nothing.
type unknownKey struct {
	path, message string
	// below counts the keys and array elements under it.
	below int
}

// movedKeys maps a key of an earlier layout, in its old place (a path
// without indexes), to the table it moved to.
func movedKeys() map[string]string {
	return map[string]string{
		"transport.doubt_window":   "pool",
		"transport.doubt_patience": "pool",
		"ejection":                 "pool.ejection",
	}
}

// unknownKey records a key that names nothing in its table. A key of an
// earlier layout says where it moved; another gets the known key it is
// closest to, if one is close (see suggest).
func (p *parser) unknownKey(path, key string, raw any, known []string) {
	msg := "unknown key"
	if to, ok := movedKeys()[stripIndexes(path)]; ok {
		msg = "moved to [" + to + "]"
	} else if s := suggest(key, known); s != "" {
		msg += "; did you mean " + s + "?"
	}
	p.unknown = append(p.unknown, unknownKey{path: path, message: msg, below: countKeys(raw)})
}

// countKeys counts the keys and array elements in a decoded value.
func countKeys(raw any) int {
	n := 0
	switch v := raw.(type) {
	case map[string]any:
		for _, x := range v {
			n += 1 + countKeys(x)
		}
	case []any:
		for _, x := range v {
			n += 1 + countKeys(x)
		}
	}
	return n
}

// unknownProblems returns the unknown keys as problems, ordered by line,
// and whether there are too many: more than maxUnknownKeys counting those
// under unknown tables. Then only the first maxUnknownKeys are returned,
// and one more problem says how many more there are.
func (p *parser) unknownProblems() (out []Problem, tooMany bool) {
	below := 0
	for _, u := range p.unknown {
		out = append(out, Problem{Path: u.path, Line: p.pos.line(u.path), Message: u.message})
		below += u.below
	}
	if len(out)+below <= maxUnknownKeys {
		return out, false
	}
	out = (&problems{list: out}).sorted()
	shown := out[:min(len(out), maxUnknownKeys)]
	at := shown[len(shown)-1]
	if len(out) > len(shown) {
		at = out[len(shown)]
	}
	more := Problem{Path: at.Path, Line: at.Line,
		Message: "and " + strconv.Itoa(len(out)-len(shown)+below) + " more unknown keys from here on: is this a solroute configuration?"}
	return append(shown, more), true
}

// suggest returns the known key that key is probably a misspelling of: one
// that differs only in case or in - for _, or else the closest within an
// edit distance of 2 (and less than key's length), the first in known
// order on a tie. It returns "" when none is that close.
func suggest(key string, known []string) string {
	fold := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	for _, k := range known {
		if fold(k) == fold(key) {
			return k
		}
	}
	best, bestD := "", 3
	r := []rune(key)
	for _, k := range known {
		if d := editDistance(r, []rune(k), bestD); d < bestD && d < len(r) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and swaps of two neighbours, each
// costing 1), or limit when it is limit or more.
func editDistance(a, b []rune, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	// rows[i%3][j] is the distance between a[:i] and b[:j].
	var rows [3][]int
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur, prev := rows[i%3], rows[(i-1)%3]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], rows[(i-2)%3][j-2]+1)
			}
		}
	}
	return min(rows[len(a)%3][len(b)], limit)
}
