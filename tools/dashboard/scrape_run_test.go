package dashboard_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
)

// watchdog bounds a wait for what should come at once; it asserts no
// duration.
const watchdog = 30 * time.Second

// slotTime is one slot of the fake cluster (the fixtures' default).
const slotTime = 400 * time.Millisecond

// maxSteps bounds a stepping loop: far more slots than any wait of the
// run needs.
const maxSteps = 200

// run is demoLikeScrape's client over its cluster, for the parts of the
// run that move the fake clocks: the streams, the fan-out and a
// coalesced read.
type run struct {
	t       *testing.T
	clock   *clockwork.FakeClock // the client's, and its PubSub members'
	held    *clockwork.FakeClock // the holder's alone (coalesce)
	cluster *fixtures.Cluster
	client  *solroute.Client
	reg     *prometheus.Registry
	streams []string // the members with a PubSub
	holder  string   // the reader whose answers coalesce holds
}

// ctx is a watchdog context for one wait.
func (r *run) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	r.t.Cleanup(cancel)
	return ctx
}

// settle waits until every PubSub has done all it can at the clock's
// reading and its client has read all it sent (fixtures.PubSub.Settle).
func (r *run) settle(ctx context.Context) {
	r.t.Helper()
	for _, n := range r.streams {
		if _, err := r.cluster.PubSub(n).Settle(ctx); err != nil {
			r.t.Fatalf("settle %s: %v", n, err)
		}
	}
}

// stepUntil settles, and advances the clock one slot, until done holds:
// what each step made happen is checked, never waited for in time.
func (r *run) stepUntil(what string, done func() bool) {
	r.t.Helper()
	ctx := r.ctx()
	for range maxSteps {
		r.settle(ctx)
		if done() {
			return
		}
		r.clock.Advance(slotTime)
	}
	r.t.Fatalf("%s: not after %d slots; stats %+v", what, maxSteps, r.client.SubscriptionStats())
}

// count is the sum of the samples (a counter's value, a histogram's
// count) of the family name in the registry.
func (r *run) count(name string) float64 {
	r.t.Helper()
	fams, err := r.reg.Gather()
	if err != nil {
		r.t.Fatal(err)
	}
	v := 0.0
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			v += m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	return v
}

