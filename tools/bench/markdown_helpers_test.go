package bench

import (
	"bytes"
	"strings"
	"testing"
)

// markdownHas renders r and fails the test for each of wants the report
// lacks.
func markdownHas(t *testing.T, r *Report, wants ...string) {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b, ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range wants {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
