package pubsub_test

import (
	"context"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/pubsub"
)

// slot is one slot time of the fake cluster.
const slot = fixturedata.DefaultSlotTime

// twoMembers is two tier-0 endpoints.
func twoMembers() []member { return []member{{name: "a"}, {name: "b"}} }

// redundancy returns a build that sets Settings.Redundancy.
func redundancy(n int) func([]pubsub.Endpoint, *pubsub.Settings, *pubsub.Options) {
	return func(_ []pubsub.Endpoint, s *pubsub.Settings, _ *pubsub.Options) { s.Redundancy = n }
}

// setLamports lands a change writing lamports to acct and returns its
// signature and landing slot.
func setLamports(t *testing.T, e *env, acct solana.PublicKey, lamports uint64) (string, uint64) {
	t.Helper()
	sig, at, err := e.ledger.Apply(fixtures.Change{Accounts: map[string]*fixtures.AccountState{
		acct.String(): {Lamports: lamports, Data: []byte{byte(lamports)}}}})
	if err != nil {
		t.Fatal(err)
	}
	return sig, at
}

// holders names the endpoints holding stream subscriptions (heartbeats
// excluded).
func holders(e *env) []string {
	var out []string
	for _, ep := range e.eng.Snapshot().Endpoints {
		if ep.Subscriptions > 0 {
			out = append(out, ep.Name)
		}
	}
	return out
}

// steps advances n slots, one slot at a time.
func (e *env) steps(n int) { e.advance(time.Duration(n)*slot, slot) }

// n counts the reads back made so far.
func (r *httpReader) n() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

// ctxDone is a context already canceled: a Next on it returns what is
// buffered, or at once.
func ctxDone() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
