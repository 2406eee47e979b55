package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// TestSoakMainnet (issue 20) runs a bot's steady workload, paced, over
// fixtures.Mainnet: the preset cluster a test gets without asking, with
// nothing on top of it, on its default settings. Seven endpoints drift 0
// to 5 slots behind the tip, one lies, one fails fast with node errors,
// one garbles answers, one never answers, and the chain stalls 12 s (the
// preset's stalls, the first moved to mainnetStallFirst so that every run
// goes through one, the next about 30 s later, not 90: the long form
// goes through two). Three honest endpoints answer every
// request at every moment, so on top of the checks of TestSoak over the
// same behaviours (no read back in time, no minContextSlot past every
// endpoint, no node error taken for the call's answer, no send acted on
// twice) it checks what a user of a real cluster expects first: every
// read that one of them, or the liar (whose lies the client takes for
// answers), can serve succeeds. An endpoint can serve a read when its
// slot at the read's commitment has reached the read's floor, the
// highest slot its caller (its session, or the client's mark) was
// returned before (for getSlot, its own answers too): a read never goes
// back in time. A stall freezes every member where its drift left it,
// and a caller whose mark came from flaky or garbled, ahead of the
// other four, can be served only by that member until the chain moves
// on: those failures are counted and logged, not taken for the
// library's (seed 11: flaky, 0 slots behind the tip, held most
// callers' marks through the stall, one slot past honest-a's).

const (
	// mainnetStallFirst is when the preset's first stall begins here.
	mainnetStallFirst = 2 * time.Second
	// mainnetCallTimeout is every call's context: a bot's budget.
	mainnetCallTimeout = 2 * time.Second
	// mainnetRate paces the whole workload (calls per second): a bot's
	// steady load, not a flood that would starve the other suites.
	mainnetRate = 400
	// mainnetSendEvery makes one call in that many a send.
	mainnetSendEvery = 10
)

func TestSoakMainnet(t *testing.T) {
	t.Parallel()
	seed := soakSeed(t)
	callers, stalls := 32, 1
	if !testing.Short() {
		callers, stalls = 64, 2
	}
	m := newMainnetSoak(t, seed)
	until := m.s.stalls[stalls-1].Until.Add(stallRecovery)
	t.Logf("seed=%d callers=%d until %s past the start: %d stall(s) of the chain (replay: SOLROUTE_SOAK_SEED=%d)",
		seed, callers, time.Until(until).Round(time.Millisecond), stalls, seed)
	m.run(callers, until)
	m.check()
}

// mainnetSoak is one run of TestSoakMainnet; s holds the cluster and the
// checks shared with TestSoak.
type mainnetSoak struct {
	s       *soak
	client  *engine.Engine
	pool    *admission.Pool
	limiter *rate.Limiter

	calls, reads, failed atomic.Int64
	figures              mainnetFigures
	mu                   sync.Mutex
	failures             map[string]int // failed reads by how they ended
	// pinned counts the failed reads whose floor only flaky or garbled
	// had reached by the time they ended, by the members that had.
	pinned map[string]int
	// pinnedFirst is the first such read's error, every attempt shown.
	pinnedFirst string
	sigs        []string // of every send made
	okSends     map[string]bool
}

func newMainnetSoak(t *testing.T, seed uint64) *mainnetSoak {
	st := &fixtures.Stalls{First: fixturedata.MainnetStallFirst, Every: fixturedata.MainnetStallEvery, For: fixturedata.MainnetStallFor, Seed: mix(seed, 0x57a11)}
	st.First, st.Every = mainnetStallFirst, soakStallEvery
	c := fixtures.NewCluster(fixtures.Mainnet(fixtures.MainnetOptions{Seed: seed, Stalls: st}))
	t.Cleanup(c.Close)
	s := &soak{t: t, seed: seed, cluster: c}
	s.stalls = c.Server(fixturedata.MainnetHonestA).StallWindows(time.Now().Add(time.Hour))
	p, err := admission.New(fixturespec.Specs(c), pool.DefaultSettings(), admission.Options{Seed: seed})
	if err != nil {
		t.Fatalf("admission.New: %v", err)
	}
	tc, err := engine.New(p, transport.DefaultSettings(), engine.Options{})
	if err != nil {
		t.Fatalf("engine.New: %v", err)
	}
	t.Cleanup(func() { _ = tc.Close() })
	return &mainnetSoak{s: s, client: tc, pool: p, limiter: rate.NewLimiter(mainnetRate, mainnetRate/10),
		failures: map[string]int{}, pinned: map[string]int{}, okSends: map[string]bool{}}
}

