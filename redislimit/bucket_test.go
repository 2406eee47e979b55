package redislimit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/redistest"
)

// checkCumulative fails when the k-th admission (1-based) at instant at[k]
// is more than burst + rate × (at[k] − start) + slack: the bucket's
// bound from a full start.
func checkCumulative(t *testing.T, at []time.Time, start time.Time, rate float64, burst, slack int) {
	t.Helper()
	for k, a := range at {
		if allowed := float64(burst+slack) + rate*a.Sub(start).Seconds(); float64(k+1) > allowed+1e-9 {
			t.Fatalf("admission %d at +%v: more than %.2f allowed by then", k+1, a.Sub(start), allowed)
		}
	}
}

// TestLeaseAdmitsAtTheQuota: one replica, callers always waiting: the
// admissions follow rate and burst exactly (a full burst, then one per
// interval) and none comes early.
func TestLeaseAdmitsAtTheQuota(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:"}, Options{})
	b := r.bucket("a", 10, 10)
	var at []time.Time
	for range 40 {
		at = append(at, r.takeOrWait(b))
	}
	checkCumulative(t, at, epoch, 10, 10, 0)
	// 10 at once, then 30 at 10 per second: 3 s, plus a round-trip poll
	// or two (50 µs each on a fake clock).
	if d := at[len(at)-1].Sub(epoch); d < 3*time.Second || d > 3*time.Second+5*time.Millisecond {
		t.Errorf("40 admissions took %v, want 3 s", d)
	}
	st := r.l.Stats()
	if st.Taken != 40 || st.Errors != 0 || st.Down || st.Fallbacks != 0 {
		t.Errorf("stats %+v", st)
	}
	if st.Ops >= 40 {
		t.Errorf("%d round trips for 40 admissions: leases should take several tokens each", st.Ops)
	}
}

// TestReplicasShareOneBucket: two limiters (two clients, as two
// processes) on one server and prefix draw on one bucket per (endpoint,
// role): 60 admissions at 10 per second with a burst of 10 take 5 s, not
// the 2.5 s two separate buckets would take; other names and prefixes
// are other buckets.
func TestReplicasShareOneBucket(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	clock := clockwork.NewFakeClockAt(epoch)
	s := config.Limits{KeyPrefix: "shared:", Replicas: 2}
	a := newRig(t, srv, s, Options{Clock: clock})
	b := newRig(t, srv, s, Options{Clock: clock})
	ba, bb := a.bucket("provider", 10, 10), b.bucket("provider", 10, 10)
	var at []time.Time
	for i := range 60 {
		if i%2 == 0 {
			at = append(at, a.takeOrWait(ba))
		} else {
			at = append(at, b.takeOrWait(bb))
		}
	}
	// Leased but unspent tokens may move admissions: at most Replicas ×
	// the lease cap (burst / Replicas = 5).
	checkCumulative(t, at, epoch, 10, 10, 2*5)
	if d := at[len(at)-1].Sub(epoch); d < 4500*time.Millisecond {
		t.Errorf("60 admissions took %v: the two limiters do not share the bucket (want about 5 s)", d)
	}

	// Another name, another prefix: full buckets of their own.
	other := b.bucket("other", 10, 10)
	c := newRig(t, srv, config.Limits{KeyPrefix: "elsewhere:", Replicas: 2}, Options{Clock: clock})
	third := c.bucket("provider", 10, 10)
	for _, x := range []struct {
		r  *rig
		bk *bucket
	}{{b, other}, {c, third}} {
		start := clock.Now()
		for range 5 {
			x.r.takeOrWait(x.bk)
		}
		if d := clock.Since(start); d > 5*time.Millisecond {
			t.Errorf("%s: 5 admissions took %v: not a full bucket of its own", x.bk.key, d)
		}
	}
}

// leased returns the tokens b holds.
func leased(b *bucket) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tokens
}

