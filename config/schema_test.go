package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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
			if _, err := Parse(data, ParseOptions{LookupEnv: anyEnv, Filename: file}); err != nil {
				t.Fatalf("loader: %v", err)
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

// schemaKey is one key schema.json describes.
type schemaKey struct {
	// table is true for a table (or an array of tables), false for a
	// value.
	table bool
	// description is the key's description.
	description string
	// def is the key's default, as JSON; nil when it has none.
	def json.RawMessage
}

// schemaKeys lists the keys schema.json describes, spelt as knownKeys
// spells them: a path without indexes, "*" for the key of a table the
// document names itself ([methods.NAME]).
func schemaKeys(t *testing.T) map[string]schemaKey {
	t.Helper()
	raw, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(raw, &root); err != nil {
		t.Fatal(err)
	}
	var defs map[string]json.RawMessage
	if err := json.Unmarshal(root["$defs"], &defs); err != nil {
		t.Fatal(err)
	}
	// node is the part of a schema the walk reads.
	type node struct {
		Ref                  string                     `json:"$ref"`
		Description          string                     `json:"description"`
		Default              json.RawMessage            `json:"default"`
		Properties           map[string]json.RawMessage `json:"properties"`
		PropertyNames        json.RawMessage            `json:"propertyNames"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
		Items                json.RawMessage            `json:"items"`
	}
	// resolve follows $ref until a schema with properties or items (a
	// table), keeping the first description and default met.
	var resolve func(raw json.RawMessage) node
	resolve = func(raw json.RawMessage) node {
		var n node
		if err := json.Unmarshal(raw, &n); err != nil {
			t.Fatalf("schema.json: %v", err)
		}
		if n.Ref != "" && n.Properties == nil && n.Items == nil {
			target := resolve(defs[strings.TrimPrefix(n.Ref, "#/$defs/")])
			if n.Description == "" {
				n.Description = target.Description
			}
			if n.Default == nil {
				n.Default = target.Default
			}
			n.Properties, n.PropertyNames, n.AdditionalProperties, n.Items =
				target.Properties, target.PropertyNames, target.AdditionalProperties, target.Items
		}
		return n
	}
	out := map[string]schemaKey{}
	var walk func(prefix string, n node)
	walk = func(prefix string, n node) {
		if n.Items != nil {
			n = resolve(n.Items)
		}
		if n.PropertyNames != nil && bytes.HasPrefix(bytes.TrimSpace(n.AdditionalProperties), []byte("{")) {
			// A table the document names itself: the named properties
			// (the built-in sends) are that schema again, tightened.
			if sub := resolve(n.AdditionalProperties); sub.Properties != nil {
				out[prefix+".*"] = schemaKey{table: true, description: n.Description}
				walk(prefix+".*", sub)
				return
			}
		}
		for key, raw := range n.Properties {
			sub := resolve(raw)
			path := join(prefix, key)
			if sub.Items != nil {
				sub.Properties = resolve(sub.Items).Properties
			}
			table := sub.Properties != nil
			out[path] = schemaKey{table: table, description: sub.Description, def: sub.Default}
			if table {
				walk(path, sub)
			}
		}
	}
	walk("", resolve(raw))
	return out
}

// TestSchemaDescribesEveryKey keeps schema.json and the decoder in step:
// the schema describes exactly the keys the struct tags of the settings
// types give the decoder, each with a description, tables where the
// decoder has tables.
func TestSchemaDescribesEveryKey(t *testing.T) {
	known := knownKeys()
	schema := schemaKeys(t)
	for path, leaf := range known {
		k, ok := schema[path]
		switch {
		case !ok:
			t.Errorf("%s: the decoder knows it, schema.json does not", path)
		case k.description == "":
			t.Errorf("%s: no description in schema.json", path)
		case k.table == leaf:
			t.Errorf("%s: a table in one and a value in the other (schema table %v)", path, k.table)
		}
	}
	for path := range schema {
		if _, ok := known[path]; !ok {
			t.Errorf("%s: in schema.json, unknown to the decoder", path)
		}
	}
}
