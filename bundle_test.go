package solroute_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/retrypolicy"
)

// TestSendBundleBadInputNoRequest: 6 transactions, none, an unsigned one,
// a repeated one, a nil one: an *InputError naming the argument, and the
// engine read nothing.
func TestSendBundleBadInputNoRequest(t *testing.T) {
	r := newBundleRig(t)
	c := r.client(t, "", false, false)
	six := txs(t, c, 1, 6)
	unsigned := *six[0]
	unsigned.Signatures = nil
	forged := *six[1]
	forged.Signatures = []solana.Signature{six[2].Signatures[0]}
	for name, in := range map[string][]*solana.Transaction{
		"six": six, "none": nil, "unsigned": {six[3], &unsigned}, "forged": {&forged},
		"repeated": {six[0], six[0]}, "nil": {six[0], nil},
	} {
		_, err := c.SendBundle(t.Context(), in)
		var ie *solroute.InputError
		if !errors.As(err, &ie) || !errors.Is(err, solroute.ErrInvalidInput) || !strings.HasPrefix(ie.Field, "txs") {
			t.Errorf("%s: %v, want an *InputError on txs", name, err)
		}
	}
	if n := r.engine.Stats().Requests; n != 0 {
		t.Fatalf("the engine read %d requests", n)
	}
}

// TestSendBundleLandsOnce: a bundle of three goes to the engine's
// bundles path in one request, base64, is answered the SHA-256 of its
// signatures, and lands whole in the ledger, once.
func TestSendBundleLandsOnce(t *testing.T) {
	r := newBundleRig(t)
	c := r.client(t, "", false, false)
	in := txs(t, c, 10, 3)
	id, err := c.SendBundle(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	sigs := make([]string, len(in))
	for i, tx := range in {
		sigs[i] = tx.Signatures[0].String()
	}
	h := sha256.Sum256([]byte(strings.Join(sigs, ",")))
	if id != hex.EncodeToString(h[:]) {
		t.Fatalf("id %q", id)
	}
	if got := solroute.BundleID(sigs); got != id {
		t.Fatalf("internal/bundles.ID = %q, the block engine answered %q", got, id)
	}
	reqs := r.engine.Requests()
	if len(reqs) != 1 || reqs[0].Method != "sendBundle" || reqs[0].Target != "/api/v1/bundles" ||
		!strings.Contains(string(reqs[0].Params), `"encoding":"base64"`) {
		t.Fatalf("engine requests: %+v", reqs)
	}
	slot := r.ledger.Tx(sigs[0]).Slot
	for _, sig := range sigs {
		if tx := r.ledger.Tx(sig); !tx.Landed || tx.Slot != slot || tx.Arrivals != 1 {
			t.Fatalf("%s: %+v", sig, tx)
		}
	}
	// The resolver's read: null until the engine's processed slot holds it.
	r.clock.Advance(2 * time.Second)
	sts, _, err := solroute.BundleStatuses(t.Context(), c, []string{id})
	if err != nil || len(sts) != 1 || sts[0] == nil || sts[0].Slot != slot || len(sts[0].Transactions) != 3 {
		t.Fatalf("statuses %+v, %v", sts, err)
	}
}

// TestSendBundleRateLimited: a second bundle within the engine's second
// is answered 429 (no server acted), so it is sent again once the
// endpoint's cooldown ends, and lands once; nothing is ambiguous.
func TestSendBundleRateLimited(t *testing.T) {
	r := newBundleRig(t)
	ends := make(attemptEnds, 16)
	c := r.client(t, "", false, false, ends)
	if _, err := c.SendBundle(t.Context(), txs(t, c, 20, 1)); err != nil {
		t.Fatal(err)
	}
	second := txs(t, c, 30, 2)
	for len(ends) > 0 {
		<-ends // the first bundle's and the blockhash reads' attempts
	}
	done := make(chan error, 1)
	go func() { _, err := c.SendBundle(t.Context(), second); done <- err }()
	ctx := feeWatchdog(t)
	if a := <-ends; a.Cause != retrypolicy.RateLimited || !a.Decision.Retry {
		t.Fatalf("first attempt: %+v, want rate limited and retried", a)
	}
	// The retry waits out the endpoint's cooldown (1 s) on the clock.
	if err := r.clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	r.clock.Advance(endpoint.Limits{}.Normalized().PauseAfterRateLimit)
	if err := <-done; err != nil {
		t.Fatalf("after the cooldown: %v", err)
	}
	if n := r.bundleRequests(); n != 3 {
		t.Fatalf("%d sendBundle requests, want 3 (one refused 429)", n)
	}
	if tx := r.ledger.Tx(second[1].Signatures[0].String()); !tx.Landed || tx.Arrivals != 1 {
		t.Fatalf("%+v", tx)
	}
}

// TestSendBundleAmbiguousOnce: a bundle the engine acts on and then
// resets the connection of is ErrAmbiguousDispatch, sent once; the key
// in the engine's URL is in no output.
func TestSendBundleAmbiguousOnce(t *testing.T) {
	r := newBundleRig(t)
	const key = "uuid-s3cr3t-b10ck-3ng1n3"
	c := r.client(t, "?uuid="+key, false, false)
	in := txs(t, c, 40, 2)
	r.engine.SetScript(fixtures.ByMethod(map[string]fixtures.Fault{"sendBundle": {Kind: fixtures.ResetAfterRead}}))
	_, err := c.SendBundle(t.Context(), in)
	if !errors.Is(err, solroute.ErrAmbiguousDispatch) {
		t.Fatalf("%v, want ErrAmbiguousDispatch", err)
	}
	if n := r.bundleRequests(); n != 1 {
		t.Fatalf("%d sendBundle requests, want 1", n)
	}
	if reqs := r.engine.Requests(); !strings.HasSuffix(reqs[len(reqs)-1].Target, "/api/v1/bundles?uuid="+key) {
		t.Fatalf("the bundles path lost the query: %q", reqs[len(reqs)-1].Target)
	}
	if tx := r.ledger.Tx(in[0].Signatures[0].String()); !tx.Landed {
		t.Fatalf("acted on, not landed: %+v", tx)
	}
	for _, out := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if strings.Contains(out, key) || strings.Contains(out, "s3cr3t") {
			t.Fatalf("the engine's key leaked: %s", out)
		}
	}
}
