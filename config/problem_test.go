package config

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestForgedKeysStayOnTheirLine: a quoted key holding a line break, a
// terminal escape or another non-printable character is printed escaped,
// so it cannot forge a "file:line: ..." line of the error output.
func TestForgedKeysStayOnTheirLine(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown keys and header names": `"x\nsolroute.toml:1: endpoints[0].url: forged" = 1
"esc\u001b[2Jclear\r" = 2
[[endpoints]]
name = "a"
url = "https://a.example"
headers = { "bad\nsolroute.toml:2: forged" = "v", "X\u202eY" = "w", "nul\u0000" = "z" }
"tab\tand\u0085nel" = 1
  [endpoints.roles.read]
  "\u2028sep" = 1
`,
		"a key defined twice": `"a\nsolroute.toml:9: forged" = 1
"a\nsolroute.toml:9: forged" = 2
`,
		"a table defined twice": `["t\nsolroute.toml:9: forged"]
["t\nsolroute.toml:9: forged"]
`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(doc), ParseOptions{Filename: "solroute.toml"})
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("err = %v, want a *ValidationError", err)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != 1+len(verr.Problems) {
				t.Fatalf("%d problems printed on %d lines:\n%s", len(verr.Problems), len(lines), err)
			}
			for i, p := range verr.Problems {
				if want := "  solroute.toml:" + strconv.Itoa(p.Line) + ": "; !strings.HasPrefix(lines[i+1], want) {
					t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i+1], want)
				}
				if strings.Contains(lines[i+1][2:], "  solroute.toml:") {
					t.Errorf("line %d holds a second problem: %q", i+1, lines[i+1])
				}
				for _, s := range []string{p.Path, p.Message, p.String()} {
					for _, r := range s {
						if !unicode.IsPrint(r) {
							t.Errorf("problem %d holds %U: %q", i, r, s)
						}
					}
				}
			}
			for _, r := range err.Error() {
				if r != '\n' && !unicode.IsPrint(r) {
					t.Errorf("the error holds %U:\n%s", r, err)
				}
			}
			if !strings.Contains(err.Error(), `\n`) {
				t.Errorf("the line break is not shown escaped:\n%s", err)
			}
		})
	}
}

// TestForgedKeyPaths pins how the keys above are spelt.
func TestForgedKeyPaths(t *testing.T) {
	doc := `"x\nsolroute.toml:1: y" = 1
[[endpoints]]
name = "a"
url = "https://a.example"
headers = { "a.b:c" = "v", "c d" = "w" }
  [endpoints.roles.read]
`
	_, err := Parse([]byte(doc), ParseOptions{})
	checkProblems(t, err, []problemWant{
		{1, `"x\nsolroute.toml:1: y"`, "unknown key"},
		{5, `endpoints[0].headers."a.b…"`, "not a valid HTTP header name"},
		{5, `endpoints[0].headers."c d"`, "not a valid HTTP header name"},
	})
}

// TestHandBuiltProblemsPrintEscaped: a Problem or a file name that did not
// come from Parse is escaped too.
func TestHandBuiltProblemsPrintEscaped(t *testing.T) {
	e := &ValidationError{File: "a\nb.toml", Problems: []Problem{{Path: "x\ny", Line: 3, Message: "m\x1b[31m"}}}
	const want = "config: a\\nb.toml: invalid configuration (1 problem):\n  a\\nb.toml:3: x\\ny: m\\u001B[31m"
	if got := e.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}
}
