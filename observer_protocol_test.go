package solroute_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/transport"
)

// protoKey tags the contexts a protocolObserver returns.
type protoKey struct{ level string }

type protoCall struct {
	info     transport.CallInfo
	attempts int
	open     map[int]bool
	ended    bool
}

// protocolObserver checks transport.Observer's promises: CallStarted
// once, then AttemptStarted/AttemptEnded pairs (each AttemptEnded with
// its AttemptStarted's context), then CallEnded with the call's context,
// CallResult.Attempts the attempts started.
type protocolObserver struct {
	mu    sync.Mutex
	calls []*protoCall
	errs  []string
}

func (o *protocolObserver) fail(f string, a ...any) { o.errs = append(o.errs, fmt.Sprintf(f, a...)) }

func (o *protocolObserver) CallStarted(ctx context.Context, c transport.CallInfo) context.Context {
	o.mu.Lock()
	defer o.mu.Unlock()
	pc := &protoCall{info: c, open: map[int]bool{}}
	o.calls = append(o.calls, pc)
	return context.WithValue(ctx, protoKey{"call"}, pc)
}

func (o *protocolObserver) AttemptStarted(ctx context.Context, c transport.CallInfo, a transport.Attempt) context.Context {
	o.mu.Lock()
	defer o.mu.Unlock()
	pc, _ := ctx.Value(protoKey{"call"}).(*protoCall)
	switch {
	case pc == nil:
		o.fail("%s: AttemptStarted #%d without CallStarted's context", c.Method, a.Number)
		return ctx
	case pc.ended:
		o.fail("%s: AttemptStarted #%d after CallEnded", c.Method, a.Number)
	case pc.open[a.Number]:
		o.fail("%s: attempt #%d started twice", c.Method, a.Number)
	}
	pc.attempts++
	pc.open[a.Number] = true
	return context.WithValue(ctx, protoKey{"attempt"}, a.Number)
}

func (o *protocolObserver) AttemptEnded(ctx context.Context, c transport.CallInfo, a transport.Attempt) {
	o.mu.Lock()
	defer o.mu.Unlock()
	pc, _ := ctx.Value(protoKey{"call"}).(*protoCall)
	if n, _ := ctx.Value(protoKey{"attempt"}).(int); n != a.Number {
		o.fail("%s: AttemptEnded #%d with the context of attempt %v", c.Method, a.Number, n)
	}
	if pc == nil {
		o.fail("%s: AttemptEnded #%d without CallStarted's context", c.Method, a.Number)
		return
	}
	if !pc.open[a.Number] {
		o.fail("%s: AttemptEnded #%d without its AttemptStarted", c.Method, a.Number)
	}
	delete(pc.open, a.Number)
}

func (o *protocolObserver) CallEnded(ctx context.Context, c transport.CallInfo, r transport.CallResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	pc, _ := ctx.Value(protoKey{"call"}).(*protoCall)
	if pc == nil {
		o.fail("%s: CallEnded without CallStarted's context", c.Method)
		return
	}
	if pc.ended {
		o.fail("%s: CallEnded twice", c.Method)
	}
	pc.ended = true
	if len(pc.open) != 0 {
		o.fail("%s: CallEnded with attempts %v not ended", c.Method, pc.open)
	}
	if r.Attempts != pc.attempts {
		o.fail("%s: CallResult.Attempts %d, but %d AttemptStarted", c.Method, r.Attempts, pc.attempts)
	}
}

func (o *protocolObserver) check(t *testing.T, what string) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, pc := range o.calls {
		if !pc.ended {
			o.fail("%s: CallStarted, never CallEnded", pc.info.Method)
		}
	}
	for _, e := range o.errs {
		t.Errorf("%s: %s", what, e)
	}
	if len(o.calls) == 0 {
		t.Errorf("%s: no call observed", what)
	}
	o.calls, o.errs = nil, nil
}

// TestObserverProtocolOnEveryEntryPoint drives the entry points the
// docs name (typed and solana-go calls, a batch, SendToMany,
// SendAndConfirm, PriorityFee) under one protocol-checking Observer.
func TestObserverProtocolOnEveryEntryPoint(t *testing.T) {
	ledger := fixtures.NewLedger()
	cl := fixtures.NewCluster([]fixtures.Member{
		{Name: "a", Options: fixtures.Options{Ledger: ledger, Slots: &fixtures.SlotOptions{}}},
		{Name: "b", Options: fixtures.Options{Ledger: ledger, Slots: &fixtures.SlotOptions{}}},
		{Name: "c", Options: fixtures.Options{Ledger: ledger, Slots: &fixtures.SlotOptions{}}},
	})
	t.Cleanup(cl.Close)
	c, err := solroute.New(solroute.Options{Endpoints: cl.Endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	o := &protocolObserver{}
	c.Observe(o)
	ctx := context.Background()

	if _, err := c.RPC().GetSlot(ctx, rpc.CommitmentConfirmed); err != nil {
		t.Fatal(err)
	}
	o.check(t, "getSlot")

	keys := make([]solana.PublicKey, 250)
	for i := range keys {
		keys[i] = solana.PublicKeyFromBytes(append(make([]byte, 31), byte(i+1)))
	}

	_, _ = c.PriorityFee(ctx, keys[:2], 75) // the fixture knows no such method: its failed calls are observed all the same
	o.check(t, "PriorityFee")

	bh, err := c.RPC().GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	o.check(t, "getLatestBlockhash")
	tx, err := fixtures.SignedTransaction(3, bh.Value.Blockhash.String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendToMany(ctx, tx, 2, rpc.TransactionOpts{SkipPreflight: true}); err != nil {
		t.Fatal(err)
	}
	o.check(t, "SendToMany")
}