// TestKeyIsNameAndRole: the key is the prefix, the endpoint's name and the
// role, and no key holds anything of the URL.
func TestKeyIsNameAndRole(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "solroute:"}, Options{})
	spec := &endpoint.Spec{Name: "primary-a", URL: endpoint.NewSecret("https://" + marker + ".example/?api-key=" + marker),
		Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {RequestsPerSecond: 5}, endpoint.RoleSend: {}}}
	if r.l.NewBucket(spec, endpoint.RoleSend) != nil {
		t.Error("a role without a rate got a shared bucket: want nil (the pool's unlimited one)")
	}
	if r.l.NewBucket(&endpoint.Spec{Name: "x"}, endpoint.RoleRead) != nil {
		t.Error("a role the spec does not serve got a bucket")
	}
	b := r.l.NewBucket(spec, endpoint.RoleRead).(*bucket)
	r.takeOrWait(b)
	ctx, cancel := context.WithTimeout(context.Background(), answerWait)
	defer cancel()
	if got, err := r.srv.Do(ctx, "EXISTS", "solroute:primary-a:read"); err != nil || got != ":1" {
		t.Errorf("EXISTS solroute:primary-a:read = %q, %v; want :1", got, err)
	}
	if got, err := r.srv.Do(ctx, "DBSIZE"); err != nil || got != ":1" {
		t.Errorf("DBSIZE = %q, %v; want one key", got, err)
	}
}

// TestRefusalGivesAnHonestReadyAt: with the shared bucket empty, ReadyAt
// is the instant the next token comes (plus the round-trip estimate, 50 µs
// on a fake clock), and a take there succeeds.
func TestRefusalGivesAnHonestReadyAt(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:"}, Options{})
	b := r.bucket("a", 1, 5)
	for range 5 {
		r.takeOrWait(b)
	}
	start := r.clock.Now()
	if start.Sub(epoch) > time.Millisecond {
		t.Fatalf("the burst of 5 took %v", start.Sub(epoch))
	}
	if r.take(b) {
		t.Fatal("a sixth token within the burst's instant")
	}
	ready := b.ReadyAt(r.clock.Now())
	if ready.Before(epoch.Add(time.Second)) || ready.After(epoch.Add(time.Second+time.Millisecond)) {
		t.Fatalf("ReadyAt = +%v, want +1s (the next token) and a round trip at most", ready.Sub(epoch))
	}
	if got := r.takeOrWait(b); got.After(ready.Add(time.Millisecond)) {
		t.Errorf("admitted at +%v, ReadyAt said +%v", got.Sub(epoch), ready.Sub(epoch))
	}
}

// TestLeaseExpires: tokens leased and not spent within LeaseTTL are
// dropped and counted.
func TestLeaseExpires(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:"}, Options{LeaseTTL: 200 * time.Millisecond})
	b := r.bucket("a", 1000, 1000)
	// A demand of thousands per second: leases of the cap (32).
	for range 100 {
		r.takeOrWait(b)
	}
	if got := b.TokensAt(r.clock.Now()); got < 1 {
		t.Fatalf("TokensAt = %v after a busy stretch: want a lease held", got)
	}
	r.clock.Advance(200 * time.Millisecond)
	if got := b.TokensAt(r.clock.Now()); got != 0 {
		t.Errorf("TokensAt = %v past the lease's lifetime, want 0", got)
	}
	r.take(b)
	if st := r.l.Stats(); st.Expired == 0 {
		t.Errorf("stats %+v: want expired tokens counted", st)
	}
}

// TestSecondReplicaWaitsItsTurn: a replica that finds the shared bucket
// emptied by another is refused and asks again later (with a jitter), not
// at every TakeAt.
func TestSecondReplicaWaitsItsTurn(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	clock := clockwork.NewFakeClockAt(epoch)
	s := config.Limits{KeyPrefix: "t:", Replicas: 2}
	a := newRig(t, srv, s, Options{Clock: clock})
	b := newRig(t, srv, s, Options{Clock: clock})
	ba, bb := a.bucket("p", 10, 10), b.bucket("p", 10, 10)
	for range 10 {
		a.takeOrWait(ba)
	}
	// ba holds what it leased; the shared bucket is empty.
	if b.take(bb) {
		t.Fatal("the second replica got a token from an emptied bucket")
	}
	before := b.l.Stats().Requests
	for range 100 {
		if bb.TakeAt(clock.Now()) {
			t.Fatal("admitted from an empty shared bucket")
		}
	}
	if got := b.l.Stats().Requests - before; got != 0 {
		t.Errorf("%d requests while Redis said the bucket is empty: want none before the instant it gave", got)
	}
	if ready := bb.ReadyAt(clock.Now()); !ready.After(clock.Now()) {
		t.Errorf("ReadyAt = now while refused")
	}
}