// run makes calls from callers goroutines, paced by the limiter, until
// until; every other caller has a session of its own.
func (m *mainnetSoak) run(callers int, until time.Time) {
	ctx, cancel := context.WithDeadline(context.Background(), until)
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	m.s.workers = make([]*caller, callers)
	for id := range m.s.workers {
		w := &caller{id: id}
		if id%2 == 0 {
			w.session = new(slots.Session)
		}
		m.s.workers[id] = w
		wg.Go(func() {
			for m.limiter.Wait(ctx) == nil {
				m.call(w, int(next.Add(1)-1))
			}
		})
	}
	wg.Wait()
}

// call makes call i for caller w and checks it as it returns.
func (m *mainnetSoak) call(w *caller, i int) {
	m.calls.Add(1)
	h := mix(m.s.seed, uint64(i)^0x3a1)
	ctx, cancel := context.WithTimeout(m.figures.observe(context.Background()), mainnetCallTimeout)
	defer cancel()
	if w.session != nil {
		ctx = engine.WithSession(ctx, w.session)
	}
	if i%mainnetSendEvery == mainnetSendEvery-1 {
		m.send(ctx, i)
		return
	}
	method := [...]string{"getBalance", "getSlot", "getLatestBlockhash"}[h%3]
	var params []any
	if method == "getBalance" {
		params = []any{"11111111111111111111111111111111"}
	}
	params, commitment := withCommitment(params, commitments[(h>>8)%uint64(len(commitments))])
	before := m.s.slots.before(w, commitment, method)
	floor := w.floor(commitment, method, before)
	tip := m.s.cluster.Server(fixturedata.MainnetHonestA).TipSlot(commitment.String())
	start := time.Now()
	var out json.RawMessage
	err := m.client.CallForInto(ctx, &out, method, params)
	m.reads.Add(1)
	m.s.real.read(m.s.inStall(start), err == nil)
	if err != nil {
		m.readFailed(i, method, commitment, floor, err)
		return
	}
	slot, ok := answerSlot(method, out)
	if !ok {
		m.s.bad.add("%s: call %d (%s, %s) succeeded with no slot in its answer: %.200s", w, i, method, commitment, out)
		return
	}
	m.s.slots.check(&m.s.bad, w, returned{slot: slot, call: i, method: method, caller: w.id}, commitment, before, tip, lagBehind)
}

// floor is the least slot a read of method by w at commitment c may
// return, as far as the soak knows before it starts: the highest slot
// returned to w's session, or to w and the client's mark (before), at c;
// context slots only, but for getSlot, which is held to its own answers
// too. The client's floor may be higher (bounded staleness, a mark
// raised by a call still returning), never lower.
func (w *caller) floor(c slots.Commitment, method string, before *returned) uint64 {
	floor := w.banked[c].slot
	if method == "getSlot" {
		floor = max(floor, w.last[c].slot)
	}
	if before != nil {
		floor = max(floor, before.slot)
	}
	return floor
}

// readFailed records a failed read of method at commitment c whose floor
// was floor: a violation when an endpoint that answers every read had
// reached it when the read ended (slots never go back: it could serve
// the read at least then), else counted as pinned to the members that
// had. Those that answer every read are the three honest ones and the
// liar: its lies (a block height, a getSlot 3 ahead of its banks, a
// status cache) are answers the client takes.
func (m *mainnetSoak) readFailed(i int, method string, c slots.Commitment, floor uint64, err error) {
	m.failed.Add(1)
	reached, others := "", []string{}
	for _, ep := range m.s.cluster.Endpoints() {
		slot := m.s.cluster.Server(ep.Name).Slot(c.String())
		switch ep.Name {
		case fixturedata.MainnetDead:
			continue
		case fixturedata.MainnetLiar:
			if method == "getSlot" {
				slot += fixturedata.MainnetSlotAhead
			}
			fallthrough
		case fixturedata.MainnetHonestA, fixturedata.MainnetHonestB, fixturedata.MainnetHonestC:
			if slot >= floor && reached == "" {
				reached = fmt.Sprintf("%s (at %d)", ep.Name, slot)
			}
			continue
		}
		if slot >= floor {
			others = append(others, ep.Name)
		}
	}
	var ce *transport.CallError
	shown := any(err)
	if errors.As(err, &ce) {
		shown = ce // its %+v lists every attempt
	}
	if reached != "" {
		m.s.bad.addAs("a read failed although an endpoint that answers every read had reached its floor",
			"call %d (%s, %s) failed although %s had reached its floor %d: %+v", i, method, c, reached, floor, shown)
	} else {
		m.mu.Lock()
		m.pinned[strings.Join(others, "+")]++
		if m.pinnedFirst == "" {
			m.pinnedFirst = fmt.Sprintf("call %d (%s, %s), floor %d: %+v", i, method, c, floor, shown)
		}
		m.mu.Unlock()
	}
	how := "not a *transport.CallError"
	if ce != nil {
		how = ce.Cause.String()
		if n := len(ce.Attempts); n > 0 {
			a := ce.Attempts[n-1]
			how = fmt.Sprintf("%s, %d attempts, last %s/%d: %s", ce.Cause, n, a.Endpoint, a.RPCCode, a.Decision.Reason)
		}
		m.s.checkEndpointError(i, method, ce)
	}
	m.mu.Lock()
	m.failures[how]++
	m.mu.Unlock()
}

