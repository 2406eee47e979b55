package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/solroute/solroute/config"
)

// missingVar matches package config's message for a ${NAME} whose
// variable is not set.
var missingVar = regexp.MustCompile(`^environment variable ([A-Za-z_][A-Za-z0-9_]*) is not set$`)

// endpointPath matches a key path inside the endpoint at an index of
// [[endpoints]].
var endpointPath = regexp.MustCompile(`^endpoints\[(\d+)\]`)

// mergeMissingVars returns problems with every problem "environment
// variable NAME is not set" of one NAME merged into one, in the place of
// the first, that names the users of the variable: each endpoint by its
// name (names[i] for endpoints[i]; the path when it has none), any other
// key by its path, each with its lines. A variable missing from the
// environment is one thing to fix, however many urls and headers use it.
func mergeMissingVars(problems []config.Problem, names []string) []config.Problem {
	type use struct {
		who   string
		lines []int
	}
	uses := map[string][]use{} // by variable, in order of first use
	var out []config.Problem
	at := map[string]int{} // the merged problem's index in out
	for _, p := range problems {
		m := missingVar.FindStringSubmatch(p.Message)
		if m == nil {
			out = append(out, p)
			continue
		}
		name, who := m[1], userOf(p.Path, names)
		if _, seen := at[name]; !seen {
			at[name] = len(out)
			out = append(out, config.Problem{Line: p.Line})
		}
		us := uses[name]
		if i := slices.IndexFunc(us, func(u use) bool { return u.who == who }); i >= 0 {
			us[i].lines = append(us[i].lines, p.Line)
		} else {
			us = append(us, use{who, []int{p.Line}})
		}
		uses[name] = us
	}
	for name, i := range at {
		parts := make([]string, len(uses[name]))
		for j, u := range uses[name] {
			parts[j] = u.who + linesOf(u.lines)
		}
		out[i].Message = fmt.Sprintf("environment variable %s is not set; used by %s", name, strings.Join(parts, ", "))
	}
	return out
}

// userOf names what a key path belongs to: `endpoint "NAME"` for a key of
// an endpoint that has a name, else the path itself.
func userOf(path string, names []string) string {
	if m := endpointPath.FindStringSubmatch(path); m != nil {
		if i, err := strconv.Atoi(m[1]); err == nil && i < len(names) && names[i] != "" {
			return fmt.Sprintf("endpoint %q", names[i])
		}
	}
	return path
}

// linesOf is " (line 3)" or " (lines 9, 10)"; "" when no line is known.
func linesOf(lines []int) string {
	var known []string
	for _, l := range lines {
		if l > 0 {
			known = append(known, strconv.Itoa(l))
		}
	}
	switch len(known) {
	case 0:
		return ""
	case 1:
		return " (line " + known[0] + ")"
	}
	return " (lines " + strings.Join(known, ", ") + ")"
}

// endpointNames reads the name of every [[endpoints]] table of a TOML
// document, in order ("" for one without a name); nil when the document
// does not decode so far. Names are labels, never secrets.
func endpointNames(data []byte) []string {
	var doc struct {
		Endpoints []map[string]any `toml:"endpoints"`
	}
	if toml.Unmarshal(data, &doc) != nil {
		return nil
	}
	names := make([]string, len(doc.Endpoints))
	for i, ep := range doc.Endpoints {
		names[i], _ = ep["name"].(string)
	}
	return names
}