// TestDownAtStartFallsBackToTheShare: a server that cannot be reached is
// no error; the buckets admit at rate / Replicas from an empty start, the
// fallback is logged once and counted, and nothing printed names the
// address or the password.
func TestDownAtStartFallsBackToTheShare(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	srv.Kill()
	url := "redis://u" + marker + ":p" + marker + "@" + srv.Addr() + "/0"
	r := newRig(t, srv, config.Limits{URL: endpoint.NewSecret(url), Replicas: 4}, Options{})
	st := r.l.Stats()
	if !st.Down || st.Fallbacks != 1 {
		t.Fatalf("stats %+v: want down, one fallback", st)
	}
	b := r.bucket("a", 20, 20) // share: 5 per second, burst 5, empty at first
	var at []time.Time
	for range 10 {
		at = append(at, r.takeOrWait(b))
	}
	if first := at[0].Sub(epoch); first != 200*time.Millisecond {
		t.Errorf("first admission at +%v, want +200ms (the share starts empty)", first)
	}
	if last := at[9].Sub(epoch); last != 2*time.Second {
		t.Errorf("tenth admission at +%v, want +2s (5 per second)", last)
	}
	logs := r.logs.String()
	if strings.Count(logs, "redis not answering") != 1 || !strings.Contains(logs, "reason=unreachable") {
		t.Errorf("logs: want one fallback line with its reason:\n%s", logs)
	}
	for _, secret := range []string{marker, srv.Addr()} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log shows %s:\n%s", secret, logs)
		}
	}
	if st := r.l.Stats(); st.FallbackTaken != 10 {
		t.Errorf("stats %+v: want 10 admissions from the fallback", st)
	}
}

// TestKilledThenRestarted: a server killed under a lease: the lease is
// spent, the next request fails and the bucket falls back to its share
// (no TakeAt waits); restarted, the next probe (RetryInterval later) brings
// the limiter back and admissions come from leases again.
func TestKilledThenRestarted(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:", Replicas: 2}, Options{})
	b := r.bucket("a", 100, 100)
	for range 50 {
		r.takeOrWait(b)
	}
	r.srv.Kill()
	// Spend until a request fails: the lease's last tokens, then the
	// failure lands as an answer.
	deadline := r.clock.Now().Add(time.Minute)
	for !r.l.Stats().Down {
		if r.clock.Now().After(deadline) {
			t.Fatal("still not down a minute after the kill")
		}
		r.takeOrWait(b)
	}
	st := r.l.Stats()
	if st.Fallbacks != 1 || st.Errors == 0 {
		t.Fatalf("stats %+v: want one fallback", st)
	}
	// The lease's last tokens, then the share: 50 per second, from empty.
	for leased(b) > 0 {
		r.takeOrWait(b)
	}
	start := r.clock.Now()
	for range 25 {
		r.takeOrWait(b)
	}
	if d := r.clock.Since(start); d < 480*time.Millisecond || d > 520*time.Millisecond {
		t.Errorf("25 admissions on the fallback took %v, want 500ms (50 per second)", d)
	}
	r.srv.Restart()
	r.advance(defaultRetryInterval)
	deadline = r.clock.Now().Add(time.Minute)
	for r.l.Stats().Down {
		if r.clock.Now().After(deadline) {
			t.Fatal("still down a minute after the restart")
		}
		r.takeOrWait(b)
	}
	taken := r.l.Stats().Taken
	for range 20 {
		r.takeOrWait(b)
	}
	st = r.l.Stats()
	if st.Recoveries != 1 || st.Taken < taken+15 {
		t.Errorf("stats %+v: want one recovery and admissions from leases again", st)
	}
	if logs := r.logs.String(); !strings.Contains(logs, "redis answering again") {
		t.Errorf("no recovery line in the log:\n%s", logs)
	}
}

