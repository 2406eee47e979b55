package admission_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

const marker = "SECRET-9c1e"

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestNoSecretsAnywhere puts a marker in URL user info, path and query and
// in a header value, drives the pool through waits, state changes, a
// deadline error and a validation error, and checks that no snapshot,
// error, log line or permit rendering carries it.
func TestNoSecretsAnywhere(t *testing.T) {
	secret := func(name string, tier int, l endpoint.Limits) endpoint.Spec {
		s := ep(name, tier, l)
		s.URL = endpoint.NewSecret("https://user:" + marker + "@" + name + ".example.com/v1/" + marker + "?api-key=" + marker)
		s.Headers = map[string]endpoint.Secret{"Authorization": endpoint.NewSecret("Bearer " + marker), "X-Api-Key": endpoint.NewSecret(marker)}
		return s
	}
	var logs syncBuffer
	fc := clockwork.NewFakeClockAt(t0)
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := admission.New([]endpoint.Spec{
		secret("primary-a", 0, endpoint.Limits{MaxConcurrentRequests: 1, RequestTimeout: time.Second}),
		secret("backup-a", 1, endpoint.Limits{RequestsPerSecond: 1, BurstCapacity: 1}),
	}, pool.DefaultSettings(), admission.Options{Clock: fc, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	var renders []string
	add := func(v any) {
		for _, verb := range []string{"%v", "%+v", "%#v"} {
			renders = append(renders, fmt.Sprintf(verb, v))
		}
		if js, err := json.Marshal(v); err == nil {
			renders = append(renders, string(js))
		} else {
			t.Errorf("json.Marshal(%T): %v", v, err)
		}
	}

	a := start(context.Background(), p, read).permit(t, "primary-a")
	add(a)
	a.Done(failure())
	held := start(context.Background(), p, read).permit(t, "primary-a")
	start(context.Background(), p, read).permit(t, "backup-a").Done(rateLimited(time.Second))
	pd := start(context.Background(), p, read)
	pd.mustWait(t, fc, 1)
	fc.Advance(time.Second)
	r := pd.get(t)
	var de *admission.DeadlineError
	if !errors.As(r.err, &de) {
		t.Fatalf("Acquire = %v, want a DeadlineError", r.err)
	}
	renders = append(renders, r.err.Error())
	add(de)
	held.Done(success())
	add(p.Snapshot())
	_, err = p.Acquire(context.Background(), admission.Request{Role: endpoint.RoleSend})
	renders = append(renders, err.Error())

	bad := secret("", -1, endpoint.Limits{})
	bad.URL = endpoint.NewSecret("ftp://" + marker + "@[::1" + marker)
	bad.Headers["Bad Name"] = endpoint.NewSecret(marker)
	_, err = admission.New([]endpoint.Spec{bad}, pool.DefaultSettings(), admission.Options{})
	if err == nil {
		t.Fatal("New accepted an invalid spec")
	}
	renders = append(renders, err.Error())
	renders = append(renders, logs.String())

	for i, r := range renders {
		if strings.Contains(r, marker) {
			t.Errorf("render %d leaks a secret:\n%s", i, r)
		}
	}
	for _, want := range []string{`"endpoint":"primary-a"`, `"to":"degraded"`, `"to":"rate-limited"`, "every candidate blocked, waiting"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %s:\n%s", want, logs.String())
		}
	}
}
