package resolve_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturespec"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// TestResendOfALandedNonceTransactionIsResolved: a durable-nonce
// transaction landed (sent elsewhere, or by a SendAndConfirm that
// crashed). Sent again with preflight it gets agave's answer for a used
// nonce, BlockhashNotFound (the nonce is checked before the status
// cache, so never AlreadyProcessed); the refusal's look-up finds it and
// it resolves to landed, at both preflight commitments and after the
// status caches forgot it. (Found by the first review: the refusal was
// returned as "nothing sent", which reads "sign again".)
func TestResendOfALandedNonceTransactionIsResolved(t *testing.T) {
	ch := newChain(t, node{name: "a"}, node{name: "b"})
	nonce := solana.Hash{0x51}
	ch.putNonce(51, nonce)
	tx := ch.nonceTx(51, 1, nonce)
	if _, err := sendVia(ch, "a", tx); err != nil {
		t.Fatal(err)
	}
	ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.FinalizedDepth + 1))
	truth := ch.ledger.Tx(tx.Signatures[0].String())
	if !truth.Landed {
		t.Fatalf("setup: %+v", truth)
	}
	for _, pc := range []rpc.CommitmentType{"", rpc.CommitmentConfirmed} {
		o := confirm.Options{PreflightCommitment: pc}
		r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
			return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, o)
		})
		if err != nil || r.Status != confirm.Landed {
			t.Errorf("preflight %q: result %v, error %v; truth: landed in slot %d", pc, r.Status, err, truth.Slot)
		}
	}
	// Long after, when no node's status cache holds it: history finds it.
	ch.clock.Advance(slotsOf(fixturedata.StatusCacheSlots + fixturedata.FinalizedDepth))
	o := confirm.Options{}
	r, err := ch.drive(&o, 20, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, o)
	})
	if err != nil || r.Status != confirm.Landed || r.Slot != truth.Slot {
		t.Errorf("past the status cache: result %v, error %v; truth: landed in slot %d", r.Status, err, truth.Slot)
	}
}

// splitter starts, on loopback, one URL that answers getSignatureStatuses
// from the server at statuses and every other method from the one at
// rest: a provider's load balancer whose backends differ.
func splitter(t *testing.T, rest, statuses string) string {
	t.Helper()
	return proxy(t, func(_ *http.Request, body []byte) (string, func(json.RawMessage) json.RawMessage) {
		if method(body) == "getSignatureStatuses" {
			return statuses, nil
		}
		return rest, nil
	})
}

// TestALoadBalancedStatusBackendOnAForkIsNoWitness: two read endpoints
// behind one provider's balancers: accounts (and everything else) from
// backends a and b, statuses from backend h, 10 slots behind the tip and
// on a fork without the transaction until its own root reaches it
// (Ledger.Hide). Each endpoint, on its own answers, sees the nonce held
// at H and moved on at M, but h's "not found" comes from a bank less than
// rootDepth slots past M, so neither vouches, and the landing is found
// once h's root reaches it. (Found by the first review: both vouched on
// h's "not found" at a slot past M: expired, while it had landed.)
func TestALoadBalancedStatusBackendOnAForkIsNoWitness(t *testing.T) {
	ch := splitChain(t, 10)
	nonce := solana.Hash{0x52}
	ch.putNonce(52, nonce)
	tx := ch.nonceTx(52, 1, nonce)
	ch.wantLandedThoughHidden(tx, 0)
}

// TestALoadBalancedStatusBackendOnAForkIsNoHeightWitness: the same
// topology, a blockhash transaction landing in its last valid blocks:
// the height rule, fooled the same way before the margin, lands it.
func TestALoadBalancedStatusBackendOnAForkIsNoHeightWitness(t *testing.T) {
	ch := splitChain(t, 10)
	tx, lvbh := ch.tx(53, 147)
	ch.wantLandedThoughHidden(tx, lvbh)
}

// splitChain is a chain of two read endpoints, a and b, each behind a
// load balancer that sends getSignatureStatuses to one node h, lag slots
// behind, and everything else to its own node.
func splitChain(t *testing.T, lag uint64) *chain {
	t.Helper()
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ledger := fixtures.NewLedger()
	var members []fixtures.Member
	for _, n := range []node{{name: "a"}, {name: "b"}, {name: "h", lag: lag}} {
		l := endpoint.Limits{RequestTimeout: 2 * time.Second}
		members = append(members, fixtures.Member{Name: n.name, Read: &l, Send: &l,
			Options: fixtures.Options{Clock: clock, Ledger: ledger, Slots: &fixtures.SlotOptions{Start: 1000, Lag: n.lag}}})
	}
	c := fixtures.NewCluster(members)
	specs := fixturespec.Specs(c)[:2] // h serves only behind the balancers
	for i, name := range []string{"a", "b"} {
		specs[i].URL = endpoint.NewSecret(splitter(t, c.Server(name).URL(), c.Server("h").URL()))
	}
	return chainOver(t, clock, ledger, c, specs)
}

// wantLandedThoughHidden sends tx (lvbh 0: a durable-nonce one) with h's
// processed fork lacking it until h's finalized slot reaches it, and
// wants it landed, as the ledger says.
func (ch *chain) wantLandedThoughHidden(tx *solana.Transaction, lvbh uint64) {
	ch.t.Helper()
	sig := tx.Signatures[0].String()
	ch.ledger.Hide(sig, "h")
	o := skip
	r, err := ch.drive(&o, 80, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil {
		ch.t.Fatal(err)
	}
	if truth := ch.ledger.Tx(sig); r.Status != confirm.Landed || !truth.Landed || r.Slot != truth.Slot {
		ch.t.Fatalf("result %v (%s), truth %+v", r.Status, r.Reason, truth)
	}
}

// TestAStatusBackendBehindItsEndpointsFinalizedReadsIsNoWitness pins the
// root-depth margin's cost (plan 011): two endpoints whose load balancers
// send getSignatureStatuses to one honest node 2 slots behind never
// vouch, since each "not found" comes from a bank less than 32 slots past
// the finalized slot the endpoint reported: a dropped transaction stays
// unknown, saying why, where before the margin it was expired.
func TestAStatusBackendBehindItsEndpointsFinalizedReadsIsNoWitness(t *testing.T) {
	ch := splitChain(t, 2)
	tx, lvbh := ch.tx(71, 0)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, math.MaxInt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := skip
	o.OnPoll = func(r confirm.Result) {
		if r.Polls == 250 { // 100 polls past the cluster's expiry
			cancel()
		}
	}
	r, err := ch.drive(&o, 300, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(ctx, ch.tc, tx, lvbh, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	if truth := ch.ledger.Tx(sig); r.Status != confirm.Unknown || !truth.Expired || !strings.Contains(r.Reason, "less than 32 slots past its own finalized slot") {
		t.Fatalf("result %s, reason %q; the ledger: expired %v", r.Status, r.Reason, truth.Expired)
	}
}
