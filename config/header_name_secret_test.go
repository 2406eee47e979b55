package config

import (
	"strings"
	"testing"
)

// TestPastedHeaderLineOtherProblemsHideTheKey: a pasted "Authorization: Bearer
// KEY" line as a header's name is shown up to its colon whatever the
// problem: its name, or its value not a string (the decoder's). (A review
// of stop 33's diff found the decoder's problems naming the whole key.)
func TestPastedHeaderLineOtherProblemsHideTheKey(t *testing.T) {
	const marker = "SECRETKEY123"
	for _, v := range []string{`5`, `"ok"`, `{ x = 1 }`} {
		doc := `[[endpoints]]
name = "a"
url = "https://x.example/"
headers = { "Authorization: Bearer ` + marker + `" = ` + v + ` }
  [endpoints.roles.read]
`
		_, err := Parse([]byte(doc), ParseOptions{})
		if err == nil {
			t.Errorf("value %s: no error", v)
			continue
		}
		if strings.Contains(err.Error(), marker) {
			t.Errorf("value %s: the error quotes the key: %v", v, err)
		}
	}
}
