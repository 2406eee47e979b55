package solroute_test

// Secrets a node echoes in a subscribe or heartbeat refusal, in the forms
// the HTTP transport has always redacted (a Basic token's password, a
// quoted header token, base64 at an offset): the PubSub path must hide
// them as well, in the SubscribeError, SubscriptionStats and the log.
// First found by a security review (rev2).

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/transport"
)

// echoMarker is the secret each test configures and its node echoes.
const echoMarker = "SECRETKEY123"

// refuseAll makes every PubSub of e refuse accountSubscribe with msg.
func refuseAll(e *subEnv, msg string) {
	for _, n := range e.names {
		e.cluster.PubSub(n).SetFaults(fixtures.PubSubFaults{Refuse: &fixtures.PubSubRefusal{
			Methods: []string{"accountSubscribe"}, Code: -32602, Message: msg}})
	}
}

// subscribeErrText subscribes on e and returns the error's text and the
// endpoints' LastError (SubscriptionStats).
func subscribeErrText(t *testing.T, e *subEnv) []string {
	t.Helper()
	_, err := e.client.AccountSubscribe(subCtx(t), testKey(4), nil)
	var se *solroute.SubscribeError
	if !errors.As(err, &se) {
		t.Fatalf("want a SubscribeError, got %v", err)
	}
	texts := []string{err.Error()}
	for _, ep := range e.client.SubscriptionStats().Endpoints {
		texts = append(texts, ep.LastError)
	}
	return texts
}

// TestSubscribeBasicHeaderPasswordEcho: a configured
// "Authorization: Basic base64(user:password)" header, and a node that
// refuses the subscribe quoting the password it decoded: the password is
// a secret of its own, hidden from the SubscribeError and LastError.
func TestSubscribeBasicHeaderPasswordEcho(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("bob:"+echoMarker))
	e := newSubEnv(t, []string{"a", "b"}, func(eps []solroute.Endpoint) {
		for i := range eps {
			eps[i].Headers = map[string]string{"Authorization": basic}
		}
	})
	refuseAll(e, "Invalid params: user bob, password "+echoMarker+" not accepted")
	for _, text := range subscribeErrText(t, e) {
		if form, found := fixturedata.FindSecret(text, echoMarker); found {
			t.Errorf("the Basic password shows (%s) in: %s", form, text)
		}
	}
}

// TestSubscribeQuotedHeaderTokenEcho: a header value holding a
// single-quoted token (k='KEY'), echoed bare: the token without its
// quotes is a secret.
func TestSubscribeQuotedHeaderTokenEcho(t *testing.T) {
	e := newSubEnv(t, []string{"a", "b"}, func(eps []solroute.Endpoint) {
		for i := range eps {
			eps[i].Headers = map[string]string{"X-Auth": "key='" + echoMarker + "'"}
		}
	})
	refuseAll(e, "Invalid params: unknown key "+echoMarker)
	for _, text := range subscribeErrText(t, e) {
		if form, found := fixturedata.FindSecret(text, echoMarker); found {
			t.Errorf("the header token shows (%s) in: %s", form, text)
		}
	}
}

// TestSubscribeBase64EchoAtOffset: a node that refuses quoting the
// request's header line "X-Api-Key: KEY" in base64, as
// fixturedata.EchoHandler does over HTTP (whose message holds base64 of
// each "Name: value"). "X-Api-Key: " is 11 bytes, so the key's base64
// starts mid-group: its offset forms are secrets too.
func TestSubscribeBase64EchoAtOffset(t *testing.T) {
	e := newSubEnv(t, []string{"a", "b"}, func(eps []solroute.Endpoint) {
		for i := range eps {
			eps[i].Headers = map[string]string{"X-Api-Key": echoMarker}
		}
	})
	line := "X-Api-Key: " + echoMarker
	refuseAll(e, "Invalid params: cannot serve "+base64.StdEncoding.EncodeToString([]byte(line)))
	for _, text := range subscribeErrText(t, e) {
		if form, found := fixturedata.FindSecret(text, echoMarker); found {
			t.Errorf("the header value shows (%s) in: %s", form, text)
		}
	}
}

