package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/genesis"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/internal/wire"
	"github.com/solroute/solroute/retrypolicy"
)

// The transport's own requests (plans/009-consistency.md): the cluster
// guard's one getGenesisHash per endpoint, and the opt-in slot probe. One
// goroutine per endpoint does both, in that order; Close stops them all
// and waits for them.

const (
	// verifyRetryFirst and verifyRetryMax bound the backoff between two
	// genesis checks of an endpoint that did not answer.
	verifyRetryFirst = time.Second
	verifyRetryMax   = 30 * time.Second
	// codeMethodNotFound is JSON-RPC's -32601.
	codeMethodNotFound = -32601
)

// background runs the transport's own requests.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startBackground starts, when the settings ask for either, one goroutine
// per endpoint that checks its genesis hash against genesis (if set) and
// then probes its slot every probeEvery (if positive and it serves
// reads).
func (c *Engine) startBackground(genesis string, probeEvery time.Duration) error {
	var want solana.Hash
	if genesis != "" {
		h, err := solana.HashFromBase58(genesis)
		if err != nil || h.IsZero() {
			return errors.New("transport: Options.Genesis is not a base58 genesis hash")
		}
		want = h
	}
	if want.IsZero() && probeEvery <= 0 {
		return nil
	}
	c.bg.ctx, c.bg.cancel = context.WithCancel(context.Background())
	for _, spec := range c.pool.Specs() {
		if !want.IsZero() {
			c.pool.Hold(spec.Name)
		}
		probe := probeEvery > 0 && admission.Serves(&spec, endpoint.RoleRead)
		if want.IsZero() && !probe {
			continue
		}
		role := endpoint.RoleRead
		if !admission.Serves(&spec, role) {
			role = endpoint.RoleSend
		}
		c.bg.wg.Add(1)
		go func(name string) {
			defer c.bg.wg.Done()
			if !want.IsZero() && !c.verify(name, role, want) {
				return
			}
			if probe {
				c.probeSlots(name, probeEvery)
			}
		}(spec.Name)
	}
	return nil
}

// stopBackground stops the background goroutines and waits for them.
func (c *Engine) stopBackground() {
	if c.bg.cancel != nil {
		c.bg.cancel()
		c.bg.wg.Wait()
	}
}

// verify checks name's genesis hash until it has an answer: the endpoint
// is then verified (a match, or an endpoint that does not serve
// getGenesisHash, which is logged) or excluded (a mismatch). It reports
// whether the endpoint may serve; false also when the client is closed.
func (c *Engine) verify(name string, role endpoint.Role, want solana.Hash) bool {
	wait := verifyRetryFirst
	for {
		var got string
		o, ok := c.ownRequest(name, role, "getGenesisHash", nil, &got, nil, false)
		switch {
		case ok && !o.Failed():
			h, err := solana.HashFromBase58(got)
			if err != nil {
				c.pool.Unchecked(name, "getGenesisHash answered no hash")
				break // a malformed answer: asked again later
			}
			if h == want {
				c.pool.Verify(name)
				return true
			}
			reason := "serves " + describeGenesis(h) + "; the configuration says " + describeGenesis(want)
			c.pool.Exclude(name, reason) // before the line that says so
			if c.logger != nil {
				c.logger.LogAttrs(c.bg.ctx, slog.LevelError, "transport: endpoint excluded: wrong cluster",
					slog.String("endpoint", name), slog.String("reason", reason))
			}
			return false
		case ok && o.RPCCode == codeMethodNotFound:
			// A send-only service (a block engine) may not serve it: the
			// guard cannot check it, and says so.
			c.pool.Verify(name)
			if c.logger != nil {
				c.logger.LogAttrs(c.bg.ctx, slog.LevelWarn, "transport: cluster not checked: the endpoint does not serve getGenesisHash",
					slog.String("endpoint", name))
			}
			return true
		case ok:
			c.pool.Unchecked(name, uncheckedWhy(o))
		}
		t := c.clock.NewTimer(wait)
		select {
		case <-t.Chan():
		case <-c.bg.ctx.Done():
			t.Stop()
			return false
		}
		wait = min(2*wait, verifyRetryMax)
	}
}

// uncheckedWhy says why a failed getGenesisHash attempt checked nothing:
// its error (secret-free, naming the endpoint by its name), or its cause.
func uncheckedWhy(o outcome) string {
	if o.err != nil {
		return "getGenesisHash: " + o.err.Error()
	}
	return "getGenesisHash: " + o.Cause.String()
}

// probeSlots asks name for its confirmed slot every interval, when a
// token and a concurrency slot are free at once, until Close.
func (c *Engine) probeSlots(name string, interval time.Duration) {
	params := []any{map[string]any{"commitment": "confirmed"}}
	plan := &slots.Plan{Traits: slots.TraitsOf("getSlot"), Commitment: slots.Confirmed}
	for {
		t := c.clock.NewTimer(interval)
		select {
		case <-t.Chan():
		case <-c.bg.ctx.Done():
			t.Stop()
			return
		}
		var slot uint64
		c.ownRequest(name, endpoint.RoleRead, "getSlot", params, &slot, plan, true)
	}
}

// ownRequest makes one attempt of method on the named endpoint, paid from
// its role's limits, for the transport itself: when now is true only if
// it can be admitted at once, otherwise waiting up to the endpoint's
// request timeout. ok is false when no attempt was made.
func (c *Engine) ownRequest(name string, role endpoint.Role, method string, params []any, out any, plan *slots.Plan, now bool) (o outcome, ok bool) {
	ctx := c.bg.ctx
	timeout, err := c.pool.DefaultTimeout(admission.Request{Role: role, Method: method, Endpoint: name})
	if err != nil {
		return o, false
	}
	deadline := c.clock.Now().Add(timeout)
	req := admission.Request{Role: role, Method: method, Endpoint: name, Deadline: deadline}
	var pm *admission.Permit
	if now {
		pm = c.pool.TryAcquire(req)
	} else {
		pm, _ = c.pool.Acquire(ctx, req)
	}
	if pm == nil {
		return o, false
	}
	id := c.nextID.Add(1)
	body, err := wire.EncodeRequest(id, method, params)
	if err != nil {
		pm.Release()
		return o, false
	}
	cs := &callState{method: method, body: body, class: retrypolicy.Idempotent, deadline: deadline,
		slots: plan, x: &intoExchange{id: id, out: out, slots: plan}}
	start := c.clock.Now()
	o, _ = c.attempt(ctx, cs, pm)
	pm.Done(o.Outcome)
	if c.logger != nil && c.logger.Enabled(ctx, slog.LevelDebug) {
		c.logger.LogAttrs(ctx, slog.LevelDebug, "transport: own request",
			slog.String("method", method), slog.String("endpoint", name),
			slog.String("cause", o.Cause.String()), slog.Duration("duration", c.clock.Since(start)))
	}
	return o, true
}

// describeGenesis names a genesis hash for people: the cluster's name
// when it is a public cluster's, "the cluster with genesis HASH"
// otherwise.
func describeGenesis(h solana.Hash) string {
	if name := ClusterName(h); name != "" {
		return name
	}
	return "the cluster with genesis " + h.String()
}

// ClusterName names a public cluster's genesis hash ("" for any other):
// the reverse of genesis.Of, the one table of the hashes.
func ClusterName(h solana.Hash) string {
	for _, name := range [...]string{"mainnet-beta", "devnet", "testnet"} { // what genesis.Of resolves
		if g, _ := genesis.Of(name); g == h {
			return name
		}
	}
	return ""
}
