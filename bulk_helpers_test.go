package solroute_test

import (
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/transport"
)

// bulkKey is the i-th key of a bulk test: i+1 in its first 8 bytes, never
// the zero key.
func bulkKey(i int) solana.PublicKey {
	var k solana.PublicKey
	binary.BigEndian.PutUint64(k[:8], uint64(i)+1)
	k[31] = 0xb1
	return k
}

// bulkKeys returns keys 0..n-1.
func bulkKeys(n int) []solana.PublicKey {
	keys := make([]solana.PublicKey, n)
	for i := range keys {
		keys[i] = bulkKey(i)
	}
	return keys
}

// bulkHasAccount says which keys the ledger holds an account for: every
// 97th, so that each chunk of 100 holds one or two, at a different offset
// in each (a chunk out of place, or a value out of place in its chunk,
// shows), while the answers stay small.
func bulkHasAccount(i int) bool { return i%97 == 0 }

// front is what every endpoint's server side counts in a bulk test: the
// requests in flight across all endpoints (now and at the peak) and the
// requests in all. A gate, when set, holds the requests after the first
// pass until gate are in flight at once, then lets every request through:
// a cap that is not kept shows as a peak above it.
type front struct {
	inFlight, peak, requests atomic.Int64
	gate, pass               int64
	// latency, when set, is how long each request takes on the real
	// clock (benchmarks only); limited, when set, gives each endpoint a
	// provider's limit: a request past it is answered 429 (counted in
	// refused).
	latency  time.Duration
	limited  func() allower
	refused  atomic.Int64
	gateOnce sync.Once
	open     chan struct{}
}

// allower is a provider's limit: Allow reports whether one more request
// is within it now (rate.Limiter is one, a window another).
type allower interface{ Allow() bool }

// window is a provider's limit over fixed 1 s windows on the real clock:
// at most limit requests in each second (benchmarks only).
type window struct {
	mu    sync.Mutex
	limit int
	start time.Time
	count int
}

// Allow counts one request in the current second, if there is room.
func (w *window) Allow() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if now := time.Now().Truncate(time.Second); !now.Equal(w.start) {
		w.start, w.count = now, 0
	}
	if w.count >= w.limit {
		return false
	}
	w.count++
	return true
}

// newFront returns a front whose gate (0: none) lets the first pass
// requests through (a bulk read's first chunk runs alone).
func newFront(gate, pass int) *front {
	f := &front{gate: int64(gate), pass: int64(pass), open: make(chan struct{})}
	if gate == 0 {
		f.gateOnce.Do(func() { close(f.open) })
	}
	return f
}

