package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUnknownKeysAgreeWithTheDecoder: below maxUnknownKeys, go-toml's strict
// decoder reports unknown keys; above it, Parse's own index does. Both must
// name the same keys, checked on every document the tests ship.
func TestUnknownKeysAgreeWithTheDecoder(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.toml")
	examples, _ := filepath.Glob("examples/*.toml")
	files = append(files, examples...)
	docs := map[string]string{
		"nested unknown table": "[[endpoints]]\nname = \"a\"\n[endpoints.extra]\nx = 1\ny = 2\n",
		"unknown inline table": "[[endpoints]]\nname = \"a\"\nmore = { x = 1 }\n[endpoints.roles.read]\nrps = 3\n",
		"headers and cluster":  "cluster = { odd = 1 }\n[[endpoints]]\nname = \"a\"\nheaders = { Any-Name = \"v\" }\n",
		"top and retry":        "colour = 1\n[retry]\nmax_retries = 1\nbackoff = \"1s\"\n[transport]\nlimit = 3\n",
		"method tables": "[methods.getAsset]\nrole = \"read\"\ncolour = 1\n[methods.\"a.b\"]\nclass = \"idempotent\"\n" +
			"[methods.\"*\"]\nx = 2\n[methods.c]\nrole.deep = 1\n[[endpoints]]\nname = \"a\"\n",
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = string(data)
	}
	known := knownKeys()
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			var fromDecoder []string
			_, err := Parse([]byte(doc), ParseOptions{LookupEnv: func(string) (string, bool) { return "x", true }})
			var ve *ValidationError
			if errors.As(err, &ve) {
				for _, p := range ve.Problems {
					if p.Message == "unknown key" {
						fromDecoder = append(fromDecoder, p.Path)
					}
				}
			}
			fromIndex, _ := indexPositions([]byte(doc)).unknownKeys(known)
			slices.Sort(fromDecoder)
			slices.Sort(fromIndex)
			if !slices.Equal(fromDecoder, fromIndex) {
				t.Errorf("decoder reports %q, index finds %q", fromDecoder, fromIndex)
			}
		})
	}
}

// TestTooManyUnknownKeys: a large document of unknown keys is refused from
// the index, with the first maxUnknownKeys named and the rest counted.
func TestTooManyUnknownKeys(t *testing.T) {
	var b strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&b, "[[endpoints]]\nname = \"e%d\"\nzz%d = 1\n", i, i)
	}
	_, err := Parse([]byte(b.String()), ParseOptions{Filename: "big.toml"})
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != maxUnknownKeys+1 {
		t.Fatalf("err = %v, want %d problems", err, maxUnknownKeys+1)
	}
	if p := ve.Problems[0]; p.Path != "endpoints[0].zz0" || p.Line != 3 || p.Message != "unknown key" {
		t.Errorf("first problem %+v", p)
	}
	if last := ve.Problems[maxUnknownKeys]; last.Path != fmt.Sprintf("endpoints[%d].zz%d", maxUnknownKeys, maxUnknownKeys) ||
		!strings.Contains(last.Message, fmt.Sprintf("and %d more unknown keys", 4000-maxUnknownKeys)) {
		t.Errorf("last problem %+v", last)
	}
}

// FuzzUnknownKeys: on any document Parse accepts, the index finds no
// unknown key; when the decoder reports unknown keys, the index finds some.
func FuzzUnknownKeys(f *testing.F) {
	for _, s := range []string{
		"colour = 1\n[retry]\nbackoff = \"1s\"\n",
		"[[endpoints]]\nname = \"a\"\n[endpoints.extra]\nx = 1\n",
		"[[endpoints]]\nname = \"a\"\nurl = \"http://h\"\nheaders = { A = \"b\" }\n[endpoints.roles.read]\n",
		"\"a.b\" = 1\nc.d = 2\n", "[endpoints]\nx=1\n", "[[endpoints.roles.read]]\n",
		"[methods.\"a.b\"]\nrole = \"read\"\nclass = \"idempotent\"\n[methods.x]\ncolour = 1\n",
	} {
		f.Add([]byte(s))
	}
	known := knownKeys()
	lookup := func(string) (string, bool) { return "http://h", true }
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse(data, ParseOptions{LookupEnv: lookup})
		var fromDecoder []string
		var ve *ValidationError
		if errors.As(err, &ve) {
			for _, p := range ve.Problems {
				if p.Message == "unknown key" {
					fromDecoder = append(fromDecoder, p.Path)
				}
			}
		}
		if err != nil && len(fromDecoder) == 0 {
			return // another problem; the decoder may have stopped early
		}
		fromIndex, below := indexPositions(data).unknownKeys(known)
		if len(fromIndex)+below > maxUnknownKeys {
			return
		}
		if (len(fromIndex) == 0) != (len(fromDecoder) == 0) {
			t.Fatalf("decoder reports %q, index finds %q", fromDecoder, fromIndex)
		}
	})
}

// TestManyKeysUnderOneUnknownTable: keys below an unknown table count
// towards maxUnknownKeys too; the table is named, the rest counted.
func TestManyKeysUnderOneUnknownTable(t *testing.T) {
	doc := strings.Repeat("[[x.y]]\na = 1\n", 4000)
	_, err := Parse([]byte(doc), ParseOptions{})
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 {
		t.Fatalf("err = %v, want 2 problems", err)
	}
	if p := ve.Problems[0]; p.Path != "x" || p.Line != 1 || p.Message != "unknown key" {
		t.Errorf("first problem %+v", p)
	}
	if p := ve.Problems[1]; !strings.Contains(p.Message, "more unknown keys") {
		t.Errorf("second problem %+v", p)
	}
}
