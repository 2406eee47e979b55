package solroute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestNewRoutesEveryRole: reads and sends through New's client reach the
// endpoints that serve them; a send is never routed to a read-only one.
func TestNewRoutesEveryRole(t *testing.T) {
	reader, sender := fakeEndpoint("reader"), fakeEndpoint("sender")
	defer reader.Close()
	defer sender.Close()
	var rec solroute.CallRecord
	c, err := solroute.New(solroute.Options{
		Endpoints: []solroute.Endpoint{
			{Name: "reader", URL: reader.URL(), Read: &endpoint.Limits{}},
			{Name: "sender", URL: sender.URL(), Tier: 1, Send: &endpoint.Limits{}},
		},
		Cluster: "mainnet-beta",
		Hooks:   solroute.Hooks{Observers: []transport.Observer{&rec}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.RPC().GetSlot(ctx, ""); err != nil {
		t.Fatal(err)
	}
	tx, err := fixtures.SignedTransaction(3, "")
	if err != nil {
		t.Fatal(err)
	}
	sig, err := c.RPC().SendTransaction(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if sender.Deliveries(sig.String()) != 1 || reader.Stats().Calls["sendTransaction"] != 0 || reader.Stats().Calls["getSlot"] != 1 {
		t.Fatalf("reader %+v, sender %+v", reader.Stats(), sender.Stats())
	}
	if attempts := rec.Attempts(); len(attempts) != 2 || attempts[0].Endpoint != "reader" || attempts[1].Endpoint != "sender" {
		t.Fatalf("attempts %+v", rec.Attempts())
	}
	if name, h, ok := c.Cluster(); name != "mainnet-beta" || !ok || h.String() != "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d" {
		t.Fatalf("Cluster() = %s %s %v", name, h, ok)
	}
	if len(c.Snapshot()) != 2 {
		t.Fatalf("snapshot %+v", c.Snapshot())
	}
}

// TestNewRejectsBadOptionsBeforeAnyRequest: every problem is an error
// from New, none quotes a secret, and no endpoint is contacted.
func TestNewRejectsBadOptionsBeforeAnyRequest(t *testing.T) {
	s := fakeEndpoint("s")
	defer s.Close()
	const secret = "SECRETKEY123"
	good := solroute.Endpoint{Name: "a", URL: s.URL() + "/?api-key=" + secret, Read: &endpoint.Limits{}}
	bad := transport.DefaultSettings()
	bad.Retry.MaxRetries = -1
	badPool := pool.DefaultSettings()
	badPool.DoubtWindow = -1
	for name, opts := range map[string]solroute.Options{
		"no endpoints":  {},
		"no role":       {Endpoints: []solroute.Endpoint{{Name: "a", URL: s.URL() + "/" + secret}}},
		"bad url":       {Endpoints: []solroute.Endpoint{{Name: "a", URL: "ftp://" + secret, Read: &endpoint.Limits{}}}},
		"no name":       {Endpoints: []solroute.Endpoint{{URL: s.URL(), Read: &endpoint.Limits{}}}},
		"bad cluster":   {Endpoints: []solroute.Endpoint{good}, Cluster: "https://" + secret},
		"bad transport": {Endpoints: []solroute.Endpoint{good}, Transport: &bad},
		"bad pool":      {Endpoints: []solroute.Endpoint{good}, Pool: &badPool},
		"bad limits":    {Endpoints: []solroute.Endpoint{{Name: "a", URL: s.URL(), Read: &endpoint.Limits{RequestsPerSecond: -1}}}},
		"weakened send": {Endpoints: []solroute.Endpoint{good}, Methods: []methods.Method{
			{Name: "sendTransaction", Role: endpoint.RoleSend, Class: retrypolicy.Idempotent}}},
	} {
		c, err := solroute.New(opts)
		if err == nil {
			c.Close()
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the error quotes a secret: %v", name, err)
		}
	}
	if n := s.Stats().Requests; n != 0 {
		t.Fatalf("%d requests before the options were accepted", n)
	}
	var de *methods.DeclareError
	_, err := solroute.New(solroute.Options{Endpoints: []solroute.Endpoint{good},
		Methods: []methods.Method{{Name: "sendBundle", Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}}})
	if !errors.As(err, &de) || de.Method != "sendBundle" {
		t.Fatalf("weakening a built-in send: %v", err)
	}
}

// TestDeclaredMethodIsRetried: a method declared Idempotent fails over
// like any read; undeclared, it is treated like a send.
func TestDeclaredMethodIsRetried(t *testing.T) {
	results := map[string]json.RawMessage{"getWidget": json.RawMessage(`{"widgets":2}`)}
	flaky := fixtures.NewServer(fixtures.Options{Name: "flaky", Results: results, Script: fixtures.Always(fixtures.Status(503, ""))})
	defer flaky.Close()
	backup := fixtures.NewServer(fixtures.Options{Name: "backup", Results: results})
	defer backup.Close()
	endpoints := []solroute.Endpoint{
		{Name: "flaky", URL: flaky.URL(), Read: &endpoint.Limits{}},
		{Name: "backup", URL: backup.URL(), Tier: 1, Read: &endpoint.Limits{}},
	}
	for _, declared := range []bool{false, true} {
		opts := solroute.Options{Endpoints: endpoints}
		if declared {
			opts.Methods = []methods.Method{{Name: "getWidget", Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}}
		}
		c, err := solroute.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		var out struct{ Widgets int }
		err = c.RPC().RPCCallForInto(context.Background(), &out, "getWidget", nil)
		c.Close()
		if declared != (err == nil) || (!declared && !errors.Is(err, solroute.ErrAmbiguousDispatch)) {
			t.Fatalf("declared=%v: %v", declared, err)
		}
	}
}

// TestEndpointNeverPrintsSecrets: Options and Endpoint printed every way
// show the name, never the URL or a header value.
func TestEndpointNeverPrintsSecrets(t *testing.T) {
	const secret = "SECRETKEY123"
	e := solroute.Endpoint{Name: "provider-a", URL: "https://u:" + secret + "@x.example/" + secret + "?k=" + secret,
		Headers: map[string]string{"Authorization": "Bearer " + secret}, Read: &endpoint.Limits{}}
	opts := solroute.Options{Endpoints: []solroute.Endpoint{e}}
	var out []string
	for _, v := range []any{e, &e, opts, &opts, []solroute.Endpoint{e}} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%10.3v"} {
			out = append(out, fmt.Sprintf(verb, v))
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(js))
		var logs bytes.Buffer
		slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "v", v)
		slog.New(slog.NewTextHandler(&logs, nil)).Info("x", "v", v)
		out = append(out, logs.String())
	}
	for _, s := range out {
		if strings.Contains(s, secret) {
			t.Fatalf("leaked: %s", s)
		}
	}
}
