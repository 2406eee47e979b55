package config

import (
	"os"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// BenchmarkParse measures a full Parse of the multi-tier example (decode,
// position index, checks, expansion, endpoint.Validate).
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("examples/multi-tier.toml")
	if err != nil {
		b.Fatal(err)
	}
	opts := ParseOptions{LookupEnv: anyEnv}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaselineUnmarshal is the baseline for BenchmarkParse: go-toml
// decoding the same document into a generic map, with no checks.
func BenchmarkBaselineUnmarshal(b *testing.B) {
	data, err := os.ReadFile("examples/multi-tier.toml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := toml.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
	}
}
