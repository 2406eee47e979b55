package resolve_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/resolve"
)

// latency is one verdict's delay: polls and time on the fake clock.
type latency struct {
	polls int
	after time.Duration
}

// TestVerdictLatency measures, over 50 resolutions per verdict on
// clusters whose three honest readers lag 0 to 5 slots at random, how
// long after its blockhash's expiry (the cluster's finalized block height
// passing lastValidBlockHeight) a transaction that never lands is
// expired, and how long after its send one that lands is landed: alone,
// and with a dead reader and a reader that lies about its height added.
// Every verdict must be right, and every expiry concluded within 30 s.
func TestVerdictLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("200 resolutions: run without -short")
	}
	for _, mix := range []string{"lags 0-5", "lags 0-5, a dead reader, a height liar"} {
		rng := rand.New(rand.NewPCG(20, 11))
		var expired, landed []latency
		for i := range 50 {
			t.Run(fmt.Sprintf("%s/%d", mix, i), func(t *testing.T) {
				lie := new(atomic.Uint64)
				nodes := []node{{name: "a", lag: rng.Uint64N(6)}, {name: "b", lag: rng.Uint64N(6)}, {name: "c", lag: rng.Uint64N(6)}}
				if mix != "lags 0-5" {
					nodes = append(nodes, node{name: "dead"}, node{name: "liar", lie: lies{"getEpochInfo": heightLie(lie)}})
				}
				ch := newChain(t, nodes...)
				if s := ch.c.Server("dead"); s != nil {
					s.SetDown(true)
				}
				expired = append(expired, ch.expiry(t, 100+2*i, lie))
				landed = append(landed, ch.landing(t, 101+2*i, lie))
			})
		}
		t.Logf("%s: expired %s after the expiry; landed %s after the send", mix, quantiles(expired), quantiles(landed))
	}
}

// expiry resolves a transaction that never lands, with 10 blocks of
// validity left, and returns how long after the cluster's finalized
// height passed its lastValidBlockHeight the verdict came.
func (ch *chain) expiry(t *testing.T, seed int, lie *atomic.Uint64) latency {
	tx, lvbh := ch.tx(seed, 140)
	lie.Store(lvbh + 1)
	sig := tx.Signatures[0].String()
	ch.ledger.Drop(sig, math.MaxInt)
	var passed latency
	o := skip
	o.OnPoll = func(r confirm.Result) {
		if passed.polls == 0 && ch.finalizedHeight(0) > lvbh {
			passed = latency{r.Polls, time.Duration(ch.clock.Now().UnixNano())}
		}
	}
	r, err := ch.drive(&o, 200, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if err != nil || r.Status != confirm.Expired || !ch.ledger.Tx(sig).Expired || r.BlockHeight <= lvbh {
		t.Fatalf("result %+v, error %v, truth %+v", r, err, ch.ledger.Tx(sig))
	}
	if passed.polls == 0 { // at the verdict's own poll
		passed = latency{r.Polls, time.Duration(ch.clock.Now().UnixNano())}
	}
	l := latency{r.Polls - passed.polls, time.Duration(ch.clock.Now().UnixNano()) - passed.after}
	if l.after > 30*time.Second {
		t.Fatalf("expired %v after the expiry", l.after)
	}
	return l
}

// landing sends a transaction that lands and returns how long after the
// send it was landed (at confirmed).
func (ch *chain) landing(t *testing.T, seed int, lie *atomic.Uint64) latency {
	tx, lvbh := ch.tx(seed, 0)
	lie.Store(lvbh + 1)
	sig := tx.Signatures[0].String()
	start := ch.clock.Now()
	o := skip
	r, err := ch.drive(&o, 200, func(o confirm.Options) (confirm.Result, error) {
		return resolve.SendAndConfirm(context.Background(), ch.tc, tx, lvbh, o)
	})
	if truth := ch.ledger.Tx(sig); err != nil || r.Status != confirm.Landed || !truth.Landed || r.Slot != truth.Slot || truth.Arrivals != 1 {
		t.Fatalf("result %+v, error %v, truth %+v", r, err, truth)
	}
	return latency{r.Polls, ch.clock.Since(start)}
}

// quantiles is "p50 N polls (D), p90 N polls (D)" of ls.
func quantiles(ls []latency) string {
	at := func(q float64, v []int64) int64 {
		slices.Sort(v)
		return v[min(len(v)-1, int(q*float64(len(v))))]
	}
	polls, after := make([]int64, len(ls)), make([]int64, len(ls))
	for i, l := range ls {
		polls[i], after[i] = int64(l.polls), int64(l.after)
	}
	return fmt.Sprintf("p50 %d polls (%v), p90 %d polls (%v), max %d polls (%v)",
		at(0.5, polls), time.Duration(at(0.5, after)), at(0.9, polls), time.Duration(at(0.9, after)),
		slices.Max(polls), time.Duration(slices.Max(after)))
}
