package redislimit

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/redistest"
)

// TestNewRefusesURLThatCanNeverWork: a [limits] url that no dial can use
// (a port above 65535) or whose database is negative (go-redis then sends
// no SELECT and database 0 is used, not the one written) is a mistake in
// the document, not an outage: New refuses it before it dials, with a url
// problem that says what is expected and quotes no part of the URL (its
// password and path carry the marker). Before, the first ran on its
// fallback share for good and the second shared keys in database 0.
func TestNewRefusesURLThatCanNeverWork(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	host := srv.Addr()[:strings.LastIndex(srv.Addr(), ":")]
	for name, tc := range map[string]struct{ url, want string }{
		"port 99999":  {"redis://:" + marker + "@" + host + ":99999/0", "port out of range: want 1 to 65535"},
		"database -1": {"redis://:" + marker + "@" + srv.Addr() + "/-1", "negative database number: want 0 or more"},
		"db query -1": {"redis://:" + marker + "@" + srv.Addr() + "/0?db=-1", "negative database number: want 0 or more"},
	} {
		t.Run(name, func(t *testing.T) {
			s := config.DefaultLimits()
			s.Backend, s.URL = config.BackendRedis, endpoint.NewSecret(tc.url)
			l, err := New(context.Background(), s, Options{Clock: clockwork.NewFakeClock()})
			if err == nil {
				st := l.Stats()
				_ = l.Close()
				t.Fatalf("New accepted a [limits] url with %s; Stats.Down = %v", name, st.Down)
			}
			var p *endpoint.Problem
			if !errors.As(err, &p) || p.Path != "url" || !strings.Contains(p.Message, tc.want) {
				t.Errorf("New() = %v, want a url problem: ...%s...", err, tc.want)
			}
			for _, part := range []string{marker, host, "/-1", "db="} {
				if strings.Contains(err.Error(), part) {
					t.Errorf("New() = %v: quotes %q of the URL", err, part)
				}
			}
		})
	}
}
