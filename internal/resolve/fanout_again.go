package resolve

import (
	"context"
	"encoding/base64"
	"errors"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// again rebroadcasts params to the fan-out's endpoints (holders), at
// once: each that cannot take a copy at once (cooling down, out of
// tokens, at its concurrency cap, in doubt) is skipped this time, never
// waited for. Every copy has ended when it returns.
func (f *fanout) again(ctx context.Context, params []any) {
	names := f.holders()
	ok := readyNow(f.tc, names)
	results := make(chan copyEnd)
	running := 0
	for _, name := range names {
		if !ok[name] {
			f.entry(name).Skipped++
			continue
		}
		running++
		go func() { results <- sendCopy(ctx, f.tc, name, params) }()
	}
	for ; running > 0; running-- {
		f.record(<-results)
	}
}

// holders are the endpoints a rebroadcast goes to: those that hold a
// copy (accepted, or ambiguous: it may have it), in the order they were
// first given one, topped up to k with those that refused (a refusal,
// such as a rate limit, passes).
func (f *fanout) holders() []string {
	var held, refused []string
	for _, c := range f.copies {
		if c.Accepted > 0 || c.Sent > c.Refused {
			held = append(held, c.Endpoint)
		} else {
			refused = append(refused, c.Endpoint)
		}
	}
	for _, name := range refused {
		if len(held) >= f.k {
			break
		}
		held = append(held, name)
	}
	return held
}

// anyCopy sends params through the pool's own choice (which waits for
// the cluster guard) and learns from the attempts which endpoint took it.
func anyCopy(ctx context.Context, tc *engine.Engine, params []any) copyEnd {
	var mu sync.Mutex
	name := ""
	seen := engine.AttemptFunc(func(_ context.Context, _ string, a transport.Attempt) {
		mu.Lock()
		name = a.Endpoint
		mu.Unlock()
	})
	var sig string
	err := tc.CallForInto(engine.WithObserver(ctx, seen), &sig, "sendTransaction", params)
	mu.Lock()
	defer mu.Unlock()
	e := copyEnd{name: name, err: err, accepted: err == nil || alreadyProcessed(err)}
	if e.accepted {
		e.err = nil
	}
	e.refused = !e.accepted && !errors.Is(err, engine.ErrAmbiguousDispatch)
	return e
}

// SendCopies sends tx's signed bytes, with the sendTransaction config
// cfg (its encoding set to base64), to k distinct send endpoints at once
// (see confirm.Options.FanOut for which), each pinned to its endpoint,
// and reports what each did, in the order they were given a copy. The
// error is nil when an endpoint accepted a copy; it matches
// ErrAmbiguousDispatch when none did but some copy may have reached a
// server (resolve the signature before sending again); otherwise every
// copy was refused before dispatch and it joins their errors. A k out of
// 1 to the pool's send endpoints, or a tx that does not serialize, is an
// error before any request (the caller checks the signatures).
func SendCopies(ctx context.Context, tc *engine.Engine, tx *solana.Transaction, k int, cfg map[string]any, watchers []CopyWatcher) ([]confirm.Copy, error) {
	if err := checkFanOut(tc, k, "fan-out"); err != nil {
		return nil, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, errors.New("confirm: the transaction does not serialize: " + err.Error())
	}
	c := map[string]any{"encoding": "base64"}
	for key, v := range cfg {
		if key != "encoding" {
			c[key] = v
		}
	}
	f := newFanout(tc, k, watchers)
	err = f.send(ctx, []any{base64.StdEncoding.EncodeToString(raw), c})
	return f.copies, err
}
