package admission_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

func TestPermitAccessors(t *testing.T) {
	p, _ := newPool(t, ep("a", 2, endpoint.Limits{RequestTimeout: 3 * time.Second}))
	pm := now(t, p, read, "a")
	defer pm.Release()
	if pm.Tier() != 2 || pm.Role() != endpoint.RoleRead || pm.RequestTimeout() != 3*time.Second ||
		!pm.Deadline().Equal(t0.Add(3*time.Second)) || !pm.AdmittedAt().Equal(t0) {
		t.Errorf("permit: tier %d role %v timeout %v deadline +%v admitted +%v",
			pm.Tier(), pm.Role(), pm.RequestTimeout(), pm.Deadline().Sub(t0), pm.AdmittedAt().Sub(t0))
	}
}

// TestFirstOutcomeWins: every outcome method after the first is a no-op,
// even when called concurrently; the slot is returned exactly once.
func TestFirstOutcomeWins(t *testing.T) {
	p, _ := newPool(t, ep("a", 0, endpoint.Limits{MaxConcurrentRequests: 1}))
	pm := now(t, p, read, "a")
	pm.Done(failure())
	pm.Done(success())
	pm.Done(rateLimited(time.Minute))
	pm.Release()
	s := snapshotOf(t, p, "a")
	if s.Failures != 1 || s.Successes != 0 || s.RateLimits != 0 || s.State != endpoint.Degraded || s.InFlight != 0 {
		t.Fatalf("snapshot after a failure and ignored outcomes: %+v", s)
	}

	pm = now(t, p, read, "a")
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			switch i % 4 {
			case 0:
				pm.Done(success())
			case 1:
				pm.Done(failure())
			case 2:
				pm.Done(rateLimited(0))
			case 3:
				pm.Release()
			}
		})
	}
	wg.Wait()
	s = snapshotOf(t, p, "a")
	if outcomes := s.Successes + s.Failures + s.RateLimits; s.InFlight != 0 || outcomes > 2 {
		t.Fatalf("after concurrent outcomes: %+v", s)
	}
}

// TestStateTransitions drives the health machine through permits.
func TestStateTransitions(t *testing.T) {
	p, fc := newPool(t, ep("a", 0, endpoint.Limits{PauseAfterRateLimit: time.Second, RequestTimeout: time.Hour}))
	state := func() endpoint.Health { return snapshotOf(t, p, "a").State }
	steps := []struct {
		outcome string
		want    endpoint.Health
	}{
		{"success", endpoint.Available},
		{"failure", endpoint.Degraded},
		{"failure", endpoint.Degraded},
		{"release", endpoint.Degraded},
		{"success", endpoint.Available}, // degraded -> available
		{"ratelimit", endpoint.RateLimited},
		{"success", endpoint.Available}, // after the cooldown: degraded, then this success
		{"failure", endpoint.Degraded},
		{"ratelimit", endpoint.RateLimited},
	}
	for i, s := range steps {
		pm, err := p.Acquire(context.Background(), read)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		switch s.outcome {
		case "success":
			pm.Done(success())
		case "failure":
			pm.Done(failure())
		case "ratelimit":
			pm.Done(rateLimited(0))
			if state() != s.want {
				t.Fatalf("step %d: state %v, want %v", i, state(), s.want)
			}
			fc.Advance(time.Second)
			if state() != endpoint.Degraded {
				t.Fatalf("step %d: state after the cooldown %v, want degraded", i, state())
			}
			continue
		case "release":
			pm.Release()
		}
		if state() != s.want {
			t.Fatalf("step %d (%s): state %v, want %v", i, s.outcome, state(), s.want)
		}
	}
}

// TestSnapshotOrderAndSpecs: tier, then configuration order, then role;
// Specs is a deep copy.
func TestSnapshotOrderAndSpecs(t *testing.T) {
	both := ep("both", 1, endpoint.Limits{})
	both.Roles[endpoint.RoleSend] = endpoint.Limits{}
	both.Headers = map[string]endpoint.Secret{"X": endpoint.NewSecret("y")}
	p, _ := newPool(t, both, ep("late", 2, endpoint.Limits{}), ep("first", 0, endpoint.Limits{}), ep("second", 1, endpoint.Limits{}))
	var got []string
	for _, s := range p.Snapshot() {
		got = append(got, s.Name+"/"+s.Role.String())
	}
	want := "first/read both/read both/send second/read late/read"
	if joined := join(got); joined != want {
		t.Errorf("order %q, want %q", joined, want)
	}
	specs := p.Specs()
	specs[0].Headers["X"] = endpoint.NewSecret("changed")
	specs[0].Roles[endpoint.RoleRead] = endpoint.Limits{MaxConcurrentRequests: 1}
	if again := p.Specs(); again[0].Headers["X"].Reveal() != "y" || again[0].Name != "both" || again[0].Roles[endpoint.RoleRead].MaxConcurrentRequests != 0 {
		t.Error("Specs shares state with the pool")
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

// TestDoneFeedsHealthByFault: what an outcome teaches the endpoint's state
// depends on whose doing it was.
func TestDoneFeedsHealthByFault(t *testing.T) {
	for _, tc := range []struct {
		name                        string
		o                           retrypolicy.Outcome
		successes, failures, limits uint64
		cooldown                    time.Duration
	}{
		{"success", success(), 1, 0, 0, 0},
		{"the request's answer", retrypolicy.Outcome{Cause: retrypolicy.RPCApplication, Dispatch: retrypolicy.Answered,
			HTTPStatus: 200, RPCCode: -32602, Fault: retrypolicy.RequestFault}, 1, 0, 0, 0},
		{"the caller's cancellation", retrypolicy.Outcome{Cause: retrypolicy.Canceled, Dispatch: retrypolicy.MaybeDispatched,
			Fault: retrypolicy.CallerFault}, 0, 0, 0, 0},
		{"our size limit", retrypolicy.Outcome{Cause: retrypolicy.MalformedResponse, Dispatch: retrypolicy.Answered,
			HTTPStatus: 200, Fault: retrypolicy.LocalFault}, 0, 0, 0, 0},
		{"a reset", doubtful(), 0, 1, 0, 0},
		{"a 429", rateLimited(0), 0, 0, 1, time.Second},
		{"a 503 with Retry-After", retrypolicy.Outcome{Cause: retrypolicy.TemporaryHTTP, Dispatch: retrypolicy.Answered,
			HTTPStatus: 503, ProviderDelay: 3 * time.Second, Fault: retrypolicy.EndpointFault}, 0, 0, 1, 3 * time.Second},
		{"a 503 without", retrypolicy.Outcome{Cause: retrypolicy.TemporaryHTTP, Dispatch: retrypolicy.Answered,
			HTTPStatus: 503, Fault: retrypolicy.EndpointFault}, 0, 1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newPool(t, ep("a", 0, endpoint.Limits{PauseAfterRateLimit: time.Second}))
			pm := now(t, p, read, "a")
			pm.Done(tc.o)
			pm.Done(failure()) // only the first outcome counts
			s := snapshotOf(t, p, "a")
			if s.Successes != tc.successes || s.Failures != tc.failures || s.RateLimits != tc.limits ||
				s.CooldownRemaining != tc.cooldown || s.InFlight != 0 {
				t.Fatalf("snapshot %+v", s)
			}
		})
	}
}
