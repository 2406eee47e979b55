package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/solroute/solroute/endpoint"
)

// redisMarker is a secret planted in Redis URLs; no error or printed
// value may show it.
const redisMarker = "ReDiSmArKeR"

func TestLimitsValidate(t *testing.T) {
	const marker = redisMarker
	redisWith := func(url string) Limits {
		s := DefaultLimits()
		s.Backend, s.URL = BackendRedis, endpoint.NewSecret(url)
		return s
	}
	for _, tt := range []struct {
		name string
		s    Limits
		path string // "" for valid
		msg  string
	}{
		{"defaults", DefaultLimits(), "", ""},
		{"redis", redisWith("redis://:" + marker + "@127.0.0.1:6379/0"), "", ""},
		{"user and password", redisWith("redis://u" + marker + ":p" + marker + "@h.example:6380/3"), "", ""},
		{"tls", redisWith("rediss://h.example/"), "", ""},
		{"unix", redisWith("unix:///run/redis.sock?db=2"), "", ""},
		{"query option", redisWith("redis://h.example/0?pool_size=4"), "", ""},
		{"zero settings", Limits{}, "", ""},
		{"no url", Limits{Backend: BackendRedis, Replicas: 1}, "url", "is required"},
		{"url without redis", Limits{URL: endpoint.NewSecret("redis://h/0")}, "url", "only with backend"},
		{"http", redisWith("https://" + marker + ".example/"), "url", "must start with redis://"},
		{"no host", redisWith("redis:///0"), "url", "must name a host"},
		{"opaque", redisWith("redis:" + marker), "url", "must name a host"},
		{"bad port", redisWith("redis://:" + marker + "@h.example:port" + marker + "/0"), "url", "not a valid URL"},
		{"bad db", redisWith("redis://:" + marker + "@h.example/db" + marker), "url", "database number"},
		{"two path segments", redisWith("redis://h.example/0/" + marker), "url", "database number"},
		{"port 0", redisWith("redis://:" + marker + "@h.example:0/0"), "url", "port out of range: want 1 to 65535"},
		{"port 65536", redisWith("redis://:" + marker + "@h.example:65536/0"), "url", "port out of range: want 1 to 65535"},
		{"port 99999", redisWith("redis://:" + marker + "@h.example:99999/0"), "url", "port out of range: want 1 to 65535"},
		{"port 65535", redisWith("redis://:" + marker + "@h.example:65535/0"), "", ""},
		{"port 1", redisWith("rediss://h.example:1"), "", ""},
		{"empty port", redisWith("redis://h.example:/0"), "", ""},
		{"database -1", redisWith("redis://:" + marker + "@h.example/-1"), "url", "negative database number: want 0 or more"},
		{"db query -1", redisWith("redis://:" + marker + "@h.example/0?db=-1"), "url", "negative database number: want 0 or more"},
		{"unix db query -1", redisWith("unix://:" + marker + "@/run/redis.sock?db=-1"), "url", "negative database number: want 0 or more"},
		{"db query not a number", redisWith("redis://h.example/0?db=" + marker), "url", "db query option that is not a database number"},
		{"db query 2", redisWith("redis://h.example/?db=2"), "", ""},
		// Query options are go-redis's: redislimit.New checks them
		// (TestNewRefusesUnknownQueryOption).
		{"unknown query", redisWith("redis://h.example/0?" + marker + "=1"), "", ""},
		{"control character", redisWith("redis://:" + marker + "\n@h.example/0"), "url", "control characters"},
		{"unix without path", redisWith("unix://" + marker + "@"), "url", "must name a socket"},
		{"replicas negative", Limits{Replicas: -1}, "replicas", "between 1 and 10000"},
		{"replicas too many", Limits{Replicas: maxReplicas + 1}, "replicas", "between 1 and 10000"},
		{"prefix too long", Limits{KeyPrefix: strings.Repeat("k", maxKeyPrefix+1)}, "key_prefix", "at most 256 bytes"},
		{"prefix control", Limits{KeyPrefix: "a\x00b"}, "key_prefix", "control characters"},
		{"unknown backend", Limits{Backend: 7}, "backend", `"local" or "redis"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			if tt.path == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var p *endpoint.Problem
			if !errors.As(err, &p) || p.Path != tt.path || !strings.Contains(p.Message, tt.msg) {
				t.Fatalf("Validate() = %v, want %s: ...%s...", err, tt.path, tt.msg)
			}
			if strings.Contains(err.Error(), marker) {
				t.Errorf("the error quotes the URL: %v", err)
			}
		})
	}
}

func TestBackendText(t *testing.T) {
	for _, b := range allBackends() {
		text, err := b.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var got Backend
		if err := got.UnmarshalText(text); err != nil || got != b {
			t.Errorf("%s: round trip gave %v, %v", b, got, err)
		}
	}
	var b Backend
	if err := b.UnmarshalText([]byte("Redis")); err == nil || strings.Contains(err.Error(), "Redis") {
		t.Errorf("UnmarshalText(Redis) = %v: want an error that does not quote the text", err)
	}
	if _, err := Backend(9).MarshalText(); err == nil {
		t.Error("MarshalText of an unknown backend: want an error")
	}
	if got := Backend(9).String(); got != "backend(9)" {
		t.Errorf("String() = %q", got)
	}
}

// TestLimitsNeverPrintTheURL: every way of printing Limits hides the
// URL (it is an endpoint.Secret).
func TestLimitsNeverPrintTheURL(t *testing.T) {
	s := Limits{Backend: BackendRedis, URL: endpoint.NewSecret("redis://:" + redisMarker + "@h.example/0")}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		if out := fmt.Sprintf(verb, s); strings.Contains(out, redisMarker) {
			t.Errorf("%s prints the URL: %s", verb, out)
		}
	}
}