// wrap returns a loopback server in front of target: each request is
// counted, held by the gate, then proxied.
func (f *front) wrap(t testing.TB, target string) *httptest.Server {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.Transport = &http.Transport{MaxIdleConnsPerHost: 256}
	var lim allower
	if f.limited != nil {
		lim = f.limited()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if lim != nil && !lim.Allow() {
			f.refused.Add(1)
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":429,"message":"Too many requests"},"id":1}`))
			return
		}
		n := f.inFlight.Add(1)
		defer f.inFlight.Add(-1)
		if f.requests.Add(1) <= f.pass {
			proxy.ServeHTTP(w, r)
			return
		}
		for {
			p := f.peak.Load()
			if n <= p || f.peak.CompareAndSwap(p, n) {
				break
			}
		}
		if n >= f.gate {
			f.gateOnce.Do(func() { close(f.open) })
		}
		select {
		case <-f.open:
		case <-r.Context().Done():
			return
		}
		if f.latency > 0 {
			tm := time.NewTimer(f.latency)
			defer tm.Stop()
			select {
			case <-tm.C:
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// bulkFixture is a bulk test's cluster: servers on a ledger holding the
// accounts of bulkHasAccount among keys 0..accounts-1, each behind the
// front, and a client of them.
type bulkFixture struct {
	cluster *fixtures.Cluster
	ledger  *fixtures.Ledger
	clock   *clockwork.FakeClock
	front   *front
	client  *solroute.Client
}

// newBulkFixture starts it: names are the members, lags their slot lag,
// scripts their scripts (nil: none), accounts how many keys the ledger
// covers. The accounts have landed at every server's finalized bank
// when it returns.
func newBulkFixture(t testing.TB, f *front, accounts int, lags []uint64, scripts []fixtures.Script) *bulkFixture {
	t.Helper()
	return newLimitedBulkFixture(t, f, accounts, lags, scripts, endpoint.Limits{})
}

// newLimitedBulkFixture is newBulkFixture with read limits on every
// endpoint.
func newLimitedBulkFixture(t testing.TB, f *front, accounts int, lags []uint64, scripts []fixtures.Script, read endpoint.Limits) *bulkFixture {
	t.Helper()
	return bulkFixtureOf(t, f, accounts, lags, scripts, read, false)
}

// bulkFixtureOf is newLimitedBulkFixture, with the client on the
// servers' fake clock when fakeClient is set (its buckets then never
// refill and every latency it measures is 0: no estimate).
func bulkFixtureOf(t testing.TB, f *front, accounts int, lags []uint64, scripts []fixtures.Script, read endpoint.Limits, fakeClient bool) *bulkFixture {
	t.Helper()
	clock := clockwork.NewFakeClock()
	ledger := fixtures.NewLedger()
	members := make([]fixtures.Member, len(lags))
	for i := range members {
		members[i] = fixtures.Member{Name: string(rune('a' + i)), Read: &read}
		members[i].Options = fixtures.Options{Clock: clock, Ledger: ledger,
			Slots: &fixtures.SlotOptions{Lag: lags[i]}, Script: scripts[i]}
	}
	cl := fixtures.NewCluster(members)
	t.Cleanup(cl.Close)
	change := fixtures.Change{Accounts: map[string]*fixtures.AccountState{}}
	for i := 0; i < accounts; i++ {
		if bulkHasAccount(i) {
			change.Accounts[bulkKey(i).String()] = &fixtures.AccountState{Lamports: uint64(i) + 1}
		}
	}
	if _, _, err := ledger.Apply(change); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Duration(40+maxLag(lags)) * 400 * time.Millisecond) // landed everywhere, finalized
	eps := cl.Endpoints()
	for i := range eps {
		eps[i].URL = f.wrap(t, eps[i].URL).URL
	}
	ts := transport.DefaultSettings()
	ts.Retry = retrySettings()
	// No attempt is cut for slowness on a loaded machine: a cut attempt
	// is retried while its server may still be tearing it down, which
	// the front would count as one more in flight.
	ts.AttemptTimeout = time.Minute
	opts := solroute.Options{Endpoints: eps, Transport: &ts}
	if fakeClient {
		opts.Hooks.Clock = clock
	}
	c, err := solroute.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &bulkFixture{cluster: cl, ledger: ledger, clock: clock, front: f, client: c}
}

func maxLag(lags []uint64) uint64 {
	m := uint64(0)
	for _, l := range lags {
		m = max(m, l)
	}
	return m
}

// checkAccounts fails t unless got holds keys 0..n-1's accounts in order:
// bulkHasAccount's with lamports i+1, nil elsewhere; skip names ranges
// expected nil.
func checkAccounts(t testing.TB, got []*rpc.Account, n int, skip ...[2]int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%d values for %d keys", len(got), n)
	}
	bad := 0
	for i, a := range got {
		want := bulkHasAccount(i) && !inRanges(i, skip)
		switch {
		case want && (a == nil || a.Lamports != uint64(i)+1):
			bad++
			if bad < 5 {
				t.Errorf("key %d: got %+v, want lamports %d", i, a, i+1)
			}
		case !want && a != nil:
			bad++
			if bad < 5 {
				t.Errorf("key %d: got %+v, want nil", i, a)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d values wrong", bad, n)
	}
}

func inRanges(i int, rs [][2]int) bool {
	for _, r := range rs {
		if i >= r[0] && i < r[1] {
			return true
		}
	}
	return false
}
