package dashboard

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Refs are what one PromQL expression reads, as far as a scan of its
// tokens tells: enough to check that every name it uses exists, not a
// parser (Prometheus's is not a dependency of the module).
type Refs struct {
	// Selectors are the expression's vector selectors, in order.
	Selectors []Selector
	// Grouping are the labels named in by, without, on, ignoring,
	// group_left and group_right clauses, each once, in order.
	Grouping []string
	// Grouped is true when the expression has a by or without clause.
	Grouped bool
	// Aggregated is true when the expression calls an aggregation
	// operator (sum, max, ...).
	Aggregated bool
}

// Selector is one vector selector: a metric name and its label matchers.
type Selector struct {
	// Metric is the metric's name.
	Metric string
	// Matchers are the selector's label matchers, in order.
	Matchers []Matcher
}

// Matcher is one label matcher of a selector.
type Matcher struct {
	// Label is the label's name.
	Label string
	// Op is "=", "!=", "=~" or "!~".
	Op string
	// Value is the string matched, unquoted, template variables kept.
	Value string
}

// Alternatives returns the values the matcher accepts when it is "=" or
// "=~" over a plain alternation of literal values ("a|b"), and false
// otherwise (a negative matcher, a real regular expression, or a value
// holding a template variable).
func (m Matcher) Alternatives() ([]string, bool) {
	switch {
	case strings.Contains(m.Value, "$"):
		return nil, false
	case m.Op == "=":
		return []string{m.Value}, true
	case m.Op == "=~" && literalAlternation.MatchString(m.Value):
		return strings.Split(m.Value, "|"), true
	}
	return nil, false
}

// literalAlternation matches "a|b-c|d_e": words joined by "|".
var literalAlternation = regexp.MustCompile(`^[A-Za-z0-9_-]+(\|[A-Za-z0-9_-]+)*$`)

// PromQL words that are not metric names, lower case.

// isGroupingWord reports whether w starts a clause of labels.
func isGroupingWord(w string) bool {
	switch w {
	case "by", "without", "on", "ignoring", "group_left", "group_right":
		return true
	}
	return false
}

// isOperatorWord reports whether w is a binary operator, a modifier or
// a number's name.
func isOperatorWord(w string) bool {
	switch w {
	case "and", "or", "unless", "bool", "offset", "atan2", "inf", "nan":
		return true
	}
	return false
}

// isAggregation reports whether w is one of PromQL's aggregation
// operators.
func isAggregation(w string) bool {
	switch w {
	case "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
		"bottomk", "topk", "quantile", "limitk", "limit_ratio":
		return true
	}
	return false
}

// Scan returns the selectors and grouping labels of expr. Template
// variables ($name, ${name}) may stand anywhere a value or a duration
// does. It fails on an unterminated string, bracket or brace, and on a
// matcher it cannot read.
func Scan(expr string) (Refs, error) {
	var r Refs
	s := scanner{src: expr}
	for {
		tok, err := s.next()
		if err != nil {
			return Refs{}, err
		}
		switch tok.kind {
		case tokEOF:
			return r, nil
		case tokIdent:
			word := strings.ToLower(tok.text)
			switch {
			case isGroupingWord(word):
				if word == "by" || word == "without" {
					r.Grouped = true
				}
				if !s.peekByte('(') {
					continue // group_left without labels
				}
				labels, err := s.labelList()
				if err != nil {
					return Refs{}, err
				}
				for _, l := range labels {
					if !slices.Contains(r.Grouping, l) {
						r.Grouping = append(r.Grouping, l)
					}
				}
			case isAggregation(word): // "sum (" or "sum by ("
				r.Aggregated = true
			case s.peekByte('('): // a function
			case isOperatorWord(word):
			default:
				sel := Selector{Metric: tok.text}
				if s.peekByte('{') {
					s.pos++
					if sel.Matchers, err = s.matchers(); err != nil {
						return Refs{}, err
					}
				}
				r.Selectors = append(r.Selectors, sel)
			}
		case tokLBrace: // a selector without a metric name
			ms, err := s.matchers()
			if err != nil {
				return Refs{}, err
			}
			sel := Selector{Matchers: ms}
			for _, m := range ms {
				if m.Label == "__name__" && m.Op == "=" {
					sel.Metric = m.Value
				}
			}
			r.Selectors = append(r.Selectors, sel)
		}
	}
}

