package resolve_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// theThree are the send endpoints: one that accepts and never
// forwards, one that answers 429, one healthy.
var theThree = []sender{{name: "drop", drop: true}, {name: "healthy"}, {name: "limited", fault: fixtures.Status(429, "")}}

// fanPoll is the fan-out tests' poll interval: five slots, so a
// transaction that cannot land is concluded expired in a few polls.
const fanPoll = 5 * fixturedata.DefaultSlotTime

// transfers sends n transfers with FanOut k through a fresh chain of
// theThree, each on a blockhash 10 blocks short of its expiry, one after
// the other, and returns how many concluded each status, the chain and
// the tally of the copies.
func transfers(t *testing.T, n, k int) (map[confirm.Status]int, *chain, *tally) {
	t.Helper()
	ch := newFanChain(t, theThree...)
	seen := newTally()
	got := map[confirm.Status]int{}
	signed := map[string]bool{}
	defer func() { noResign(t, ch, signed) }()
	for i := range n {
		tx, lvbh := ch.tx(10_000+i, fixturedata.MaxProcessingAge-10)
		signed[tx.Signatures[0].String()] = true
		o := confirm.Options{SkipPreflight: true, FanOut: k, PollInterval: fanPoll}
		r, err := ch.driveBy(fanPoll, &o, 40, func(o confirm.Options) (confirm.Result, error) {
			return resolve.SendAndConfirmHooked(context.Background(), ch.tc, resolve.Hooks{Copies: []resolve.CopyWatcher{seen}}, tx, lvbh, o)
		})
		if err != nil {
			t.Fatalf("transfer %d: %v", i, err)
		}
		got[r.Status]++
		landed := ch.ledger.Tx(tx.Signatures[0].String()).Landed
		if landed != (r.Status == confirm.Landed) {
			t.Fatalf("transfer %d: %v, but the ledger says landed %v: %+v", i, r.Status, landed, r)
		}
		if k > 1 && (len(r.Copies) == 0 || r.FirstAccepted == "") {
			t.Fatalf("transfer %d: no copies recorded: %+v", i, r)
		}
	}
	return got, ch, seen
}

// noResign fails t when any endpoint read a send of a signature the
// test did not sign: the library never signs, so a new signature would be
// a re-sign.
func noResign(t *testing.T, ch *chain, signed map[string]bool) {
	t.Helper()
	for _, name := range []string{"drop", "healthy", "limited"} {
		for _, r := range ch.c.Server(name).Requests() {
			if r.Method == "sendTransaction" && !signed[r.Signature] {
				t.Fatalf("%s read a send of %s, which the test never signed", name, r.Signature)
			}
		}
	}
	for _, sig := range ch.ledger.Signatures() {
		if !signed[sig] {
			t.Fatalf("the ledger saw %s, which the test never signed", sig)
		}
	}
}

// fanN is the transfer count: the 1 000, 100 under -short.
func fanN() int {
	if testing.Short() {
		return 100
	}
	return 1000
}

// TestFanOutLandsWhatOneSendDrops is the target: with a dropping,
// a rate-limited and a healthy send endpoint, FanOut 3 lands every
// transfer exactly once, FanOut 1 leaves the share the pool sent to the
// dropping endpoint expired (and never landed after). No signature but
// the transfers' reaches the ledger (0 re-signs); each lands in one slot.
func TestFanOutLandsWhatOneSendDrops(t *testing.T) {
	n := fanN()
	for _, k := range []int{3, 1} {
		got, ch, seen := transfers(t, n, k)
		t.Logf("FanOut %d, %d transfers: %d landed, %d expired, %d unknown; sends read: drop %d, healthy %d, limited %d; copies %v accepted %v refused %v first %v",
			k, n, got[confirm.Landed], got[confirm.Expired], got[confirm.Unknown],
			ch.sendsTo("drop"), ch.sendsTo("healthy"), ch.sendsTo("limited"), seen.sent, seen.accepted, seen.refused, seen.first)
		for _, sig := range ch.ledger.Signatures() {
			if tx := ch.ledger.Tx(sig); tx.Landed && tx.Forwarded-tx.Dropped != 1 {
				t.Fatalf("FanOut %d: %s forwarded %d, dropped %d: executed other than once", k, sig, tx.Forwarded, tx.Dropped)
			}
		}
		switch k {
		case 3:
			if got[confirm.Landed] != n {
				t.Fatalf("FanOut 3: %d of %d landed: %v", got[confirm.Landed], n, got)
			}
			// Which of two accepting copies answered first is a race:
			// the measure names the fastest acceptor, not the landing one.
			if seen.first["healthy"]+seen.first["drop"] != n || seen.first["limited"] != 0 || seen.accepted["healthy"] != n {
				t.Fatalf("FanOut 3: first accepted %v, accepted %v", seen.first, seen.accepted)
			}
		case 1:
			if got[confirm.Expired] == 0 || got[confirm.Landed]+got[confirm.Expired] != n || ch.sendsTo("drop") != got[confirm.Expired] {
				t.Fatalf("FanOut 1: %v, %d sends to drop: want the dropped share expired", got, ch.sendsTo("drop"))
			}
		}
	}
}

