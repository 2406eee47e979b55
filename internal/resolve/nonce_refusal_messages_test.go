package resolve_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/resolve"
)

// driveHangs runs f (a send refused before any poll, whose status reads
// hang) on its own goroutine. Once the first status read has arrived
// (the send is over: every request from then on is a status read, which
// hangs), it moves the clock 100 ms whenever something waits on it
// (attempt timeouts, backoffs), until f returns.
func (ch *chain) driveHangs(arrived <-chan string, f func() (confirm.Result, error)) (confirm.Result, error) {
	ch.t.Helper()
	guard, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	stopped, stop := context.WithCancel(guard)
	defer stop()
	type out struct {
		r   confirm.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		r, err := f()
		done <- out{r, err}
		stop()
	}()
	select { // the send is over when the first status read arrives
	case <-arrived:
	case o := <-done:
		return o.r, o.err
	case <-guard.Done():
		ch.t.Fatal("hung")
	}
	go func() { // later arrivals need no answer
		for {
			select {
			case <-arrived:
			case <-stopped.Done():
				return
			}
		}
	}()
	for ch.clock.BlockUntilContext(stopped, 1) == nil {
		ch.clock.Advance(100 * time.Millisecond)
	}
	if guard.Err() != nil {
		ch.t.Fatal("hung")
	}
	o := <-done
	return o.r, o.err
}

// TestNonceCostRefusalMessages: a durable-nonce transaction sent with the
// docs' options (preflight on) and refused BlockhashNotFound; what the
// returned error says of the look-up, against what happened:
//   - "history answered, nothing": another transaction used the nonce;
//   - "no history, landed long ago": a and b keep no history (-32011), the
//     transaction landed longer ago than the status caches hold: the cache
//     read answers null, the history read fails on both;
//   - "status reads fail": every getSignatureStatuses answers -32603;
//   - "status reads hang": every getSignatureStatuses hangs.
func TestNonceCostRefusalMessages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script fixtures.Script
		hang   bool
		landed bool
		want   string
		wrong  string
	}{
		{"history answered, nothing", nil, false, false, "no endpoint knows the signature, history searched", ""},
		{"no history, landed long ago", noHistory, false, true, "", "history searched"},
		{"status reads fail", fixtures.ByMethod(map[string]fixtures.Fault{"getSignatureStatuses": fixtures.RPC(-32603)}), false, false, "its status could not be read", ""},
		{"status reads hang", nil, true, false, "its status could not be read", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arrived := make(chan string)
			var edit func([]endpoint.Spec, *chainParts)
			if tc.hang {
				edit = func(specs []endpoint.Spec, cp *chainParts) {
					for i, n := range []string{"a", "b"} {
						p := &proxyBy{match: anyStatus, hang: true, arrived: arrived, name: n}
						specs[i].URL = endpoint.NewSecret(p.start(t, cp.c.Server(n).URL()))
					}
				}
			}
			ch := newChainScripted(t, tc.script, edit, node{name: "a"}, node{name: "b"})
			seed := uint64(0xf1)
			nonce := solana.Hash{0xf1}
			ch.putNonce(seed, nonce)
			tx := ch.nonceTx(seed, 1, nonce)
			used := ch.nonceTx(seed, 2, nonce)
			if tc.landed {
				used = tx
			}
			if _, err := sendVia(ch, "a", used); err != nil {
				t.Fatal(err)
			}
			ch.clock.Advance(slotsOf(fixturedata.DefaultLandAfter + fixturedata.FinalizedDepth + 1))
			if tc.landed {
				ch.clock.Advance(slotsOf(fixturedata.StatusCacheSlots + fixturedata.FinalizedDepth))
			}
			start := ch.clock.Now()
			var r confirm.Result
			var err error
			if tc.hang {
				r, err = ch.driveHangs(arrived, func() (confirm.Result, error) {
					return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, confirm.Options{})
				})
			} else {
				o := confirm.Options{}
				r, err = ch.drive(&o, 5, func(o confirm.Options) (confirm.Result, error) {
					return resolve.SendAndConfirm(context.Background(), ch.tc, tx, 0, o)
				})
			}
			truth := ch.ledger.Tx(tx.Signatures[0].String())
			t.Logf("%s after %d polls, %v on the clock; truth landed %v; error: %v", r.Status, r.Polls, ch.clock.Since(start), truth.Landed, err)
			switch {
			case err == nil:
				t.Errorf("resolved: %s", r.Status)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("the error does not say %q", tc.want)
			case tc.wrong != "" && strings.Contains(err.Error(), tc.wrong):
				t.Errorf("the error says %q, but every history read failed (-32011)", tc.wrong)
			}
		})
	}
}
