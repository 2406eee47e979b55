package config

import "testing"

func TestPositions(t *testing.T) {
	doc := `cluster = "devnet"
[retry]
max_retries = 1
[[endpoints]]
name = "a"
headers = { A = "x", "X-Key" = "y" }
capabilities = [
  "archive",
  "fast",
]
  [endpoints.roles.read]
  requests_per_second = 5
[[endpoints]]
name = "b"
roles.send.burst_capacity = 3
[[endpoints]]
name = "c"
`
	ps := indexPositions([]byte(doc))
	tests := []struct {
		path string
		line int
	}{
		{"cluster", 1},
		{"retry", 2},
		{"retry.max_retries", 3},
		{"endpoints", 4},
		{"endpoints[0]", 4},
		{"endpoints[0].name", 5},
		{"endpoints[0].headers", 6},
		{"endpoints[0].headers.X-Key", 6},
		{"endpoints[0].capabilities[1]", 9},
		{"endpoints[0].roles.read", 11},
		{"endpoints[0].roles.read.requests_per_second", 12},
		{"endpoints[1]", 13},
		{"endpoints[1].roles.send.burst_capacity", 15},
		{"endpoints[2].name", 17},
		// Not in the document: the nearest ancestor's line.
		{"endpoints[2].roles", 16},
		{"endpoints[1].url", 13},
		{"transport.max_response_bytes", 0},
	}
	for _, tt := range tests {
		if got := ps.line(tt.path); got != tt.line {
			t.Errorf("line(%q) = %d, want %d", tt.path, got, tt.line)
		}
	}
	if got := ps.pathAt(15, []string{"endpoints", "roles", "send", "burst_capacity"}); got != "endpoints[1].roles.send.burst_capacity" {
		t.Errorf("pathAt = %q", got)
	}
	if got := ps.pathAt(99, []string{"x", "y"}); got != "x.y" {
		t.Errorf("pathAt fallback = %q", got)
	}
}

func TestPathHelpers(t *testing.T) {
	for _, tt := range []struct{ in, parent, stripped string }{
		{"a[1].b", "a[1]", "a.b"},
		{"a[1]", "a", "a"},
		{"a", "", "a"},
		{"a.b[0][2]", "a.b[0]", "a.b"},
		{`a."b.c"`, "a", `a."b.c"`},
		{`a."b[1]"`, "a", `a."b[1]"`},
		{`a."b[1]"[2]`, `a."b[1]"`, `a."b[1]"`},
		{`"x\".y"."z\\"`, `"x\".y"`, `"x\".y"."z\\"`},
		{`"a]"`, "", `"a]"`},
	} {
		if got := parent(tt.in); got != tt.parent {
			t.Errorf("parent(%q) = %q, want %q", tt.in, got, tt.parent)
		}
		if got := stripIndexes(tt.in); got != tt.stripped {
			t.Errorf("stripIndexes(%q) = %q, want %q", tt.in, got, tt.stripped)
		}
	}
}

func TestQuoteKey(t *testing.T) {
	for k, want := range map[string]string{
		"plain_key-1":    "plain_key-1",
		"":               `""`,
		"Bad Name":       `"Bad Name"`,
		"a.b":            `"a.b"`,
		`q"uote\`:        `"q\"uote\\"`,
		"line\nbreak":    `"line\nbreak"`,
		"tab\t\r\b\f":    `"tab\t\r\b\f"`,
		"nul\x00esc\x1b": `"nul\u0000esc\u001B"`,
		"del\x7f":        `"del\u007F"`,
		"rtl\u202e":      `"rtl\u202E"`,
		"nel\u0085":      `"nel\u0085"`,
		"tag\U000E0001":  `"tag\U000E0001"`,
		"é":              `"é"`,
	} {
		if got := quoteKey(k); got != want {
			t.Errorf("quoteKey(%q) = %s, want %s", k, got, want)
		}
	}
	if got := printable("ok \\ \n\x1b\xff"); got != `ok \ \n\u001B\xFF` {
		t.Errorf("printable = %s", got)
	}
}