// TestSlowRedisIsAbandoned: a server that stops answering (SIGSTOP) holds
// no caller: after OpTimeout on the clock the request is given up, the
// bucket admits from its share, and the limiter comes back once the
// server answers a probe.
func TestSlowRedisIsAbandoned(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:", Replicas: 2}, Options{OpTimeout: time.Second})
	b := r.bucket("a", 10, 10)
	r.takeOrWait(b)
	r.srv.Pause()
	var resumed bool
	defer func() {
		if !resumed {
			r.srv.Resume()
		}
	}()
	// Spend the lease; the request it then starts hangs.
	for b.TakeAt(r.clock.Now()) {
	}
	if r.l.Stats().Requests == 0 {
		t.Fatal("no request started")
	}
	if b.TakeAt(r.clock.Now()) {
		t.Fatal("admitted with an empty lease and a request in flight")
	}
	ready := b.ReadyAt(r.clock.Now())
	if !ready.After(r.clock.Now()) || ready.After(r.clock.Now().Add(time.Second)) {
		t.Fatalf("ReadyAt = +%v with a request in flight: want after now, within OpTimeout", ready.Sub(r.clock.Now()))
	}
	r.clock.Advance(time.Second)
	if b.TakeAt(r.clock.Now()) {
		t.Fatal("the fallback starts empty")
	}
	if st := r.l.Stats(); !st.Down || st.Fallbacks != 1 {
		t.Fatalf("stats %+v: the request unanswered for OpTimeout should count Redis as down", st)
	}
	if d := b.ReadyAt(r.clock.Now()).Sub(r.clock.Now()); d != 200*time.Millisecond {
		t.Errorf("ReadyAt on the fallback = +%v, want +200ms (5 per second)", d)
	}
	// The hung request ends by go-redis's own read timeout (real time);
	// then the server is resumed and answers the next probe.
	r.answered(1)
	r.srv.Resume()
	resumed = true
	r.advance(defaultRetryInterval)
	deadline := r.clock.Now().Add(time.Minute)
	for r.l.Stats().Down {
		if r.clock.Now().After(deadline) {
			t.Fatal("still down after the server was resumed")
		}
		r.takeOrWait(b)
	}
	if st := r.l.Stats(); st.Recoveries != 1 {
		t.Errorf("stats %+v: want one recovery", st)
	}
}

// TestFailClosed: with fail_closed, nothing is admitted while Redis is
// down; ReadyAt is the next probe; once the server is back, admissions
// resume from leases.
func TestFailClosed(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:", FailClosed: true}, Options{})
	b := r.bucket("a", 10, 10)
	r.takeOrWait(b)
	r.srv.Kill()
	for !r.l.Stats().Down {
		if !r.take(b) && !r.l.Stats().Down {
			r.advance(b.ReadyAt(r.clock.Now()).Sub(r.clock.Now()))
		}
	}
	now := r.clock.Now()
	for range 10 {
		if b.TakeAt(now) {
			t.Fatal("admitted while down, failing closed")
		}
	}
	if ready := b.ReadyAt(now); !ready.After(now) || ready.After(now.Add(defaultRetryInterval+time.Millisecond)) {
		t.Errorf("ReadyAt = +%v failing closed: want the next probe (within %v)", ready.Sub(now), defaultRetryInterval)
	}
	if st := r.l.Stats(); st.FallbackTaken != 0 || st.FallbackRefused < 10 {
		t.Errorf("stats %+v: want refusals, no fallback admissions", st)
	}
	if logs := r.logs.String(); !strings.Contains(logs, "fail_closed=true") {
		t.Errorf("the fallback line does not say it fails closed:\n%s", logs)
	}
	r.srv.Restart()
	r.advance(defaultRetryInterval)
	r.takeOrWait(b)
	if st := r.l.Stats(); st.Down || st.FallbackTaken != 0 {
		t.Errorf("stats %+v: want up again, every admission from Redis", st)
	}
}

