package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"1767323045", time.Unix(1767323045, 0)},
		{"1767323045.25", time.UnixMilli(1767323045250)},
		{"2026-01-02T03:04:05Z", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
	} {
		got, err := parseTime(tc.in)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "yesterday"} {
		if _, err := parseTime(bad); err == nil {
			t.Errorf("parseTime(%q): nil error", bad)
		}
	}
}

// TestRunRefusesBadArguments: what run checks before it asks Prometheus
// anything.
func TestRunRefusesBadArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--end", "2"}, "--start: missing"},
		{[]string{"--start", "2", "--end", "x"}, "--end:"},
		{[]string{"--start", "2", "--end", "1"}, "want --start before --end"},
		{[]string{"--start", "1", "--end", "2", "--step", "0s"}, "positive --step"},
		{[]string{"--start", "1", "--end", "2", "extra"}, "unexpected arguments"},
		{[]string{"--start", "1", "--end", "2", "--dashboard", "/nonexistent/d.json"}, "no such file"},
	} {
		err := run(context.Background(), tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

// TestDefaultsFromTools: run from tools/, as "cd tools && go run
// ./dashshot/cmd/dashshot" does, without --dashboard, dashshot reads the
// repository's dashboard and goes on to ask Prometheus (here a server
// that refuses), instead of failing on a path relative to the
// repository's root.
func TestDefaultsFromTools(t *testing.T) {
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down for the test", http.StatusServiceUnavailable)
	}))
	defer prom.Close()
	t.Chdir(filepath.Join("..", "..", ".."))
	err := run(context.Background(), []string{"--start", "1", "--end", "2", "--prometheus", prom.URL}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "ask Prometheus its version") {
		t.Fatalf("run from tools/ with the default --dashboard = %v, want it to reach Prometheus", err)
	}
}
