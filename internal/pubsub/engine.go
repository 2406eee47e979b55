package pubsub

import (
	"context"
	"hash/maphash"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
	"golang.org/x/time/rate"
)

// Engine holds subscriptions over a set of PubSub endpoints. Every method
// is safe for concurrent use.
type Engine struct {
	set     Settings
	clock   clockwork.Clock
	log     *slog.Logger
	reader  Reader
	obs     func(Event)
	netDial netDialFunc
	seed    maphash.Seed

	ctx     context.Context // canceled by Close: ends dials and read backs
	cancel  context.CancelFunc
	closing chan struct{}
	kick    chan struct{} // wakes the loop early
	wg      sync.WaitGroup

	mu      sync.Mutex // guards everything below
	closed  bool
	eps     []*epState // by tier, then as given
	streams map[string]*stream
	needy   map[*stream]struct{} // streams holding fewer legs than Redundancy
	dials   map[*dialState]struct{}
	slots   *stream // the slot stream, fed by every heartbeat through gate
	gate    slotGate
	nextID  uint64 // JSON-RPC ids, engine-wide
	rng     *rand.Rand
	beats   beats
	cadence time.Duration // the measured slot time
	best    uint64        // the freshest heartbeat slot among live connections
	stats   counters
	act     activity
	events  []Event // to hand to Observe once the lock is released, in order
	handing bool    // a goroutine is handing events to Observe
	reads   readQueue
}

// epState is one endpoint's live state.
type epState struct {
	Endpoint
	secrets  *secrets
	target   string // the URL without its user info
	header   map[string][]string
	capacity int // subscriptions per connection, the heartbeat included
	maxConns int
	limiter  *rate.Limiter // nil: unlimited

	conns    []*wsConn
	dialing  int
	queue    []*leg // legs waiting for a connection with room, or a token
	legs     int    // legs queued, sent or live here
	failures int
	retryAt  time.Time // no dial before
	lastErr  *EndpointError
	best     uint64 // its freshest heartbeat slot
	counts   epCounters
}

// New starts an engine over endpoints: it dials every one at once. It
// fails only on a configuration it cannot use (no endpoint, a duplicate
// name, a URL that is not ws:// or wss://: named by the endpoint, never
// shown).
func New(endpoints []Endpoint, s Settings, o Options) (*Engine, error) {
	if err := checkEndpoints(endpoints); err != nil {
		return nil, err
	}
	e := &Engine{
		set: s.withDefaults(), clock: o.Clock, log: o.Logger, reader: o.Reader, obs: o.Observe,
		netDial: o.NetDial, seed: maphash.MakeSeed(),
		closing: make(chan struct{}), kick: make(chan struct{}, 1),
		streams: make(map[string]*stream), needy: make(map[*stream]struct{}),
		rng: rand.New(rand.NewPCG(o.Seed, o.Seed^0x5eed)), cadence: slotTime,
		act: newActivity(), reads: newReadQueue(),
	}
	if e.clock == nil {
		e.clock = clockwork.NewRealClock()
	}
	if e.log == nil {
		e.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	for _, ep := range sortedEndpoints(endpoints) {
		e.eps = append(e.eps, newEPState(ep))
	}
	e.slots = newStream(e, &spec{kind: kSlot})
	e.mu.Lock()
	for _, ep := range e.eps {
		e.startDialLocked(ep)
	}
	e.unlock()
	e.wg.Add(1)
	go e.loop()
	return e, nil
}

// newEPState prepares an endpoint: its secrets, the URL it dials (user
// info moved to Basic authentication), its headers and limits.
func newEPState(ep Endpoint) *epState {
	raw := ep.URL.Reveal()
	var values []string
	header := make(map[string][]string, len(ep.Headers)+1)
	for name, v := range ep.Headers {
		header[canonical(name)] = []string{v.Reveal()}
		values = append(values, v.Reveal())
	}
	u, _ := url.Parse(raw) // checked by checkEndpoints
	if u.User != nil {
		if _, has := header["Authorization"]; !has {
			pass, _ := u.User.Password()
			auth := basicAuth(u.User.Username(), pass)
			header["Authorization"] = []string{auth}
			values = append(values, auth)
		}
		u.User = nil
	}
	s := &epState{Endpoint: ep, secrets: newSecrets(raw, values, ep.HTTPURL.Reveal()), target: u.String(), header: header}
	s.capacity = ep.Limits.SubscriptionsPerConn
	if s.capacity == 0 {
		s.capacity = DefaultSubscriptionsPerConn
	}
	s.maxConns = ep.Limits.ConnsPerEndpoint
	if s.maxConns == 0 {
		s.maxConns = DefaultConnsPerEndpoint
	}
	if r := ep.Limits.SubscribesPerSecond; r > 0 {
		burst := ep.Limits.SubscribeBurst
		if burst == 0 {
			burst = max(1, int(r))
		}
		s.limiter = rate.NewLimiter(rate.Limit(r), burst)
	}
	return s
}

// Close ends every subscription (ErrClosed), connection and dial (one
// whose upgrade is not answered too) and waits for the engine's
// goroutines. Close is idempotent.
func (e *Engine) Close() {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.closed = true
	for _, st := range e.allStreamsLocked() {
		st.end(ErrClosed)
	}
	var conns []*wsConn
	for _, ep := range e.eps {
		conns = append(conns, ep.conns...)
		ep.conns, ep.queue = nil, nil
	}
	e.streams, e.needy = map[string]*stream{}, map[*stream]struct{}{}
	dials := make([]*dialState, 0, len(e.dials))
	for d := range e.dials {
		dials = append(dials, d)
	}
	e.mu.Unlock()
	e.cancel()
	for _, d := range dials {
		d.expire() // the upgrade's answer is read without a context
	}
	close(e.closing)
	for _, c := range conns {
		c.shut()
	}
	e.wg.Wait()
}

// allStreamsLocked lists the streams, the slot stream included.
func (e *Engine) allStreamsLocked() []*stream {
	out := []*stream{e.slots}
	for _, st := range e.streams {
		out = append(out, st)
	}
	return out
}

// unlock releases e.mu and hands the events recorded under it to
// Observe, outside the lock, in the order they were recorded: one
// goroutine at a time hands them over, and takes those that others record
// meanwhile (handed over by each goroutine that recorded them, events of
// a stall and of its replacement could reach Observe in either order).
// Handing over is work for Activity: the engine is not quiet until
// Observe has had every event.
func (e *Engine) unlock() {
	if e.obs == nil || e.handing || len(e.events) == 0 {
		e.mu.Unlock()
		return
	}
	e.handing = true
	e.act.busy++
	for len(e.events) > 0 {
		evs := e.events
		e.events = nil
		e.mu.Unlock()
		for _, ev := range evs {
			e.obs(ev)
		}
		e.mu.Lock()
	}
	e.handing = false
	e.busyDoneLocked()
	e.mu.Unlock()
}

// kickLoop wakes the loop now. e.mu must be held.
func (e *Engine) kickLoop() {
	e.act.loopDue = time.Time{}
	e.act.changedLocked()
	select {
	case e.kick <- struct{}{}:
	default:
	}
}
