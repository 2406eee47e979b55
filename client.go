package solroute

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/genesis"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// Client is a pool of Solana RPC endpoints that behaves as one reliable
// endpoint: solana-go's client over it (RPC), typed calls with checked
// inputs, snapshots of every endpoint's state. It is safe for concurrent
// use. Build one with New or Open; Close it when done.
type Client struct {
	pool    *admission.Pool
	engine  *engine.Engine
	rpc     *rpc.Client
	cluster string
	subs    *subscriptions
	fees    feeCache // PriorityFee's answers (priorityfee_cache.go)
	// copies and defaultFanOut are the fan-out's watchers and the
	// document's [send] fan_out (fanout.go).
	copies        copyWatchers
	defaultFanOut int
}

// New builds a Client from plain Go options. Every problem with the
// options (an endpoint without a name or URL, a bad URL, a limit or a
// setting out of range, a method that cannot be declared) is reported
// before any request, and no error ever quotes a URL or a header value.
func New(opts Options) (*Client, error) {
	if len(opts.Endpoints) == 0 {
		return nil, errors.New("solroute: no endpoints: Options.Endpoints needs at least one")
	}
	specs := make([]endpoint.Spec, len(opts.Endpoints))
	for i := range opts.Endpoints {
		specs[i] = opts.Endpoints[i].spec()
	}
	if err := knownCluster(opts.Cluster, "Options.Cluster"); err != nil {
		return nil, err
	}
	ts, ps := transport.DefaultSettings(), pool.DefaultSettings()
	if opts.Transport != nil {
		ts = *opts.Transport
	}
	if opts.Pool != nil {
		ps = *opts.Pool
	}
	reg, err := declare(opts.Methods)
	if err != nil {
		return nil, fmt.Errorf("solroute: %w", err)
	}
	r, err := subscribeRedundancy(opts.SubscribeRedundancy, specs, "Options.SubscribeRedundancy")
	if err != nil {
		return nil, err
	}
	return build(specs, opts.Cluster, ts, ps, r, reg, opts.Hooks)
}

// Open builds a Client from the configuration document at path (see
// docs/config.md; ${VAR} references in URLs and header values come from
// the environment). A document with problems yields a
// *config.ValidationError listing every one, with its line; none quotes a
// value.
//
// With hooks (a clock, a logger, the shared limiter a [limits] backend =
// "redis" needs), load the document and build from it:
// config.Load(path), then FromDocument(doc, hooks).
func Open(path string) (*Client, error) {
	doc, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	return FromDocument(doc, Hooks{})
}

// FromDocument builds a Client from a document (config.Parse,
// config.Load, or one built by hand: a nil Transport or Pool means its
// defaults), with hooks. A document whose [limits] backend is "redis"
// needs the shared limiter in h.Limits (redislimit.New(ctx, doc.Limits,
// ...)); without it FromDocument fails before any request, with an error
// that names the import. What Parse would refuse in a document built by
// hand (or changed after Parse) is refused here too: an unknown cluster,
// [limits] that do not validate, a [send] fan_out out of range.
func FromDocument(doc *config.Document, h Hooks) (*Client, error) {
	if err := checkDocument(doc); err != nil {
		return nil, err
	}
	reg, err := doc.Registry(nil)
	if err != nil {
		return nil, fmt.Errorf("solroute: %w", err)
	}
	lim, err := documentLimiter(doc.Limits, h.Limits)
	if err != nil {
		return nil, err
	}
	h.Limits = lim
	ts, ps := transport.DefaultSettings(), pool.DefaultSettings()
	if doc.Transport != nil {
		ts = *doc.Transport
	}
	if doc.Pool != nil {
		ps = *doc.Pool
	}
	r, err := subscribeRedundancy(doc.Subscribe.Redundancy, doc.Endpoints, "[subscribe] redundancy")
	if err != nil {
		return nil, err
	}
	c, err := build(doc.Endpoints, doc.Cluster, ts, ps, r, reg, h)
	if err != nil {
		return nil, err
	}
	c.defaultFanOut = doc.Send.FanOut
	return c, nil
}

