package endpoint

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// holder keeps specs where fmt cannot call their methods: in unexported
// fields, as pool.Pool does.
type holder struct {
	spec  Spec
	specs []Spec
	ptr   *Spec
	byKey map[string]Spec
	url   Secret
}

// TestSecretPrintsNothing prints Secrets and Specs, directly and through
// unexported fields, with every fmt verb, both slog handlers, JSON and
// text marshalling: the value never shows, in clear or in hex.
func TestSecretPrintsNothing(t *testing.T) {
	spec := secretSpec()
	spec.Headers["X-Api-Key"] = NewSecret(marker)
	h := holder{spec: spec, specs: []Spec{spec}, ptr: &spec, byKey: map[string]Spec{"a": spec}, url: spec.URL}
	values := []any{spec.URL, &spec.URL, spec, &spec, []Spec{spec}, spec.Headers, h, &h}
	var renders []string
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s", "%T"} {
			renders = append(renders, fmt.Sprintf(verb, v))
		}
		renders = append(renders, fmt.Sprint(v), fmt.Sprintln(v))
		if js, err := json.Marshal(v); err == nil {
			renders = append(renders, string(js))
		} else if _, isHolder := v.(holder); !isHolder {
			t.Errorf("json.Marshal(%T): %v", v, err)
		}
	}
	var logs bytes.Buffer
	for _, hd := range []slog.Handler{
		slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
		slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
	} {
		l := slog.New(hd)
		l.Debug("values", "url", spec.URL, "spec", spec, "specs", []Spec{spec}, "holder", h, "hp", &h, "headers", spec.Headers)
	}
	renders = append(renders, logs.String())
	text, err := spec.URL.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	renders = append(renders, string(text))
	hexMarker := hex.EncodeToString([]byte(marker))
	for i, r := range renders {
		if strings.Contains(r, marker) || strings.Contains(strings.ToLower(r), hexMarker) {
			t.Errorf("render %d leaks the secret: %s", i, r)
		}
	}
	js, _ := json.Marshal(spec)
	if !strings.Contains(string(js), `"URL":"[redacted]"`) || !strings.Contains(string(js), `"Authorization":"[redacted]"`) {
		t.Errorf("json.Marshal(Spec) = %s, want its secrets as \"[redacted]\"", js)
	}
	if got := fmt.Sprintf("%q|%v|%#v", spec.URL, spec.URL, spec.URL); got != "[redacted]|[redacted]|[redacted]" {
		t.Errorf("Secret prints %s", got)
	}
}

func TestSecretValue(t *testing.T) {
	s := NewSecret("https://k.example/" + marker)
	if got := s.Reveal(); got != "https://k.example/"+marker {
		t.Errorf("Reveal = %q", got)
	}
	if s.IsZero() || !NewSecret("").IsZero() || !(Secret{}).IsZero() || (Secret{}).Reveal() != "" {
		t.Error("IsZero is not exactly the empty value")
	}
	if !s.Equal(NewSecret(s.Reveal())) || s.Equal(NewSecret("other")) || !NewSecret("").Equal(Secret{}) {
		t.Error("Equal does not compare values")
	}
	var d struct{ URL Secret }
	if err := json.Unmarshal([]byte(`{"URL":"https://k.example/x"}`), &d); err != nil || d.URL.Reveal() != "https://k.example/x" {
		t.Errorf("json.Unmarshal: %v, %q", err, d.URL.Reveal())
	}
	c := s
	if err := c.UnmarshalText([]byte("changed")); err != nil || s.Reveal() != "https://k.example/"+marker || c.Reveal() != "changed" {
		t.Error("UnmarshalText changed a copy's value")
	}
}
