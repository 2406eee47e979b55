package soak

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
)

// arrivals records, per server and role, when each request was read in
// full: the fake endpoint asks its script once per request read (Accept
// false), at that moment.
type arrivals struct {
	mu sync.Mutex
	at map[string]map[endpoint.Role][]time.Time
}

func newArrivals() *arrivals {
	return &arrivals{at: make(map[string]map[endpoint.Role][]time.Time)}
}

// recorder returns the script of one server: it records the arrival, then
// asks the server's own behaviour (its part of the provider mix, nil for
// none), then its current fault script (swapped by the chaos goroutine).
func (a *arrivals) recorder(name string, current *atomic.Pointer[fixtures.Script], behaviour fixtures.Script) fixtures.Script {
	return func(c fixtures.Call) fixtures.Fault {
		if !c.Accept && c.Index == 0 {
			role := endpoint.RoleRead
			if c.Method == "sendTransaction" {
				role = endpoint.RoleSend
			}
			a.add(name, role, time.Now())
		}
		if behaviour != nil {
			if f := behaviour(c); f != (fixtures.Fault{}) {
				return f
			}
		}
		if sc := *current.Load(); sc != nil {
			return sc(c)
		}
		return fixtures.Fault{}
	}
}

func (a *arrivals) add(name string, role endpoint.Role, t time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := a.at[name]
	if m == nil {
		m = make(map[endpoint.Role][]time.Time)
		a.at[name] = m
	}
	m[role] = append(m[role], t)
}

// times returns the arrivals of one (server, role), sorted.
func (a *arrivals) times(name string, role endpoint.Role) []time.Time {
	a.mu.Lock()
	ts := slices.Clone(a.at[name][role])
	a.mu.Unlock()
	slices.SortFunc(ts, func(x, y time.Time) int { return x.Compare(y) })
	return ts
}

// maxInWindow returns the largest number of sorted instants within any
// window [t, t+w).
func maxInWindow(ts []time.Time, w time.Duration) int {
	most, lo := 0, 0
	for hi := range ts {
		for ts[hi].Sub(ts[lo]) >= w {
			lo++
		}
		most = max(most, hi-lo+1)
	}
	return most
}