// subscribe holds an account and the slots, waits for every stream
// endpoint's heartbeat, cuts the sockets of one that holds the account
// and waits for the subscription's replacement: a failover, a
// resubscribe observed, connections lost.
func (r *run) subscribe(owner solana.PublicKey) {
	r.t.Helper()
	ctx := r.ctx()
	acct, err := r.client.AccountSubscribe(ctx, owner, &solroute.AccountSubscribeOptions{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(acct.Close)
	slots, err := r.client.SlotSubscribe(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(slots.Close)
	var cut string
	beats := 0
	r.stepUntil("a heartbeat and the account held", func() bool {
		beats, cut = 0, ""
		for _, ep := range r.client.SubscriptionStats().Endpoints {
			if ep.Heartbeat > 0 {
				beats++
			}
			// The client counts a subscription it holds or awaits; the
			// server's count says the endpoint registered it (awaited, it
			// may still be dialing: a cut then drops nothing).
			held := r.cluster.PubSub(ep.Name).Stats().Subscribes["accountSubscribe"] > 0
			if ep.Subscriptions > 0 && held && cut == "" {
				cut = ep.Name
			}
		}
		return beats > 0 && cut != ""
	})
	if n := r.cluster.PubSub(cut).Drop(); n == 0 {
		r.t.Fatalf("cutting %s dropped no connection", cut)
	}
	r.stepUntil("the resubscribe after cutting "+cut, func() bool {
		return r.count("solroute_pubsub_resubscribe_duration_seconds") > 0
	})
}

// fanOut sends one transaction to every send endpoint (primary-a answers
// its sends, and them alone, with 429: a copy refused, the others
// accepted),
// then sends and confirms another fanned out to two, which lands: a
// first acceptor counted.
func (r *run) fanOut() {
	r.t.Helper()
	ctx := r.ctx()
	r.cluster.Server("primary-a").SetScript(fixtures.ByMethod(map[string]fixtures.Fault{"sendTransaction": fixtures.Status(429, "")}))
	tx, err := fixtures.SignedTransaction(3, "")
	if err != nil {
		r.t.Fatal(err)
	}
	copies, err := r.client.SendToMany(ctx, tx, 3, rpc.TransactionOpts{SkipPreflight: true})
	if err != nil || len(copies) != 3 {
		r.t.Fatalf("SendToMany: %v, %+v", err, copies)
	}
	var bh rpc.GetLatestBlockhashResult
	if err := r.client.CallForInto(ctx, &bh, "getLatestBlockhash", []any{map[string]any{"commitment": "confirmed"}}); err != nil {
		r.t.Fatal(err)
	}
	tx2, err := fixtures.SignedTransaction(4, bh.Value.Blockhash.String())
	if err != nil {
		r.t.Fatal(err)
	}
	type outcome struct {
		res confirm.Result
		err error
	}
	done := make(chan outcome, 1)
	polled := make(chan struct{}, 1)
	onPoll := func(confirm.Result) {
		select {
		case polled <- struct{}{}:
		default:
		}
	}
	go func() {
		res, err := r.client.SendAndConfirm(ctx, tx2, bh.Value.LastValidBlockHeight,
			confirm.Options{FanOut: 3, SkipPreflight: true, Quorum: 1, OnPoll: onPoll})
		done <- outcome{res, err}
	}()
	// The copies are sent, and answered, with the clock still: it moves
	// once the first poll is done (an attempt in flight while it moved
	// could time out, and the copy be ambiguous).
	var o outcome
	select {
	case <-polled:
	case o = <-done:
	case <-ctx.Done():
		r.t.Fatalf("the fanned-out send: %v", ctx.Err())
	}
	r.stepUntil("the fanned-out send's verdict", func() bool {
		if o.err != nil || o.res.Signature != (solana.Signature{}) {
			return true
		}
		select {
		case o = <-done:
			return true
		default:
			return false
		}
	})
	if o.err != nil || o.res.Status != confirm.Landed || o.res.FirstAccepted == "" {
		r.t.Fatalf("SendAndConfirm fanned out: %+v, %v", o.res, o.err)
	}
}

// coalesce makes two identical getSlot calls in flight at once: the
// holder keeps the first's answer on its own clock (held) until the
// second has joined it; the other readers answer getSlot with 429, so
// the first lands on the holder. The second's joining has no signal
// outside the engine: if the first's answer came before it joined, it
// makes a request of its own, which the holder holds too; then the pair
// is tried again, until one call shared the other's answer.
func (r *run) coalesce(readers []string) {
	r.t.Helper()
	for _, n := range readers {
		f := fixtures.ByMethod(map[string]fixtures.Fault{"getSlot": fixtures.Status(429, "")})
		if n == r.holder {
			f = fixtures.ByMethod(map[string]fixtures.Fault{"getSlot": {Delay: time.Millisecond}})
		}
		r.cluster.Server(n).SetScript(f)
	}
	for try := 0; r.count("solroute_coalesced_calls_total") == 0; try++ {
		if try == 20 {
			r.t.Fatal("no getSlot call shared another's in 20 tries")
		}
		r.getSlotPair()
		r.t.Logf("coalesce: try %d", try+1)
	}
}

// getSlotPair starts two getSlot calls, the second once the first is
// held at the holder, and releases the holder until both returned.
func (r *run) getSlotPair() {
	r.t.Helper()
	ctx := r.ctx()
	call := func() <-chan error {
		ch := make(chan error, 1)
		go func() {
			var slot uint64
			ch <- r.client.CallForInto(ctx, &slot, "getSlot", nil)
		}()
		return ch
	}
	first := call()
	if err := r.held.BlockUntilContext(ctx, 1); err != nil {
		r.t.Fatalf("the first getSlot never reached %s: %v", r.holder, err)
	}
	second := call()
	for range 100 {
		runtime.Gosched() // the second's turn to join: checked after, not assumed
	}
	for _, ch := range []<-chan error{first, second} {
		if err := r.release(ctx, ch); err != nil {
			r.t.Fatalf("getSlot: %v", err)
		}
	}
}

// release advances the holder's clock whenever it holds an answer, until
// the call's result comes.
func (r *run) release(ctx context.Context, result <-chan error) error {
	for {
		held := make(chan error, 1)
		wctx, cancel := context.WithCancel(ctx)
		go func() { held <- r.held.BlockUntilContext(wctx, 1) }()
		select {
		case err := <-result:
			cancel()
			<-held
			return err
		case err := <-held:
			cancel()
			if err != nil {
				return err
			}
			r.held.Advance(time.Millisecond)
		}
	}
}
