package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

const probeAbout = `
Check each configured endpoint on its own — no failover, no retries: each
canary is one request — with five canaries: getHealth, getVersion,
getGenesisHash, getBalance of --address and getSlot (confirmed). Each
canary's latency is measured. The genesis hash of every endpoint is checked
against the configuration's cluster and against the other endpoints: an
endpoint on the wrong cluster is flagged. Each endpoint's slot is compared
with the others' as the pool compares them: LAG is how many slots it is
behind the highest slot another endpoint is within max_slot_lag of, and an
endpoint more than max_slot_lag behind that (lagging) or ahead of it
(outlier) is flagged. An endpoint that serves no read role is skipped.

The report is a table for people, or JSON with --json. The exit code is 0
when every probed endpoint passed, 1 when any failed, is on the wrong
cluster or is off the others' slot, 2 for a usage or configuration error.`

const probeExample = `
solroute probe --config rpc.toml
solroute probe --config rpc.toml --address Vote111111111111111111111111111111111111111 --json`

// systemProgram is the default --address: it exists on every cluster.
const systemProgram = "11111111111111111111111111111111"

// runProbe is "solroute probe".
func runProbe(ctx context.Context, e *env, args []string) int {
	f := newFlags("probe", "probe --config FILE [--address PUBKEY] [--timeout D] [--json]", probeAbout, probeExample)
	cfgPath := f.String("config", "", "read the TOML configuration from `FILE` (required)")
	address := f.String("address", systemProgram, "ask getBalance for the balance of `PUBKEY` (base58)")
	timeout := f.Duration("timeout", 0, "bound each canary by `D` (such as 5s); 0 means the endpoint's request_timeout")
	asJSON := f.Bool("json", false, "write the report as JSON")
	pos, code, done := f.parse(e, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.usageError("probe", "unexpected argument %q: probe takes flags only", pos[0])
	}
	if *timeout < 0 {
		return e.usageError("probe", "--timeout must not be negative")
	}
	addr, err := solroute.ParsePubkey(*address)
	if err != nil {
		reason := "not a base-58 encoded 32-byte key"
		var inputErr *solroute.InputError
		if errors.As(err, &inputErr) {
			reason = inputErr.Reason
		}
		return e.usageError("probe", "invalid --address %q: %s", *address, reason)
	}
	cfg, code := e.loadConfig("probe", *cfgPath)
	if cfg == nil {
		return code
	}
	p := &prober{env: e, cfg: cfg, address: addr, timeout: *timeout}
	report := p.run(ctx)
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(report)
	} else {
		report.writeTable(e.stdout)
	}
	if !report.OK {
		return exitFailed
	}
	return exitOK
}

// prober probes every endpoint of one configuration.
type prober struct {
	env     *env
	cfg     *config.Document
	address solana.PublicKey
	timeout time.Duration
}

// run probes the endpoints concurrently, each alone, then checks their
// genesis hashes against the cluster and each other.
func (p *prober) run(ctx context.Context) *probeReport {
	r := &probeReport{
		Cluster:   p.cfg.Cluster,
		Address:   p.address.String(),
		Endpoints: make([]endpointReport, len(p.cfg.Endpoints)),
	}
	if h, ok := p.cfg.ExpectedGenesisHash(); ok {
		r.ExpectedGenesis = h.String()
	}
	var wg sync.WaitGroup
	for i := range p.cfg.Endpoints {
		wg.Go(func() { r.Endpoints[i] = p.endpoint(ctx, &p.cfg.Endpoints[i]) })
	}
	wg.Wait()
	r.checkGenesis()
	r.checkSlots(p.cfg.Pool.MaxSlotLag)
	probed := 0
	r.OK = true
	for i := range r.Endpoints {
		ep := &r.Endpoints[i]
		if ep.Skipped != "" {
			continue
		}
		probed++
		ep.OK = len(ep.Problems) == 0
		r.OK = r.OK && ep.OK
	}
	// Nothing checked is not a pass.
	r.OK = r.OK && probed > 0
	return r
}

