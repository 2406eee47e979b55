package config

import (
	"bufio"
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// docsPath is the user-facing key reference.
const docsPath = "../docs/config.md"

// docsReference is what docs/config.md says about the document.
type docsReference struct {
	// rows maps a key path (as knownKeys spells it) to its Default cell:
	// "—" or a TOML value in backticks.
	rows map[string]string
	// tables lists the tables the headings name.
	tables map[string]bool
	// moved maps an old key path to where the page says it moved.
	moved map[string]string
	// examples holds the page's TOML code blocks.
	examples []string
}

// readDocs parses docs/config.md: each heading's backticked tables
// ("## `[retry]`", "## `[endpoints.roles.read]`, `[endpoints.roles.send]`",
// "## Top level" for the top) apply to the reference tables below it,
// whose header is "| Key | Type | Default | Range | Meaning |".
func readDocs(t *testing.T) docsReference {
	t.Helper()
	data, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	ref := docsReference{rows: map[string]string{}, tables: map[string]bool{}, moved: map[string]string{}}
	tableRe := regexp.MustCompile("`\\[\\[?([^`\\]]+)\\]\\]?`")
	tick := regexp.MustCompile("`([^`]*)`")
	var prefixes []string
	kind := "" // the table being read: "keys", "moved" or ""
	var code *strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case code != nil:
			if line == "```" {
				ref.examples = append(ref.examples, code.String())
				code = nil
			} else {
				code.WriteString(line + "\n")
			}
			continue
		case line == "```toml":
			code = &strings.Builder{}
			continue
		case strings.HasPrefix(line, "#"):
			prefixes = nil
			if strings.Contains(line, "Top level") {
				prefixes = []string{""}
			}
			for _, m := range tableRe.FindAllStringSubmatch(line, -1) {
				p := strings.ReplaceAll(m[1], ".NAME", ".*")
				prefixes = append(prefixes, p)
				ref.tables[p] = true
			}
			kind = ""
			continue
		case strings.HasPrefix(line, "| Key | Type | Default | Range | Meaning |"):
			kind = "keys"
			continue
		case strings.HasPrefix(line, "| Old key | Moved to |"):
			kind = "moved"
			continue
		case !strings.HasPrefix(line, "|"):
			kind = ""
			continue
		case strings.HasPrefix(line, "|---"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		switch kind {
		case "keys":
			if len(prefixes) == 0 {
				t.Fatalf("docs/config.md: a key table under no table heading: %s", line)
			}
			key := tick.FindStringSubmatch(cells[0])
			if len(cells) != 5 || key == nil {
				t.Fatalf("docs/config.md: a row of %d cells or without a key: %s", len(cells), line)
			}
			for _, p := range prefixes {
				path := key[1]
				if p != "" {
					path = p + "." + key[1]
				}
				if _, dup := ref.rows[path]; dup {
					t.Errorf("docs/config.md: %s listed twice", path)
				}
				ref.rows[path] = strings.TrimSpace(cells[2])
			}
		case "moved":
			var from, to []string
			for _, m := range tick.FindAllStringSubmatch(cells[0], -1) {
				from = append(from, strings.Trim(m[1], "[]"))
			}
			for _, m := range tick.FindAllStringSubmatch(cells[1], -1) {
				to = append(to, strings.Trim(m[1], "[]"))
			}
			if len(from) == 0 || len(to) == 0 {
				t.Fatalf("docs/config.md: a moved row without keys: %s", line)
			}
			ref.moved[strings.Join(from, ".")] = to[0]
		}
	}
	return ref
}

// canonicalJSON re-encodes a JSON value, so that two spellings of one
// value compare equal.
func canonicalJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// tomlValueAsJSON reads a TOML value ("100ms" in quotes, 0.2, []) as the
// JSON value the schema would hold.
func tomlValueAsJSON(t *testing.T, lit string) string {
	t.Helper()
	var m map[string]any
	if err := toml.Unmarshal([]byte("v = "+lit), &m); err != nil {
		t.Fatalf("docs/config.md: default %s is not a TOML value: %v", lit, err)
	}
	out, err := json.Marshal(m["v"])
	if err != nil {
		t.Fatal(err)
	}
	return canonicalJSON(t, out)
}

// TestDocsMatchSchema: docs/config.md and schema.json describe the same
// keys with the same defaults. Every key of the schema has a row (a table
// has a heading, or a row when it is a key of its parent's table, like
// roles), with "—" as its default when the schema gives none; every row
// and heading is a key of the schema. Old keys the page says moved are the
// ones the loader says moved, to the same place.
func TestDocsMatchSchema(t *testing.T) {
	ref := readDocs(t)
	schema := schemaKeys(t)
	for path, k := range schema {
		cell, ok := ref.rows[path]
		if !ok && k.table {
			for table := range ref.tables {
				ok = ok || table == path || under(table, path)
			}
			if !ok {
				t.Errorf("%s: a table of schema.json without a heading in docs/config.md", path)
			}
			continue
		}
		switch {
		case !ok:
			t.Errorf("%s: in schema.json, not in docs/config.md", path)
		case k.def == nil && cell != "—":
			t.Errorf("%s: docs/config.md gives the default %s, schema.json none", path, cell)
		case k.def != nil && (!strings.HasPrefix(cell, "`") || !strings.HasSuffix(cell, "`")):
			t.Errorf("%s: docs/config.md gives the default %q, schema.json %s", path, cell, k.def)
		case k.def != nil:
			if got, want := tomlValueAsJSON(t, strings.Trim(cell, "`")), canonicalJSON(t, k.def); got != want {
				t.Errorf("%s: docs/config.md's default is %s, schema.json's %s", path, got, want)
			}
		}
	}
	for path := range ref.rows {
		if _, ok := schema[path]; !ok {
			t.Errorf("%s: in docs/config.md, not in schema.json", path)
		}
	}
	for table := range ref.tables {
		if k, ok := schema[table]; !ok || !k.table {
			t.Errorf("docs/config.md heads a table %s that schema.json does not have", table)
		}
	}
	if !maps.Equal(ref.moved, movedKeys()) {
		t.Errorf("docs/config.md says these keys moved: %v; the loader: %v", ref.moved, movedKeys())
	}
}

// TestDocsExamplesParse: every TOML block of docs/config.md is a valid
// document.
func TestDocsExamplesParse(t *testing.T) {
	ref := readDocs(t)
	if len(ref.examples) == 0 {
		t.Fatal("docs/config.md has no example document")
	}
	for i, doc := range ref.examples {
		if _, err := Parse([]byte(doc), ParseOptions{LookupEnv: anyEnv}); err != nil {
			t.Errorf("example %d: %v", i, err)
		}
	}
}

// TestDocumentedDefaultsAreTheDefaults: writing any key with the default
// schema.json (and so docs/config.md) gives it parses to the same Document
// as leaving the key out, so the documented defaults are the code's.
func TestDocumentedDefaultsAreTheDefaults(t *testing.T) {
	const endpointHead = "[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n"
	base, err := Parse([]byte(endpointHead+"[endpoints.roles.read]\n"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for path, k := range schemaKeys(t) {
		if k.def == nil {
			continue
		}
		// The defaults are strings without escapes, numbers, [] and {}:
		// their JSON text is TOML too.
		value := canonicalJSON(t, k.def)
		table, key := parent(path), path[len(parent(path))+1:]
		var doc string
		switch {
		case table == "endpoints":
			doc = endpointHead + key + " = " + value + "\n[endpoints.roles.read]\n"
		case table == "endpoints.roles.read":
			doc = endpointHead + "[endpoints.roles.read]\n" + key + " = " + value + "\n"
		case strings.HasPrefix(table, "endpoints"):
			continue // the same keys for send
		default:
			doc = "[" + table + "]\n" + key + " = " + value + "\n" + endpointHead + "[endpoints.roles.read]\n"
		}
		d, err := Parse([]byte(doc), ParseOptions{})
		if err != nil {
			t.Errorf("%s = %s: %v", path, value, err)
			continue
		}
		if !reflect.DeepEqual(normalized(d), normalized(base)) {
			t.Errorf("%s = %s (its documented default) gives\n%+v\nleft out:\n%+v", path, value, *normalized(d), *normalized(base))
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d defaults checked", checked)
	}
}

// normalized is d with each role's limits Normalized and empty slices and
// maps of its endpoints nil: what the pool makes of it.
func normalized(d *Document) *Document {
	out := *d
	out.Endpoints = slices.Clone(d.Endpoints)
	for i := range out.Endpoints {
		s := out.Endpoints[i]
		s.Roles = maps.Clone(s.Roles) // written below
		if len(s.Capabilities) == 0 {
			s.Capabilities = nil
		}
		if len(s.Headers) == 0 {
			s.Headers = nil
		}
		for r, l := range s.Roles {
			s.Roles[r] = l.Normalized()
		}
		out.Endpoints[i] = s
	}
	return &out
}
