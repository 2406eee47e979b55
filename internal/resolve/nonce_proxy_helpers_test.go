package resolve_test

import (
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturespec"
)

// chainParts is what newChainScripted's edit sees.
type chainParts struct{ c *fixtures.Cluster }

// newChainScripted is newChain (lags and send faults; no lies) with
// edit run on the specs before the pool is made, and script, when set,
// as every member's fixtures script.
func newChainScripted(t *testing.T, script fixtures.Script, edit func([]endpoint.Spec, *chainParts), nodes ...node) *chain {
	t.Helper()
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ledger := fixtures.NewLedger()
	var members []fixtures.Member
	for _, n := range nodes {
		l := endpoint.Limits{RequestTimeout: 2 * time.Second}
		m := fixtures.Member{Name: n.name, Read: &l, Send: &l,
			Options: fixtures.Options{Clock: clock, Ledger: ledger, Slots: &fixtures.SlotOptions{Start: 1000, Lag: n.lag}, Script: script}}
		if n.fault.Kind != fixtures.None {
			m.Options.Script = fixtures.ByMethod(map[string]fixtures.Fault{"sendTransaction": n.fault})
		}
		members = append(members, m)
	}
	c := fixtures.NewCluster(members)
	specs := fixturespec.Specs(c)
	if edit != nil {
		edit(specs, &chainParts{c: c})
	}
	return chainOver(t, clock, ledger, c, specs)
}

// proxyBy starts, on loopback, an endpoint that forwards every call to
// upstream; for a call whose method and params match, it either hangs
// (hang set: signals arrived, then blocks until the caller goes away) or
// rewrites the result with lie. It counts the matching calls.
type proxyBy struct {
	match   func(method string, params json.RawMessage) bool
	lie     func(result json.RawMessage) json.RawMessage
	hang    bool
	arrived chan<- string
	name    string
	n       atomic.Int32
}

func (p *proxyBy) start(t *testing.T, upstream string) string {
	t.Helper()
	return proxy(t, func(r *http.Request, body []byte) (string, func(json.RawMessage) json.RawMessage) {
		var call struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &call) != nil || !p.match(call.Method, call.Params) {
			return upstream, nil
		}
		p.n.Add(1)
		if p.hang {
			select {
			case p.arrived <- p.name:
			case <-r.Context().Done():
			}
			return "", nil
		}
		return upstream, p.lie
	})
}

// historyStatus matches a getSignatureStatuses call that searches history.
func historyStatus(method string, params json.RawMessage) bool {
	return method == "getSignatureStatuses" && historySearch(params)
}

// anyStatus matches every getSignatureStatuses call.
func anyStatus(method string, _ json.RawMessage) bool { return method == "getSignatureStatuses" }
