package pubsub_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/pubsub"
)

// Markers planted in the endpoints' URLs and headers.
const (
	markPath   = "Pth7Secret"
	markQuery  = "Qry9Secret"
	markHeader = "Hdr3Secret"
)

// TestErrorsHideSecrets: endpoints whose ws URLs carry an API key in path
// and query, and a header, fail in every way an endpoint fails to take a
// subscription (an upgrade answered 429, a refusal whose message echoes
// the key, a port that refuses): the subscribe's error names each endpoint
// by its label and the operation, and neither it, nor the events, the
// snapshot or the log hold a marker.
func TestErrorsHideSecrets(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	_ = ln.Close()
	var logs bytes.Buffer
	e := newEnv(t, []member{
		{name: "a", ps: fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{UpgradeStatus: 429, RetryAfter: "1"}}},
		{name: "b", ps: fixtures.PubSubOptions{Faults: fixtures.PubSubFaults{Refuse: &fixtures.PubSubRefusal{
			Methods: []string{"accountSubscribe"}, Code: -32603,
			Message: "key " + markQuery + " rejected at /" + markPath}}}},
		{name: "c"},
	}, func(eps []pubsub.Endpoint, _ *pubsub.Settings, o *pubsub.Options) {
		for i := range eps {
			base := strings.TrimSuffix(eps[i].URL.Reveal(), "/ws")
			if eps[i].Name == "c" {
				base = "ws://" + closed
			}
			eps[i].URL = endpoint.NewSecret(base + "/v1/" + markPath + "?api-key=" + markQuery)
			eps[i].Headers = map[string]endpoint.Secret{"X-Token": endpoint.NewSecret(markHeader)}
		}
		o.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	_, err = e.eng.AccountSubscribe(ctxT(t), key(1), pubsub.AccountOptions{Commitment: rpc.CommitmentConfirmed})
	var se *pubsub.SubscribeError
	if !errors.As(err, &se) || !errors.Is(err, pubsub.ErrNoEndpoint) {
		t.Fatalf("subscribe: %v, want a SubscribeError", err)
	}
	for _, name := range []string{`"a"`, `"b"`, `"c"`} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name endpoint %s: %v", name, err)
		}
	}
	texts := []string{err.Error(), logs.String()}
	for _, ev := range e.events.all() {
		if ev.Err != nil {
			texts = append(texts, ev.Err.Error())
		}
	}
	for _, ep := range e.eng.Snapshot().Endpoints {
		texts = append(texts, ep.LastError)
	}
	for _, text := range texts {
		for _, m := range []string{markPath, markQuery, markHeader, closed} {
			if strings.Contains(text, m) {
				t.Errorf("%q leaks in %s", m, text)
			}
		}
	}
	if e.ps["a"].Stats().Rejected == 0 || e.ps["b"].Stats().Refusals == 0 || logs.Len() == 0 {
		t.Errorf("the faults were not met: a %+v, b %+v, %d bytes of log", e.ps["a"].Stats(), e.ps["b"].Stats(), logs.Len())
	}
	t.Logf("error: %v", err)
}
