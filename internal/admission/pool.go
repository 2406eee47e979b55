package admission

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/rolestate"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/pool"
)

// Pool is a tiered set of endpoints. It is safe for concurrent use.
//
// Nothing in a Pool changes shape after New: the candidate lists are built
// once, and Acquire touches only per-(endpoint, role) atomics, the token
// buckets and one round-robin counter per tier.
type Pool struct {
	clock clockwork.Clock
	log   *slog.Logger // nil discards
	specs []endpoint.Spec
	roles [endpoint.RoleSend + 1]*roleSet
	// all holds every runtime by tier, configuration order, then role.
	all []*rolestate.Runtime
	// doubtWindow and doubtPatience are Settings.DoubtWindow and
	// DoubtPatience: 0 means off, and at once.
	doubtWindow, doubtPatience time.Duration
	// seed seeds the balancing's draws (Options.Seed, or a random one).
	seed uint64
	// slots tracks where each endpoint is on the chain (package slots).
	slots *slots.Book
	// byName finds an endpoint's shared state by Spec.Name.
	byName map[string]*rolestate.Shared
	// history is the history routing's methods and avoid time
	// (history.go).
	history history
}

// roleSet holds the candidates of one role.
type roleSet struct {
	// tiers are the candidates grouped by tier, most preferred first.
	tiers []*tierGroup
	// ordered lists the candidates by tier, then configuration order.
	ordered []*member
	// timeout is the smallest RequestTimeout of the role's endpoints.
	timeout time.Duration
	// queue is the role's requests waiting in Acquire.
	queue waitQueue
}

// tierGroup is the candidates of one tier, in configuration order, and the
// counter that rotates the first one tried.
type tierGroup struct {
	next atomic.Uint32
	// pad keeps the counter, written by every Acquire, off the cache line
	// of the read-only fields around it.
	_       [60]byte
	members []*member
}

// rotated is the round-robin start the latest scan of the tier used (a
// spread, not a schedule: another Acquire's, if one scanned since).
func (g *tierGroup) rotated() (n, start uint32) {
	n = uint32(len(g.members))
	return n, (g.next.Load() - 1) % n
}

// member is one candidate of a role.
type member struct {
	rt   *rolestate.Runtime
	pool *Pool
	spec *endpoint.Spec
	// idx is the member's position in its roleSet's ordered list.
	idx int
	// timeout is the normalised RequestTimeout of this role.
	timeout time.Duration
	// endpoint holds the runtimes of every role of the same endpoint,
	// this one included: an endpoint is put in doubt as a whole.
	endpoint []*rolestate.Runtime
}

