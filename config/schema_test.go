package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileSchema compiles schema.json.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("compile schema.json: %v", err)
	}
	return sch
}

// asJSONInstance decodes a TOML document to the JSON value the schema
// validates: TOML -> map -> JSON -> jsonschema's own decoding.
func asJSONInstance(t *testing.T, data []byte) any {
	t.Helper()
	var m map[string]any
	if err := toml.Unmarshal(data, &m); err != nil {
		t.Fatalf("toml: %v", err)
	}
	j, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// anyEnv resolves every variable, for the examples' ${...} references.
func anyEnv(name string) (string, bool) { return "value-of-" + name, true }

func TestExamplesMatchSchemaAndLoad(t *testing.T) {
	sch := compileSchema(t)
	files, err := filepath.Glob("examples/*.toml")
	if err != nil || len(files) < 3 {
		t.Fatalf("want at least 3 examples, got %v (%v)", files, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(asJSONInstance(t, data)); err != nil {
				t.Errorf("schema: %v", err)
			}
			cfg, err := Parse(data, ParseOptions{LookupEnv: anyEnv, Filename: file})
			if err != nil {
				t.Fatalf("loader: %v", err)
			}
			if _, err := cfg.EndpointSpecs(); err != nil {
				t.Fatalf("EndpointSpecs: %v", err)
			}
		})
	}
}

// wantLine reads an invalid example's first line, "# want: LINE PATH".
func wantLine(t *testing.T, data []byte) (int, string) {
	t.Helper()
	first, _, _ := bytes.Cut(data, []byte("\n"))
	var line int
	var path string
	rest, ok := strings.CutPrefix(string(first), "# want: ")
	if ok {
		l, p, _ := strings.Cut(rest, " ")
		line, _ = strconv.Atoi(l)
		path = p
	}
	if path == "" {
		t.Fatalf("first line must be '# want: LINE PATH', got %q", first)
	}
	return line, path
}

func TestInvalidExamplesFailSchemaAndLoader(t *testing.T) {
	sch := compileSchema(t)
	files, err := filepath.Glob("testdata/invalid/*.toml")
	if err != nil || len(files) < 8 {
		t.Fatalf("want at least 8 invalid documents, got %v (%v)", files, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			line, path := wantLine(t, data)
			if err := sch.Validate(asJSONInstance(t, data)); err == nil {
				t.Errorf("schema accepted %s", file)
			}
			_, err = Parse(data, ParseOptions{LookupEnv: anyEnv, Filename: file})
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("loader: err = %v, want a *ValidationError", err)
			}
			found := false
			for _, p := range verr.Problems {
				if p.Path == path && p.Line == line {
					found = true
				}
			}
			if !found {
				t.Errorf("loader: want a problem at line %d %s, got:\n%v", line, path, err)
			}
			if strings.Contains(err.Error(), "SECRET-MARKER") {
				t.Errorf("error prints a URL: %v", err)
			}
		})
	}
}

// TestSchemaDescribesEveryKey keeps schema.json and the decoder in step: every
// key the decoder knows has a description in the schema.
func TestSchemaDescribesEveryKey(t *testing.T) {
	raw, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	defs := s["$defs"].(map[string]any)
	props := func(m any) map[string]any { return m.(map[string]any)["properties"].(map[string]any) }
	tables := map[string]map[string]any{
		"document":  props(s),
		"retry":     props(props(s)["retry"]),
		"transport": props(props(s)["transport"]),
		"endpoint":  props(defs["endpoint"]),
		"roles":     props(props(defs["endpoint"])["roles"]),
		"limits":    props(defs["limits"]),
		"method":    props(defs["method"]),
	}
	want := map[string][]string{
		"document":  tomlKeys(document{}),
		"retry":     tomlKeys(retryDoc{}),
		"transport": tomlKeys(transportDoc{}),
		"endpoint":  tomlKeys(endpointDoc{}),
		"roles":     tomlKeys(rolesDoc{}),
		"limits":    tomlKeys(limitsDoc{}),
		"method":    tomlKeys(methodDoc{}),
	}
	for table, keys := range want {
		got := tables[table]
		if len(got) != len(keys) {
			t.Errorf("%s: schema has %d keys, decoder %d (%v)", table, len(got), len(keys), keys)
		}
		for _, k := range keys {
			p, ok := got[k].(map[string]any)
			if !ok {
				t.Errorf("%s.%s: not in schema.json", table, k)
				continue
			}
			if d, _ := p["description"].(string); d == "" {
				t.Errorf("%s.%s: no description in schema.json", table, k)
			}
		}
	}
}

// tomlKeys lists the toml tags of a document struct.
func tomlKeys(v any) []string {
	rt := reflect.TypeOf(v)
	keys := make([]string, 0, rt.NumField())
	for i := range rt.NumField() {
		keys = append(keys, rt.Field(i).Tag.Get("toml"))
	}
	return keys
}
