package fixturedata

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestRecordedFilesAreDocumented(t *testing.T) {
	readme, err := os.ReadFile("recorded/README.md")
	if err != nil {
		t.Fatal(err)
	}
	names := RecordedNames()
	if len(names) < 20 {
		t.Fatalf("only %d recorded files", len(names))
	}
	for _, name := range names {
		if !strings.Contains(string(readme), name) &&
			!strings.Contains(string(readme), strings.SplitN(name, ".", 2)[0]+".<cluster>") {
			t.Errorf("recorded/README.md does not name the source of %s", name)
		}
		b, err := Recorded(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".json") && !json.Valid(b) {
			t.Errorf("%s is not valid JSON", name)
		}
	}
	if _, err := Recorded("nope.json"); err == nil {
		t.Error("Recorded(nope.json) did not fail")
	}
}

// TestRecordedConstants proves the exported constants are the values inside
// the recorded files.