// send sends a fresh signed transaction once.
func (m *mainnetSoak) send(ctx context.Context, i int) {
	tx, err := fixtures.SignedTransaction(m.s.seed<<24+uint64(i), "")
	if err != nil {
		m.s.bad.add("send %d: %v", i, err)
		return
	}
	wire, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		m.s.bad.add("send %d: %v", i, err)
		return
	}
	sig := tx.Signatures[0].String()
	var got string
	err = m.client.CallForInto(ctx, &got, "sendTransaction", []any{wire, map[string]any{"encoding": "base64", "skipPreflight": true}})
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sigs = append(m.sigs, sig)
	m.okSends[sig] = err == nil
}

// check runs the end-of-run checks, reports every violation and logs the
// figures.
func (m *mainnetSoak) check() {
	s := m.s
	m.checkSends()
	s.slots.checkSessions(&s.bad, s.workers)
	s.checkFloors()
	if len(s.stalls) == 0 || time.Now().Before(s.stalls[0].Until) {
		s.bad.add("the run ended before the chain's first stall did")
	}
	if n := m.pool.Outstanding(); n != 0 {
		s.bad.add("%d permits still held after every call returned", n)
	}
	if err := m.client.Close(); err != nil {
		s.bad.add("client.Close: %v", err)
	}
	s.bad.report(s.t)
	rd := func(a, b int) int64 { return s.real.reads[a][b].Load() }
	var hows []string
	for _, how := range slices.Sorted(maps.Keys(m.failures)) {
		hows = append(hows, fmt.Sprintf("%d: %s", m.failures[how], how))
	}
	s.t.Logf("mainnet soak: %d calls, %d reads (%d failed), %d sends; reads in a stall: %d ok, %d failed; outside: %d ok, %d failed; monotonic reads checked %d; failed reads by how they ended: %v",
		m.calls.Load(), m.reads.Load(), m.failed.Load(), len(m.sigs), rd(1, 1), rd(1, 0), rd(0, 1), rd(0, 0), s.slots.reads.Load(), hows)
	s.t.Logf("mainnet soak: failed reads whose floor only flaky or garbled had reached, by the members that had: %v; the first: %s", m.pinned, m.pinnedFirst)
	m.figures.log(m)
}

// checkSends checks every send against what the servers received: acted
// on at most once over the cluster, and exactly once when it succeeded.
func (m *mainnetSoak) checkSends() {
	forwards := map[string]int{}
	for _, ep := range m.s.cluster.Endpoints() {
		_, srv := ep.Name, m.s.cluster.Server(ep.Name)
		for _, r := range srv.Requests() {
			if r.Method == "sendTransaction" && r.Forwarded() {
				forwards[r.Signature]++
			}
		}
	}
	for _, sig := range m.sigs {
		switch n := forwards[sig]; {
		case n > 1:
			m.s.bad.addAs("a send acted on more than once", "send %s: acted on %d times across the cluster (succeeded: %v)", sig, n, m.okSends[sig])
		case m.okSends[sig] && n != 1:
			m.s.bad.add("send %s: succeeded but acted on %d times", sig, n)
		}
	}
	if len(m.sigs) == 0 {
		m.s.bad.add("no send was made")
	}
}