// Metrics returns the metric names r's selectors read, each once, in
// order.
func (r Refs) Metrics() []string {
	var out []string
	for _, s := range r.Selectors {
		if s.Metric != "" && !slices.Contains(out, s.Metric) {
			out = append(out, s.Metric)
		}
	}
	return out
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokLBrace
	tokOther // a number, a string, an operator, a parenthesis, a variable
)

type token struct {
	kind tokKind
	text string
}

// scanner walks a PromQL expression token by token.
type scanner struct {
	src string
	pos int
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("promql at offset %d: %s", s.pos, fmt.Sprintf(format, args...))
}

// skipSpace skips white space and comments.
func (s *scanner) skipSpace() {
	for s.pos < len(s.src) {
		switch c := s.src[s.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.pos++
		case c == '#':
			for s.pos < len(s.src) && s.src[s.pos] != '\n' {
				s.pos++
			}
		default:
			return
		}
	}
}

// peekByte reports whether the next byte past white space is c.
func (s *scanner) peekByte(c byte) bool {
	s.skipSpace()
	return s.pos < len(s.src) && s.src[s.pos] == c
}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentByte(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// next returns the next token; a range or subquery ("[5m]", "[$x:1s]")
// is skipped whole.
func (s *scanner) next() (token, error) {
	for {
		s.skipSpace()
		if s.pos >= len(s.src) {
			return token{kind: tokEOF}, nil
		}
		c := s.src[s.pos]
		switch {
		case isIdentStart(c):
			start := s.pos
			for s.pos < len(s.src) && isIdentByte(s.src[s.pos]) {
				s.pos++
			}
			return token{tokIdent, s.src[start:s.pos]}, nil
		case c >= '0' && c <= '9' || c == '.':
			for s.pos < len(s.src) && (isIdentByte(s.src[s.pos]) || s.src[s.pos] == '.') {
				if e := s.src[s.pos]; (e == 'e' || e == 'E') && s.pos+1 < len(s.src) &&
					(s.src[s.pos+1] == '+' || s.src[s.pos+1] == '-') {
					s.pos++
				}
				s.pos++
			}
			return token{kind: tokOther}, nil
		case c == '"' || c == '\'' || c == '`':
			if _, err := s.str(); err != nil {
				return token{}, err
			}
			return token{kind: tokOther}, nil
		case c == '$':
			if err := s.variable(); err != nil {
				return token{}, err
			}
			return token{kind: tokOther}, nil
		case c == '[':
			end := strings.IndexByte(s.src[s.pos:], ']')
			if end < 0 {
				return token{}, s.errorf("unterminated [")
			}
			s.pos += end + 1
		case c == '{':
			s.pos++
			return token{kind: tokLBrace}, nil
		case c == '}':
			return token{}, s.errorf("unexpected }")
		default:
			s.pos++
			return token{kind: tokOther, text: string(c)}, nil
		}
	}
}

// variable skips a template variable: $name, ${name} or ${name:format}.
func (s *scanner) variable() error {
	s.pos++ // $
	if s.pos < len(s.src) && s.src[s.pos] == '{' {
		end := strings.IndexByte(s.src[s.pos:], '}')
		if end < 0 {
			return s.errorf("unterminated ${")
		}
		s.pos += end + 1
		return nil
	}
	start := s.pos
	for s.pos < len(s.src) && isIdentByte(s.src[s.pos]) {
		s.pos++
	}
	if s.pos == start {
		return s.errorf("$ without a variable name")
	}
	return nil
}

// str reads a quoted string and returns it unquoted ("\x" escapes keep
// x; raw `strings` have none).
func (s *scanner) str() (string, error) {
	q := s.src[s.pos]
	s.pos++
	var b strings.Builder
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		s.pos++
		switch {
		case c == q:
			return b.String(), nil
		case c == '\\' && q != '`' && s.pos < len(s.src):
			b.WriteByte(s.src[s.pos])
			s.pos++
		default:
			b.WriteByte(c)
		}
	}
	return "", s.errorf("unterminated string")
}

// ident reads an identifier past white space.
func (s *scanner) ident() (string, error) {
	s.skipSpace()
	start := s.pos
	if s.pos < len(s.src) && isIdentStart(s.src[s.pos]) {
		for s.pos < len(s.src) && isIdentByte(s.src[s.pos]) {
			s.pos++
		}
	}
	if s.pos == start {
		return "", s.errorf("want a label name")
	}
	return s.src[start:s.pos], nil
}