// TestFanOutReplacesARefusedCopy: the best-ranked endpoint answers 429
// (proof that nothing was forwarded); its copy goes to the next endpoint
// not yet given one, so FanOut 2 still reaches two endpoints that may
// forward, and the result says which refused, which accepted.
func TestFanOutReplacesARefusedCopy(t *testing.T) {
	ch := newFanChain(t, sender{name: "a-limited", fault: fixtures.Status(429, "")}, sender{name: "b-drop", drop: true}, sender{name: "c-healthy"})
	tx, lvbh := ch.tx(7, 0)
	o := confirm.Options{SkipPreflight: true, FanOut: 2}
	r, err := ch.driveBy(fixturedata.DefaultSlotTime, &o, 20, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil || r.Status != confirm.Landed {
		t.Fatalf("%v, %+v", err, r)
	}
	byName := map[string]confirm.Copy{}
	for _, c := range r.Copies {
		byName[c.Endpoint] = c
	}
	lim, drop, ok := byName["a-limited"], byName["b-drop"], byName["c-healthy"]
	if len(r.Copies) != 3 || lim.Refused != 1 || lim.Err == nil || errors.Is(lim.Err, engine.ErrAmbiguousDispatch) ||
		drop.Accepted != 1 || ok.Accepted != 1 || ch.sendsTo("a-limited") != 1 {
		t.Fatalf("copies %+v; %d sends to a-limited", r.Copies, ch.sendsTo("a-limited"))
	}
}

// TestFanOutRebroadcastsToTheSameEndpoints: with Rebroadcast, each
// rebroadcast re-sends the identical bytes to the fan-out's endpoints;
// the healthy one drops the first copy it forwards, a rebroadcast lands
// it; the rate-limited one is skipped while it cools down, never waited
// for. No re-sign: one signature in the ledger.
func TestFanOutRebroadcastsToTheSameEndpoints(t *testing.T) {
	ch := newFanChain(t, theThree...)
	tx, lvbh := ch.tx(8, 0)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, 1)
	o := confirm.Options{SkipPreflight: true, FanOut: 3, Rebroadcast: fixturedata.DefaultSlotTime}
	r, err := ch.driveBy(fixturedata.DefaultSlotTime, &o, 30, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil || r.Status != confirm.Landed || r.Rebroadcasts == 0 {
		t.Fatalf("%v, %+v", err, r)
	}
	byName := map[string]confirm.Copy{}
	for _, c := range r.Copies {
		byName[c.Endpoint] = c
	}
	if h := byName["healthy"]; h.Sent < 2 || h.Accepted != h.Sent || byName["drop"].Sent != h.Sent {
		t.Fatalf("copies %+v", r.Copies)
	}
	if l := byName["limited"]; l.Sent+l.Skipped != r.Rebroadcasts+1 || l.Skipped == 0 || l.Sent != l.Refused {
		t.Fatalf("limited: %+v after %d rebroadcasts", l, r.Rebroadcasts)
	}
	if got := ch.ledger.Tx(sig); !got.Landed || len(ch.ledger.Signatures()) != 1 {
		t.Fatalf("%+v, %d signatures", got, len(ch.ledger.Signatures()))
	}
}

// TestFanOutBadInputSendsNothing: a fan-out over the send endpoints, a
// negative one, an unsigned transaction: an error before any request.
func TestFanOutBadInputSendsNothing(t *testing.T) {
	ch := newFanChain(t, theThree...)
	tx, lvbh := ch.tx(9, 0)
	ctx := context.Background()
	for name, f := range map[string]func() error{
		"over": func() error {
			_, err := resolve.SendAndConfirm(ctx, ch.tc, tx, lvbh, confirm.Options{FanOut: 4})
			return err
		},
		"negative": func() error {
			_, err := resolve.SendAndConfirm(ctx, ch.tc, tx, lvbh, confirm.Options{FanOut: -1})
			return err
		},
		"unsigned": func() error {
			_, err := resolve.SendAndConfirm(ctx, ch.tc, &solana.Transaction{Message: tx.Message}, lvbh, confirm.Options{FanOut: 3})
			return err
		},
		"raw over": func() error { _, err := resolve.SendCopies(ctx, ch.tc, tx, 4, nil, nil); return err },
		"raw zero": func() error { _, err := resolve.SendCopies(ctx, ch.tc, tx, 0, nil, nil); return err },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	for _, s := range []string{"r1", "r2", "drop", "healthy", "limited"} {
		if n := len(ch.c.Server(s).Requests()); n != 0 {
			t.Errorf("%s read %d requests", s, n)
		}
	}
}

// TestSendCopiesReportsEachEndpoint: the raw path's one call returns
// each endpoint's outcome, in the order they were given a copy; every
// copy refused is an error that is not ambiguous.
func TestSendCopiesReportsEachEndpoint(t *testing.T) {
	ch := newFanChain(t, theThree...)
	tx, _ := ch.tx(11, 0)
	copies, err := resolve.SendCopies(context.Background(), ch.tc, tx, 3, map[string]any{"skipPreflight": true}, nil)
	if err != nil || len(copies) != 3 {
		t.Fatalf("%v, %+v", err, copies)
	}
	for _, c := range copies {
		want := c.Endpoint != "limited"
		if (c.Accepted == 1) != want || (c.Refused == 1) == want || c.Sent != 1 {
			t.Fatalf("%+v", copies)
		}
	}
	refusing := newFanChain(t, sender{name: "x", fault: fixtures.Status(429, "")}, sender{name: "y", fault: fixtures.RPC(-32005)})
	tx2, _ := refusing.tx(12, 0)
	copies, err = resolve.SendCopies(context.Background(), refusing.tc, tx2, 2, nil, nil)
	if err == nil || errors.Is(err, engine.ErrAmbiguousDispatch) || len(copies) != 2 {
		t.Fatalf("%v, %+v", err, copies)
	}
}