// TestHeartbeatRefusalLogsBasicPassword: the same Basic header, and
// nodes that refuse every subscribe, the slot heartbeat included, quoting
// the password: neither the subscribe's error, nor SubscriptionStats'
// LastError, nor the connection-lost log line carries it.
func TestHeartbeatRefusalLogsBasicPassword(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("bob:"+echoMarker))
	var logs bytes.Buffer
	e := newSubEnvWith(t, []string{"a", "b"}, func(o *solroute.Options) {
		for i := range o.Endpoints {
			o.Endpoints[i].Headers = map[string]string{"Authorization": basic}
		}
		o.Hooks.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	for _, n := range e.names {
		e.cluster.PubSub(n).SetFaults(fixtures.PubSubFaults{Refuse: &fixtures.PubSubRefusal{
			Code: -32000, Message: "auth failed for bob / " + echoMarker}})
	}
	_, err := e.client.SlotSubscribe(subCtx(t))
	texts := map[string]string{"stats": fmt.Sprintf("%+v", e.client.SubscriptionStats()), "logs": logs.String()}
	if err != nil {
		texts["error"] = err.Error()
	}
	for where, text := range texts {
		if form, found := fixturedata.FindSecret(text, echoMarker); found {
			t.Errorf("%s shows the Basic password (%s):\n%s", where, form, text)
		}
	}
}

// TestHTTPEchoesHold is the control for the PubSub cases: the same
// headers and the same echoed messages over HTTP are redacted by the
// transport, which shares the PubSub path's secret set.
func TestHTTPEchoesHold(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("bob:"+echoMarker))
	cases := []struct {
		name, header, value, msg string
	}{
		{"basic", "Authorization", basic, "user bob, password " + echoMarker + " not accepted"},
		{"quoted", "X-Auth", "key='" + echoMarker + "'", "unknown key " + echoMarker},
		{"base64", "X-Api-Key", echoMarker, "cannot serve " + base64.StdEncoding.EncodeToString([]byte("X-Api-Key: "+echoMarker))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.NewDecoder(r.Body).Decode(&req)
				m, _ := json.Marshal(tc.msg)
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32000,"message":` + string(m) + `}}`))
			}))
			t.Cleanup(srv.Close)
			// One attempt, on a clock that never moves: the refusal is the
			// call's error, with no backoff to wait out.
			ts := transport.DefaultSettings()
			ts.Retry.MaxRetries = 0
			c, err := solroute.New(solroute.Options{Endpoints: []solroute.Endpoint{{Name: "h", URL: srv.URL,
				Headers: map[string]string{tc.header: tc.value}, Read: &endpoint.Limits{}}},
				Transport: &ts, Hooks: solroute.Hooks{Clock: clockwork.NewFakeClock()}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			var out any
			if err = c.CallForInto(subCtx(t), &out, "getSlot", nil); err == nil {
				t.Fatal("want an error")
			}
			if form, found := fixturedata.FindSecret(err.Error(), echoMarker); found {
				t.Errorf("shows (%s) in: %v", form, err)
			}
			t.Logf("%v", err)
		})
	}
}

// TestSubscribeEchoOfTheHTTPURLsKey: an endpoint with a ws_url of its own
// and a key in its HTTP URL's path, whose node echoes that key in a
// subscribe refusal: the key is hidden as the WebSocket URL's would be.
// (The PubSub set held the WebSocket URL's secrets only: left out in
// stop 33's delta, then mended.)
func TestSubscribeEchoOfTheHTTPURLsKey(t *testing.T) {
	e := newSubEnv(t, []string{"a", "b"}, func(eps []solroute.Endpoint) {
		for i := range eps {
			if eps[i].WSURL == "" {
				t.Fatal("the kit's endpoint has no ws_url of its own")
			}
			eps[i].URL = strings.TrimSuffix(eps[i].URL, "/") + "/v1/" + echoMarker + "/"
		}
	})
	refuseAll(e, "Invalid params: unknown key "+echoMarker)
	for _, text := range subscribeErrText(t, e) {
		if form, found := fixturedata.FindSecret(text, echoMarker); found {
			t.Errorf("the HTTP URL's key shows (%s) in: %s", form, text)
		}
	}
}
