package redislimit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/redistest"
)

// TestSecretsNeverShown plants the marker in every part of a Redis URL
// (user, password, host, database path, query) and drives every way the
// limiter meets that URL: validation of a bad one, a refused connection,
// a host that does not resolve, credentials the server refuses, a server
// that stops answering, a healthy run. No error, log line (text or JSON),
// go-redis log line, printed Settings or Stats shows the marker in any
// form fixturedata.FindSecret undoes, nor the server's address.
func TestSecretsNeverShown(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{Password: "pw" + marker})
	dead := redistest.Start(t, redistest.Options{})
	dead.Kill()
	const longLabel = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	type mode struct {
		name, url string
		// paused: the server stops answering once the limiter is made.
		paused bool
	}
	modes := []mode{
		{name: "bad url: port", url: "redis://u" + marker + ":p%40" + marker + "@h.example:" + marker + "/0"},
		{name: "bad url: scheme", url: "http" + marker + "://:" + marker + "@h.example/0"},
		{name: "bad url: database", url: "redis://:" + marker + "@h.example/" + marker},
		{name: "bad url: query", url: "redis://:" + marker + "@h.example/0?" + marker + "=" + marker},
		{name: "refused", url: "redis://us" + marker + "er:p%2F" + marker + "+w@" + dead.Addr() + "/0"},
		{name: "no such host", url: "redis://:" + marker + "@" + marker + "-" + longLabel + ".invalid:6379/0"},
		{name: "wrong password", url: "redis://:wrong" + marker + "@" + srv.Addr() + "/0"},
		{name: "wrong user", url: "redis://u" + marker + ":pw" + marker + "@" + srv.Addr() + "/0"},
		{name: "no such database", url: "redis://:pw" + marker + "@" + srv.Addr() + "/" + "77"},
		{name: "healthy", url: "redis://:pw" + marker + "@" + srv.Addr() + "/0"},
		{name: "stops answering", url: "redis://default:pw" + marker + "@" + srv.Addr() + "/0?client_name=" + marker, paused: true},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			jlogger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			clock := clockwork.NewFakeClockAt(epoch)
			s := config.Limits{Backend: config.BackendRedis, URL: endpoint.NewSecret(m.url), KeyPrefix: "s:", Replicas: 2}
			var outs []string
			outs = append(outs, fmt.Sprintf("%v %+v %#v", s, s, s))
			if j, err := json.Marshal(s); err == nil {
				outs = append(outs, string(j))
			}
			logger.Info("settings", "s", s)
			jlogger.Info("settings", "s", s)
			if err := s.Validate(); err != nil {
				outs = append(outs, err.Error())
			}
			answers := make(chan struct{}, 64)
			l, err := New(context.Background(), s, Options{Clock: clock, Logger: logger, OpTimeout: 100 * time.Millisecond})
			if err != nil {
				outs = append(outs, err.Error(), fmt.Sprintf("%+v %#v", err, err))
			} else {
				l.onAnswer = func() { answers <- struct{}{} }
				spec := &endpoint.Spec{Name: "a", URL: endpoint.NewSecret("https://x.example/"),
					Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {RequestsPerSecond: 10}}}
				b := l.NewBucket(spec, endpoint.RoleRead)
				if m.paused {
					srv.Pause()
				}
				for range 20 {
					b.TakeAt(clock.Now())
					// A real server's answer, if a request went out:
					// waited for in real time, bounded.
					select {
					case <-answers:
					case <-time.After(50 * time.Millisecond):
					}
					clock.Advance(200 * time.Millisecond)
				}
				if m.paused {
					srv.Resume()
				}
				outs = append(outs, fmt.Sprintf("%+v", l.Stats()))
				if err := l.Close(); err != nil {
					outs = append(outs, err.Error())
				}
			}
			outs = append(outs, logs.String())
			for _, o := range outs {
				if form, found := fixturedata.FindSecret(o, marker); found {
					t.Errorf("the marker shows (%s) in:\n%s", form, o)
				}
				for _, addr := range []string{srv.Addr(), dead.Addr()} {
					if strings.Contains(o, addr) {
						t.Errorf("the server's address shows in:\n%s", o)
					}
				}
			}
		})
	}
	// go-redis's own log (failed dials) over every test so far.
	log := goRedisLog.String()
	if form, found := fixturedata.FindSecret(log, marker); found {
		t.Errorf("the marker shows (%s) in go-redis's log:\n%s", form, log)
	}
	for _, addr := range []string{srv.Addr(), dead.Addr()} {
		if strings.Contains(log, addr) {
			t.Errorf("an address shows in go-redis's log:\n%s", log)
		}
	}
}