// endpoint runs the five canaries against one endpoint, each one request:
// through a pool that holds only it, with no retry of any kind, no hedge,
// no doubt, no ejection and no monotonic reads, so that what one canary
// meets cannot change how the next is sent.
func (p *prober) endpoint(ctx context.Context, ep *endpoint.Spec) endpointReport {
	rep := endpointReport{Name: ep.Name, Tier: ep.Tier}
	if _, ok := ep.Roles[endpoint.RoleRead]; !ok {
		rep.Skipped = "serves no read role: the canaries are reads"
		return rep
	}
	// One request per canary: no retry, transparent or counted, no hedge;
	// no doubt, no ejection and no lag routing (the zero pool settings); no
	// cluster guard and no slot probe, which would send requests of their
	// own (the getGenesisHash canary is the guard's check, reported); no
	// monotonic reads, which would add a minContextSlot the endpoint did
	// not ask for.
	ts := *p.cfg.Transport // a copy: the document's stays as written
	one := &config.Document{Endpoints: []endpoint.Spec{*ep}, Transport: &ts, Pool: &pool.Settings{}}
	one.Transport.Retry.MaxRetries, one.Transport.Retry.TransparentRetries = 0, 0
	one.Transport.HedgeAfter, one.Transport.SlotProbeInterval = 0, 0
	one.Transport.MonotonicReads = false
	var attempts atomic.Int64 // of the canary running: they run one at a time
	c, err := solroute.FromDocument(one, solroute.Hooks{Clock: p.env.clock,
		Observers: []transport.Observer{onAttempt(func(context.Context, string, transport.Attempt) { attempts.Add(1) })}})
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
		return rep
	}
	defer c.Close()
	mc := c
	canary := func(method string, call func(context.Context) (string, error)) canaryResult {
		attempts.Store(0)
		c := p.canary(ctx, method, call)
		c.Attempts = int(attempts.Load())
		return c
	}

	rep.canary(canary("getHealth", func(ctx context.Context) (string, error) {
		if err := mc.GetHealth(ctx); err != nil {
			return "", err
		}
		rep.Healthy = true
		return "ok", nil
	}))
	rep.canary(canary("getVersion", func(ctx context.Context) (string, error) {
		v, err := mc.GetVersion(ctx)
		if err != nil {
			return "", err
		}
		rep.SolanaCore = shownVersion(v.SolanaCore, ep)
		fs := uint64(v.FeatureSet)
		rep.FeatureSet = &fs
		return fmt.Sprintf("solana-core %s, feature set %d", rep.SolanaCore, v.FeatureSet), nil
	}))
	rep.canary(canary("getGenesisHash", func(ctx context.Context) (string, error) {
		h, err := mc.GetGenesisHash(ctx)
		if err != nil {
			return "", err
		}
		rep.GenesisHash = h.String()
		rep.GenesisCluster = clusterName(h.String())
		return describeGenesis(h.String()), nil
	}))
	rep.canary(canary("getBalance", func(ctx context.Context) (string, error) {
		b, err := mc.GetBalance(ctx, p.address, solroute.BalanceOptions{})
		if err != nil {
			return "", err
		}
		lamports, slot := b.Value, b.Context.Slot
		rep.BalanceLamports, rep.BalanceSlot = &lamports, &slot
		return fmt.Sprintf("%d lamports at slot %d", lamports, slot), nil
	}))
	// The canaries before it take each endpoint its own time, so the
	// endpoints' slots are read at different instants: checkSlots
	// extrapolates each to the last one.
	slot := canary("getSlot", func(ctx context.Context) (string, error) {
		var slot uint64
		if err := c.CallForInto(ctx, &slot, "getSlot", []any{map[string]any{"commitment": "confirmed"}}); err != nil {
			return "", err
		}
		rep.Slot, rep.SlotCommitment = &slot, string(rpc.CommitmentConfirmed)
		return fmt.Sprintf("%d (confirmed)", slot), nil
	})
	rep.canary(slot)
	rep.slotAt = slot.at
	return rep
}

// canary runs one canary call under the probe's timeout and measures it.
func (p *prober) canary(ctx context.Context, method string, call func(context.Context) (string, error)) canaryResult {
	if p.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = clockwork.WithTimeout(ctx, p.env.clock, p.timeout)
		defer cancel()
	}
	start := p.env.clock.Now()
	summary, err := call(ctx)
	at := p.env.clock.Now()
	c := canaryResult{Method: method, latency: at.Sub(start), at: at}
	c.LatencyMS = milliseconds(c.latency)
	if err != nil {
		c.Error = err.Error()
		c.brief = briefError(err)
		return c
	}
	c.OK, c.Result = true, summary
	return c
}
