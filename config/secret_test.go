package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/solroute/solroute/endpoint"
)

func TestSecretNeverPrints(t *testing.T) {
	const marker = "SECRET-MARKER-9f3a"
	d := &Document{Endpoints: []endpoint.Spec{{
		Name:    "a",
		URL:     endpoint.NewSecret("https://x/?k=" + marker),
		Headers: map[string]endpoint.Secret{"Authorization": endpoint.NewSecret("Bearer " + marker)},
	}}}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X"} {
		outs = append(outs, fmt.Sprintf(verb, d), fmt.Sprintf(verb, *d), fmt.Sprintf(verb, d.Endpoints[0].URL))
	}
	// A Document holds a func (retrypolicy.Settings.Jitter), which
	// encoding/json refuses: its endpoints are what carries secrets.
	j, err := json.Marshal(d.Endpoints)
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(j))
	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&buf, nil), slog.NewJSONHandler(&buf, nil)} {
		l := slog.New(h)
		l.Info("d", "d", d, "url", d.Endpoints[0].URL, "ep", d.Endpoints[0])
	}
	outs = append(outs, buf.String())
	for _, o := range outs {
		if strings.Contains(o, marker) {
			t.Fatalf("secret printed: %s", o)
		}
	}
	if !strings.Contains(string(j), "[redacted]") {
		t.Fatalf("json = %s, want %q in it", j, "[redacted]")
	}
	if got := d.Endpoints[0].URL.Reveal(); !strings.Contains(got, marker) {
		t.Fatalf("Reveal() = %q, want the value", got)
	}
}