// build is the one constructor behind New and Open. h.Limits, when not
// nil, supplies the pool's buckets; its owner closes it. redundancy is
// what subscribeRedundancy returned.
func build(specs []endpoint.Spec, cluster string, ts transport.Settings, ps pool.Settings, redundancy int, reg *methods.Registry, h Hooks) (*Client, error) {
	po := admission.Options{Clock: h.Clock, Logger: h.Logger, Registry: reg}
	if h.Limits != nil {
		po.NewBucket = h.Limits.NewBucket
	}
	p, err := admission.New(specs, ps, po)
	if err != nil {
		return nil, fmt.Errorf("solroute: %w", err)
	}
	to := engine.Options{Logger: h.Logger, Observers: h.Observers, Registry: reg}
	if g, ok := genesis.Of(cluster); ok {
		to.Genesis = g.String()
	}
	tc, err := engine.New(p, ts, to)
	if err != nil {
		return nil, fmt.Errorf("solroute: %w", err)
	}
	rc := rpc.NewWithCustomRPCClient(tc)
	subs := newSubscriptions(specs, ps.MaxSlotLag, rc, h.Clock, h.Logger)
	subs.watch(h.Observers...)
	subs.settings.Redundancy = redundancy
	c := &Client{pool: p, engine: tc, rpc: rc, cluster: cluster, subs: subs}
	c.copies.watch(h.Observers...)
	return c, nil
}

// RPC returns solana-go's client over the pool: every one of its methods
// runs through the pool, its failover and its retry rules.
func (c *Client) RPC() *rpc.Client { return c.rpc }

// Registry returns the method registry the client routes by: the
// built-in one with Options.Methods (or the document's [methods])
// declared.
func (c *Client) Registry() *methods.Registry { return c.engine.Registry() }

// Snapshot copies every (endpoint, role) state at one instant: health,
// tokens, slots in flight, cooldown, doubt, outcome counters. It holds no
// URL and no header.
func (c *Client) Snapshot() []endpoint.Snapshot { return c.pool.Snapshot() }

// Cluster returns the cluster the options or the document name ("" when
// none) and its genesis hash (false when none).
func (c *Client) Cluster() (string, solana.Hash, bool) {
	h, ok := genesis.Of(c.cluster)
	return c.cluster, h, ok
}

// Close releases idle connections and ends every subscription
// (ErrSubscriptionClosed) and WebSocket, waiting for their goroutines.
// Calls made after Close dial again; subscribes fail. A shared limiter
// passed in Hooks.Limits is its owner's to close, after this.
func (c *Client) Close() error {
	c.subs.close()
	return c.engine.Close()
}

// knownCluster refuses a cluster name (set at where) that is neither a
// public cluster's nor a base58 genesis hash; "" (no check) passes. The
// name is not quoted: a URL pasted there may carry a key.
func knownCluster(name, where string) error {
	if _, ok := genesis.Of(name); name != "" && !ok {
		return fmt.Errorf("solroute: unknown %s: want mainnet-beta, devnet, testnet or a base58 genesis hash", where)
	}
	return nil
}

// checkDocument is what FromDocument checks of a document that did not
// come through Parse (one that did passes): its cluster, its [limits]
// (Limits.Validate), and its [send] fan_out, 0 (the default) or from 1 to
// the endpoints with a send role.
func checkDocument(doc *config.Document) error {
	if err := knownCluster(doc.Cluster, "cluster"); err != nil {
		return err
	}
	if err := doc.Limits.Validate(); err != nil {
		return fmt.Errorf("solroute: [limits]: %w", err)
	}
	n := 0
	for i := range doc.Endpoints {
		if _, ok := doc.Endpoints[i].Roles[endpoint.RoleSend]; ok {
			n++
		}
	}
	if k := doc.Send.FanOut; k < 0 || k > min(n, maxSendFanOut) {
		return fmt.Errorf("solroute: [send] fan_out %d: want 1 to %d, at most the %d endpoint(s) with a send role (0: the default, 1)",
			k, maxSendFanOut, n)
	}
	return nil
}

// maxSendFanOut is config's bound on [send] fan_out, which Parse applies
// (TestHandBuiltFanOutBoundIsParses holds the two together).
const maxSendFanOut = 16