// labelList reads "(a, b, ...)"; the next byte is "(".
func (s *scanner) labelList() ([]string, error) {
	s.pos++
	var out []string
	for {
		if s.peekByte(')') {
			s.pos++
			return out, nil
		}
		l, err := s.ident()
		if err != nil {
			return nil, err
		}
		out = append(out, l)
		if s.peekByte(',') {
			s.pos++
		}
	}
}

// matchers reads label matchers up to the closing brace; the opening one
// has been read.
func (s *scanner) matchers() ([]Matcher, error) {
	var out []Matcher
	for {
		if s.peekByte('}') {
			s.pos++
			return out, nil
		}
		l, err := s.ident()
		if err != nil {
			return nil, err
		}
		s.skipSpace()
		var op string
		for _, o := range []string{"=~", "!~", "!=", "="} {
			if strings.HasPrefix(s.src[s.pos:], o) {
				op = o
				break
			}
		}
		if op == "" {
			return nil, s.errorf("want a matcher operator after %s", l)
		}
		s.pos += len(op)
		s.skipSpace()
		if s.pos >= len(s.src) || !strings.ContainsRune("\"'`", rune(s.src[s.pos])) {
			return nil, s.errorf("want a quoted value for %s", l)
		}
		v, err := s.str()
		if err != nil {
			return nil, err
		}
		out = append(out, Matcher{Label: l, Op: op, Value: v})
		if s.peekByte(',') {
			s.pos++
		}
	}
}

// variableRef matches a template variable: $name, ${name} or
// ${name:format}.
var variableRef = regexp.MustCompile(`\$(?:\{([A-Za-z0-9_]+)(?::[^}]*)?\}|([A-Za-z0-9_]+))`)

// Variables returns the names of the template variables s uses, each
// once, in order.
func Variables(s string) []string {
	var out []string
	for _, m := range variableRef.FindAllStringSubmatch(s, -1) {
		name := m[1] + m[2]
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// Expand replaces every template variable of s with its value in vars. A
// variable vars does not hold is an error.
func Expand(s string, vars map[string]string) (string, error) {
	var missing []string
	out := variableRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := variableRef.FindStringSubmatch(ref)
		v, ok := vars[m[1]+m[2]]
		if !ok {
			missing = append(missing, m[1]+m[2])
			return ref
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("dashboard: no value for variable %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// legendRef matches "{{ label }}" in a legend format.
var legendRef = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// LegendLabels returns the labels a legend format names, each once, in
// order.
func LegendLabels(format string) []string {
	var out []string
	for _, m := range legendRef.FindAllStringSubmatch(format, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// Legend returns a series' name under format: each "{{label}}" replaced
// by its value in labels ("" when the series has no such label). An empty
// format names the series by its labels, as Prometheus prints them.
func Legend(format string, labels map[string]string) string {
	if strings.TrimSpace(format) == "" {
		return labelString(labels)
	}
	return legendRef.ReplaceAllStringFunc(format, func(ref string) string {
		return labels[legendRef.FindStringSubmatch(ref)[1]]
	})
}

// labelString prints labels as {a="1", b="2"}, sorted by name, the
// metric name first when there is one.
func labelString(labels map[string]string) string {
	var names []string
	for k := range labels {
		if k != "__name__" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString(labels["__name__"])
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%q", k, labels[k])
	}
	b.WriteByte('}')
	return b.String()
}

// LabelValuesQuery splits a Prometheus variable query
// "label_values(selector, label)" into its selector and label; ok is
// false for any other query. The selector may be "" (label_values(label)).
func LabelValuesQuery(q string) (selector, label string, ok bool) {
	q = strings.TrimSpace(q)
	inner, found := strings.CutPrefix(q, "label_values(")
	if !found || !strings.HasSuffix(inner, ")") {
		return "", "", false
	}
	inner = inner[:len(inner)-1]
	depth, cut := 0, -1
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case '"', '\'':
			j := strings.IndexByte(inner[i+1:], inner[i])
			if j < 0 {
				return "", "", false
			}
			i += j + 1
		case ',':
			if depth == 0 {
				cut = i
			}
		}
	}
	if cut < 0 {
		return "", strings.TrimSpace(inner), true
	}
	return strings.TrimSpace(inner[:cut]), strings.TrimSpace(inner[cut+1:]), true
}
