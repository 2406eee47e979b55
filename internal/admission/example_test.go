package admission_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

func ExamplePool_Acquire() {
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p, err := admission.New([]endpoint.Spec{
		{Name: "primary-a", URL: endpoint.NewSecret("https://a.example.com/?api-key=secret"), Roles: map[endpoint.Role]endpoint.Limits{
			endpoint.RoleRead: {RequestsPerSecond: 10, MaxConcurrentRequests: 1},
		}},
		{Name: "backup-a", URL: endpoint.NewSecret("https://b.example.com/"), Tier: 1, Roles: map[endpoint.Role]endpoint.Limits{
			endpoint.RoleRead: {},
		}},
	}, pool.DefaultSettings(), admission.Options{Clock: clock})
	if err != nil {
		fmt.Println(err)
		return
	}
	req := admission.Request{Role: endpoint.RoleRead, Method: "getBalance"}

	first, _ := p.Acquire(context.Background(), req)
	fmt.Println("first:", first.Endpoint())
	// primary-a's only slot is held: the lower tier takes the next one.
	second, _ := p.Acquire(context.Background(), req)
	fmt.Println("second:", second.Endpoint())

	first.Done(rateLimited(2 * time.Second)) // the provider said Retry-After: 2
	second.Done(success())
	third, _ := p.Acquire(context.Background(), req)
	fmt.Println("third:", third.Endpoint())
	third.Done(success())

	for _, s := range p.Snapshot() {
		fmt.Printf("%s: %s, cooldown %v\n", s.Name, s.State, s.CooldownRemaining)
	}
	// Output:
	// first: primary-a
	// second: backup-a
	// third: backup-a
	// primary-a: rate-limited, cooldown 2s
	// backup-a: available, cooldown 0s
}

func ExampleDeadlineError() {
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p, _ := admission.New([]endpoint.Spec{
		{Name: "primary-a", URL: endpoint.NewSecret("https://a.example.com/"), Roles: map[endpoint.Role]endpoint.Limits{
			endpoint.RoleSend: {MaxConcurrentRequests: 1},
		}},
	}, pool.DefaultSettings(), admission.Options{Clock: clock})
	req := admission.Request{Role: endpoint.RoleSend, Method: "sendTransaction"}
	held, _ := p.Acquire(context.Background(), req)
	defer held.Release()

	// A deadline already reached: no permit, and why.
	req.Deadline = clock.Now()
	_, err := p.Acquire(context.Background(), req)
	fmt.Println(errors.Is(err, admission.ErrDeadline))
	fmt.Println(err)
	// Output:
	// true
	// pool: sendTransaction (send): no endpoint admitted before the deadline: primary-a: 1/1 in flight
}