// New validates specs (see endpoint.Validate) and s (Settings.Validate),
// and builds a Pool.
func New(specs []endpoint.Spec, s pool.Settings, opts Options) (*Pool, error) {
	if err := endpoint.Validate(specs); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("pool: %w", err)
	}
	p := &Pool{clock: opts.Clock, log: opts.Logger, specs: make([]endpoint.Spec, len(specs)),
		doubtWindow: s.DoubtWindow, doubtPatience: s.DoubtPatience, seed: opts.Seed,
		slots: slots.NewBook(uint64(max(s.MaxSlotLag, 0))), byName: make(map[string]*rolestate.Shared, len(specs)),
		history: newHistory(opts.Registry, s.HistoryAvoid)}
	if p.seed == 0 {
		p.seed = rand.Uint64()
	}
	if p.clock == nil {
		p.clock = clockwork.NewRealClock()
	}
	for i := range specs {
		p.specs[i] = cloneSpec(specs[i])
	}
	// Configuration order, stably sorted by tier.
	order := make([]int, len(p.specs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return p.specs[a].Tier - p.specs[b].Tier })

	for _, role := range endpoint.AllRoles() {
		p.roles[role] = &roleSet{}
	}
	start := p.clock.Now()
	for _, i := range order {
		if err := p.addEndpoint(&p.specs[i], s, opts, start); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// addEndpoint adds spec's members, one per role it serves, to their role
// sets and tiers, their state starting at start.
func (p *Pool) addEndpoint(spec *endpoint.Spec, s pool.Settings, opts Options, start time.Time) error {
	shared := &rolestate.Shared{}
	shared.KeepAvoidances(len(p.history.names))
	p.slots.Add(&shared.Marks)
	p.byName[spec.Name] = shared
	var roles []*member
	for _, role := range endpoint.AllRoles() {
		if !Serves(spec, role) {
			continue
		}
		rs := p.roles[role]
		var m *member
		ro := rolestate.Options{OnSlotFreed: func() { rs.queue.freed(m) }, Ejection: s.Ejection,
			DoubtWindow: p.doubtWindow, Shared: shared}
		if opts.NewBucket != nil {
			ro.Bucket = opts.NewBucket(spec, role)
		}
		ro.OnStateChange = p.onStateChange(rs, spec.Name, role)
		rt, err := rolestate.New(spec, role, start, ro)
		if err != nil {
			return err
		}
		p.all = append(p.all, rt)
		m = &member{rt: rt, pool: p, spec: spec, idx: len(rs.ordered), timeout: rt.Limits().RequestTimeout}
		rs.ordered = append(rs.ordered, m)
		roles = append(roles, m)
		rs.addToTier(m)
	}
	all := make([]*rolestate.Runtime, len(roles))
	for j, m := range roles {
		all[j] = m.rt
	}
	for _, m := range roles {
		m.endpoint = all
	}
	return nil
}

// addToTier adds m to the last tier of rs, or to a new one when m's tier
// is not the last's (members come sorted by tier), and keeps rs.timeout
// the shortest RequestTimeout.
func (rs *roleSet) addToTier(m *member) {
	if n := len(rs.tiers); n == 0 || rs.tiers[n-1].members[0].spec.Tier != m.spec.Tier {
		rs.tiers = append(rs.tiers, &tierGroup{})
	}
	g := rs.tiers[len(rs.tiers)-1]
	g.members = append(g.members, m)
	if rs.timeout == 0 || m.timeout < rs.timeout {
		rs.timeout = m.timeout
	}
}

// onStateChange returns the OnStateChange hook of one (endpoint, role) of
// rs: an ejection wakes every request waiting in the role, for it may put
// some in panic mode (scan), where the ejected endpoint's free slots, and
// any other's, serve them; and a logger, when there is one, hears of
// every change.
func (p *Pool) onStateChange(rs *roleSet, name string, role endpoint.Role) func(from, to endpoint.Health) {
	return func(from, to endpoint.Health) {
		if to == endpoint.Ejected {
			rs.queue.all()
		}
		if p.log != nil {
			p.log.LogAttrs(context.Background(), slog.LevelDebug, "pool: endpoint state changed",
				slog.String("endpoint", name), slog.String("role", role.String()),
				slog.String("from", from.String()), slog.String("to", to.String()))
		}
	}
}

// roleSet returns the candidates of role, or nil for an unknown role.
func (p *Pool) roleSet(role endpoint.Role) *roleSet {
	if int(role) >= len(p.roles) {
		return nil
	}
	return p.roles[role]
}

// DefaultTimeout is the smallest RequestTimeout among the endpoints that
// serve req's role with its capabilities (only req.Endpoint when set; a
// *NoEndpointError naming req.Method if none). Callers that make several
// attempts compute one deadline from it and pass it in every Request.
func (p *Pool) DefaultTimeout(req Request) (time.Duration, error) {
	var sel selection
	if !p.selection(&sel, &Request{Role: req.Role, Capabilities: req.Capabilities, Endpoint: req.Endpoint}) {
		return 0, &NoEndpointError{Method: req.Method, Role: req.Role, Capabilities: req.Capabilities}
	}
	return sel.timeout, nil
}

// HasAlternative reports whether an endpoint outside avoid can take req
// (its role, capabilities and slot): one that serves them, that the
// cluster guard lets through (not excluded, not awaiting its check), and,
// for a read that carries a floor, that is not unproven at it (nothing
// fresh known of its slot, and nothing says it answers: lastresort.go).
// It is the rule Acquire applies Avoid by, so a retry told it can go
// elsewhere is never held for an endpoint that will not serve it. It does
// not look at who is free now: limits, cooldowns and ejections pass.
func (p *Pool) HasAlternative(req Request, avoid []string) bool {
	var sel selection
	return p.selection(&sel, &Request{Role: req.Role, Capabilities: req.Capabilities}) && p.spare(&sel, avoid, req.Slot)
}

// AlternativeBefore is HasAlternative for an attempt the transport may
// cut: whether an endpoint outside avoid and other takes a request of
// role with caps (HasAlternative's rule) and could admit it before
// deadline. One does unless a cooldown known now, a provider's rate limit
// or an ejection, lasts until deadline or later (rolestate.Runtime.CooledPast);
// an ejected one still counts when ejections hold back more than half of
// those left, for the scan's panic mode then admits it at once. Limits
// and concurrency pass, as in HasAlternative: a token or a slot frees up
// within a call's budget. It allocates nothing, reads no clock, and
// stops at the first endpoint free of a cooldown.
func (p *Pool) AlternativeBefore(role endpoint.Role, caps, avoid []string, other string, deadline time.Time) bool {
	var sel selection
	if !p.selection(&sel, &Request{Role: role, Capabilities: caps}) {
		return false
	}
	seen, ejected := 0, 0
	for _, m := range sel.rs.ordered {
		if _, ok := sel.takes(m); !ok || m.spec.Name == other || slices.Contains(avoid, m.spec.Name) {
			continue
		}
		cooled, ej := m.rt.CooledPast(deadline)
		if !cooled {
			return true
		}
		seen++
		if ej {
			ejected++
		}
	}
	return 2*ejected > seen
}

// Clock returns the pool's clock, for callers that must wait on the same
// time line (retry backoff).
func (p *Pool) Clock() clockwork.Clock { return p.clock }

// Specs returns a copy of the endpoint specs, in configuration order. It is
// for the transport, which needs URLs and headers; never print them.
func (p *Pool) Specs() []endpoint.Spec {
	out := make([]endpoint.Spec, len(p.specs))
	for i := range p.specs {
		out[i] = cloneSpec(p.specs[i])
	}
	return out
}

// Snapshot copies every (endpoint, role) state at one instant, ordered by
// tier, then configuration order, then role.
func (p *Pool) Snapshot() []endpoint.Snapshot {
	now := p.clock.Now()
	out := make([]endpoint.Snapshot, len(p.all))
	var admitted [endpoint.RoleSend + 1]uint64
	for i, rt := range p.all {
		out[i] = rt.SnapshotAt(now)
		admitted[out[i].Role] += out[i].Admitted
	}
	for i := range out {
		if n := admitted[out[i].Role]; n > 0 {
			out[i].Share = float64(out[i].Admitted) / float64(n)
		}
		out[i].History = p.specs[p.specIndex(out[i].Name)].History
		out[i].Avoided = p.history.avoidedAt(p.byName[out[i].Name], now)
	}
	return out
}

// specIndex is the index in p.specs of the endpoint named name.
func (p *Pool) specIndex(name string) int {
	return slices.IndexFunc(p.specs, func(s endpoint.Spec) bool { return s.Name == name })
}

// Outstanding returns how many permits are held now, over every endpoint
// and role: permits acquired and not yet given back by an outcome or
// Release. When no Acquire or outcome runs concurrently, a non-zero count
// means a permit was dropped without release.
func (p *Pool) Outstanding() int {
	n := 0
	for _, rt := range p.all {
		n += rt.InFlight()
	}
	return n
}