// TestSetupErrors: credentials or a database the server refuses are an
// error of New, a *SetupError that quotes nothing of the URL.
func TestSetupErrors(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{Password: "right-" + marker})
	// An account let in (PING) but refused the lease script.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := srv.Do(ctx, "ACL", "SETUSER", "pingonly", "on", ">right-"+marker, "~*", "+ping", "+hello", "+auth", "+select", "+client"); err != nil {
		t.Fatal(err)
	}
	open := func(url string) error {
		l, err := New(context.Background(), config.Limits{Backend: config.BackendRedis, URL: endpoint.NewSecret(url), Replicas: 1}, Options{})
		if err == nil {
			return l.Close()
		}
		return err
	}
	for _, tt := range []struct {
		name, url string
		kind      Kind
	}{
		{"right password", "redis://:right-" + marker + "@" + srv.Addr() + "/0", 0},
		{"wrong password", "redis://:wrong-" + marker + "@" + srv.Addr() + "/0", KindAuth},
		{"wrong user", "redis://u" + marker + ":right-" + marker + "@" + srv.Addr() + "/0", KindAuth},
		{"no password", "redis://" + srv.Addr() + "/0", KindAuth},
		{"no such database", "redis://:right-" + marker + "@" + srv.Addr() + "/99", KindDatabase},
		{"no script allowed", "redis://pingonly:right-" + marker + "@" + srv.Addr() + "/0", KindPermission},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := open(tt.url)
			if tt.kind == 0 {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			se, ok := err.(*SetupError)
			if !ok || se.Kind != tt.kind {
				t.Fatalf("New: %v (%T), want a *SetupError of kind %v", err, err, tt.kind)
			}
			for _, secret := range []string{marker, srv.Addr(), "right-", "wrong-"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error shows %q: %v", secret, err)
				}
			}
		})
	}
}

// TestCloseEndsRequestsInFlight: Close returns with a request hanging on a
// stopped server, and a bucket used after Close admits from its fallback
// without starting requests.
func TestCloseEndsRequestsInFlight(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	r := newRig(t, srv, config.Limits{KeyPrefix: "t:"}, Options{OpTimeout: time.Hour})
	b := r.bucket("a", 10, 10)
	r.takeOrWait(b)
	srv.Pause()
	defer srv.Resume()
	for b.TakeAt(r.clock.Now()) {
	}
	if err := r.l.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	requests := r.l.Stats().Requests
	if b.TakeAt(r.clock.Now()) {
		t.Error("after Close, admitted at once: the fallback starts empty")
	}
	r.clock.Advance(time.Second)
	if !b.TakeAt(r.clock.Now()) {
		t.Error("after Close, the fallback refused with a second of its share")
	}
	if got := r.l.Stats().Requests; got != requests {
		t.Errorf("%d requests started after Close", got-requests)
	}
}

// TestLowDemandWastesNothing: a replica calling less than once per half a
// lease's lifetime asks for a token only when a caller needs one (one
// round trip of waiting, one request per call) and so never leases a
// token that expires; a busy one asks ahead and its callers rarely find
// the lease empty.
func TestLowDemandWastesNothing(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:"}, Options{})
	b := r.bucket("a", 100, 100)
	for range 20 {
		r.takeOrWait(b)
		r.clock.Advance(600 * time.Millisecond)
	}
	st := r.l.Stats()
	if st.Expired != 0 || st.Granted != 20 || st.Requests != 20 {
		t.Errorf("stats %+v: want 20 tokens for 20 calls, none expired", st)
	}
	busy := r.bucket("busy", 1000, 1000)
	for range 2000 {
		r.takeOrWait(busy)
		r.clock.Advance(time.Millisecond)
	}
	st2 := r.l.Stats()
	if empty := st2.Empty - st.Empty; empty > 40 {
		t.Errorf("a caller found the lease empty %d times in 2000 calls at 1000/s: want the lease asked for ahead", empty)
	}
	if ops := st2.Ops - st.Ops; ops > 100 {
		t.Errorf("%d round trips for 2000 calls at 1000/s", ops)
	}
}

// TestFullBurstWhateverTheInterval: a fresh bucket grants its whole burst
// at once, for rates whose interval is not a whole number of microseconds
// (b·T / T in floating point lands a hair below b for some of them).
func TestFullBurstWhateverTheInterval(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	now := time.Unix(1_800_000_000, 0)
	n := 0
	for _, rate := range []float64{3, 7, 9, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 49, 97, 333} {
		for _, burst := range []int{1, 2, 3, 5, 7, 11, 13, 25, 49, 100} {
			iv := 1e6 / rate
			n++
			key := fmt.Sprintf("burst:%d", n)
			g, err := lease(context.Background(), c, key, ask{now: now, interval: iv, tolerance: iv * float64(burst), want: burst, least: burst})
			if err != nil {
				t.Fatal(err)
			}
			if g.tokens != burst {
				t.Errorf("rate %v/s, burst %d: a fresh bucket granted %d", rate, burst, g.tokens)
			}
		}
	}
}
