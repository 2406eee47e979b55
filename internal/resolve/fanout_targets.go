package resolve

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
)

// SendEndpoints counts the pool's send endpoints: a fan-out's bound
// (the root's SendToMany checks k against it too).
func SendEndpoints(tc *engine.Engine) int {
	n := 0
	for _, s := range tc.Pool().Specs() {
		if admission.Serves(&s, endpoint.RoleSend) {
			n++
		}
	}
	return n
}

// checkFanOut checks a fan-out of k against tc's send endpoints: 1 to
// their number. what names it in the error.
func checkFanOut(tc *engine.Engine, k int, what string) error {
	n := SendEndpoints(tc)
	switch {
	case k < 1:
		return fmt.Errorf("%s %d: want 1 to the pool's %d send endpoints", what, k, n)
	case k > n:
		return fmt.Errorf("%s %d exceeds the pool's %d send endpoints: each copy goes to a distinct one", what, k, n)
	}
	return nil
}

// target is one send endpoint a copy may go to: its name, whether it can
// take one now, and whether the cluster guard still holds it (a copy
// pinned to it would bypass the guard).
type target struct {
	name      string
	now, held bool
}

// targets lists the send endpoints best first: those that can take a
// copy now (verified by the cluster guard, not cooling down, not in
// doubt, a token and a concurrency slot free), then the others; in each
// group by tier, by balancing cost, by name. An endpoint the guard
// excluded is left out.
func targets(tc *engine.Engine) []target {
	var snaps []endpoint.Snapshot
	for _, s := range tc.Pool().Snapshot() {
		if s.Role == endpoint.RoleSend && s.Verification != endpoint.WrongCluster {
			snaps = append(snaps, s)
		}
	}
	slices.SortStableFunc(snaps, func(a, b endpoint.Snapshot) int {
		return cmp.Or(
			cmp.Compare(later(a), later(b)),
			cmp.Compare(a.Tier, b.Tier),
			cmp.Compare(a.Cost, b.Cost),
			cmp.Compare(a.Name, b.Name))
	})
	out := make([]target, len(snaps))
	for i, s := range snaps {
		out[i] = target{name: s.Name, now: later(s) == 0, held: s.Verification != endpoint.Verified}
	}
	return out
}

// later is 1 for an endpoint that cannot take a copy at once, else 0.
func later(s endpoint.Snapshot) int {
	if !ready(s) {
		return 1
	}
	return 0
}

// ready reports whether s can take a request at once: verified, not
// cooling down, not in doubt, with a token and a concurrency slot free.
func ready(s endpoint.Snapshot) bool {
	return s.Verification == endpoint.Verified && s.CooldownRemaining == 0 && s.DoubtRemaining == 0 &&
		(s.RequestsPerSecond == 0 || s.Tokens >= 1) && (s.MaxConcurrent == 0 || s.InFlight < s.MaxConcurrent)
}

// readyNow reports which of names can take a copy at once.
func readyNow(tc *engine.Engine, names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, s := range tc.Pool().Snapshot() {
		if s.Role == endpoint.RoleSend && slices.Contains(names, s.Name) {
			out[s.Name] = ready(s)
		}
	}
	return out
}
