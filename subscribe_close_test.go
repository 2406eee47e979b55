package solroute_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
)

// TestClientCloseEndsSubscriptions: the Client's Close ends every
// subscription (Recv and Err return ErrSubscriptionClosed), closes every
// WebSocket (TestMain's goleak checks the goroutines), and later
// subscribes fail the same way.
func TestClientCloseEndsSubscriptions(t *testing.T) {
	e := newSubEnv(t, []string{"a", "b"}, nil)
	ctx := subCtx(t)
	slots, err := e.client.SlotSubscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := e.client.AccountSubscribe(ctx, testKey(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	e.settle()
	if err := e.client.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := slots.Recv(ctx); !errors.Is(err, solroute.ErrSubscriptionClosed) {
		t.Errorf("slot Recv after Close: %v", err)
	}
	if err := acct.Err(); !errors.Is(err, solroute.ErrSubscriptionClosed) {
		t.Errorf("account Err after Close: %v", err)
	}
	if _, err := e.client.SlotSubscribe(ctx); !errors.Is(err, solroute.ErrSubscriptionClosed) {
		t.Errorf("subscribe after Close: %v", err)
	}
	for _, n := range e.names {
		// The server sees each close when it reads it: until it has, wait
		// for it to move (a connection gone closes Changed).
		for {
			a, err := e.cluster.PubSub(n).Settle(ctx)
			if err != nil {
				t.Fatalf("%s: settle after Close: %v", n, err)
			}
			if a.Conns == 0 {
				break
			}
			select {
			case <-a.Changed:
			case <-ctx.Done():
				t.Fatalf("%s: %d connections still open after Close", n, a.Conns)
			}
		}
	}
}

// TestSubscribeErrorsHideSecrets: WebSocket URLs with an API key in their
// path and query, one endpoint down and one refusing with a message that
// echoes the key: the subscribe's error names each endpoint by its label,
// the operation and the cause, and holds no part of the URL's path or
// query. Refused for its params everywhere, it matches ErrInvalidInput.
func TestSubscribeErrorsHideSecrets(t *testing.T) {
	const secret = "k3y-SECRET-991"
	e := newSubEnv(t, []string{"a", "b"}, func(eps []solroute.Endpoint) {
		for i := range eps {
			eps[i].WSURL += "/v1/" + secret + "?api-key=" + secret
		}
	})
	refuse := func(code int) fixtures.PubSubFaults {
		return fixtures.PubSubFaults{Refuse: &fixtures.PubSubRefusal{Methods: []string{"accountSubscribe"}, Code: code,
			Message: "Invalid params: key " + secret + " at /v1/" + secret}}
	}
	e.cluster.PubSub("a").SetFaults(refuse(-32602))
	e.cluster.PubSub("b").SetFaults(refuse(-32602))
	_, err := e.client.AccountSubscribe(subCtx(t), testKey(4), nil)
	var se *solroute.SubscribeError
	if !errors.Is(err, solroute.ErrInvalidInput) || !errors.As(err, &se) || len(se.Attempts) == 0 {
		t.Fatalf("refused everywhere for its params: %v", err)
	}
	for _, a := range se.Attempts {
		if a.Endpoint != "a" && a.Endpoint != "b" {
			t.Errorf("an attempt names %q", a.Endpoint)
		}
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "/v1/") {
		t.Errorf("the error quotes the URL: %v", err)
	}
	t.Logf("%v", err)
}

// TestWSURLNeverPrinted: an Endpoint's WSURL prints, marshals and logs as
// "[redacted]", as URL does.
func TestWSURLNeverPrinted(t *testing.T) {
	const secret = "WS-SECRET-77"
	ep := solroute.Endpoint{Name: "p", URL: "https://x.example", WSURL: "wss://x.example/" + secret + "?k=" + secret,
		Subscribe: &endpoint.SubscribeLimits{}}
	js, err := json.Marshal(ep)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "v", ep)
	for _, s := range []string{string(js), logs.String(), fmt.Sprintf("%+v %#v %s", ep, ep, ep)} {
		if strings.Contains(s, secret) {
			t.Fatalf("leaked: %s", s)
		}
	}
	if !strings.Contains(string(js), `"ws_url":"[redacted]"`) {
		t.Errorf("json %s: want the ws_url shown redacted", js)
	}
}
