package engine_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

// BenchmarkDeadlineLateness measures, on the real clock, how long after
// its deadline a call returns when its endpoint hangs: the time from the
// deadline to the return, over b.N calls, reported as p50, p99 and max
// (and the share of calls that returned after the deadline at all). It is
// a measurement, not an assertion: the figures depend on the machine and
// its load (docs and plans/010 quote them).
//
//	go test -run '^$' -bench DeadlineLateness -benchtime 3000x ./transport/
//
// "ctx" calls carry a 20 ms context deadline; "budget" calls have no
// deadline of their own and end at the endpoint's 20 ms request_timeout.
// Each runs alone (sequential) and 32 at a time.
func BenchmarkDeadlineLateness(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the body first: net/http notices that the client left
		// (and ends r's context) only once it has been read.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done() // hangs until the client leaves
	}))
	defer srv.Close()
	const budget = 20 * time.Millisecond
	for _, bc := range []struct {
		name        string
		ctxDeadline bool
		parallel    int
	}{{"ctx/sequential", true, 1}, {"ctx/32", true, 32}, {"budget/sequential", false, 1}, {"budget/32", false, 32}} {
		b.Run(bc.name, func(b *testing.B) {
			l := endpoint.Limits{RequestTimeout: budget}
			p, err := admission.New([]endpoint.Spec{{Name: "hang", URL: endpoint.NewSecret(srv.URL),
				Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l}}}, pool.DefaultSettings(), admission.Options{})
			if err != nil {
				b.Fatal(err)
			}
			c := newClient(b, p, conf{Retry: noRetries})
			defer c.Close()
			late := make([]time.Duration, b.N)
			var wg sync.WaitGroup
			next := make(chan int)
			b.ResetTimer()
			for range bc.parallel {
				wg.Go(func() {
					for i := range next {
						ctx, cancel := context.Background(), context.CancelFunc(func() {})
						deadline := time.Now().Add(budget)
						if bc.ctxDeadline {
							ctx, cancel = context.WithDeadline(ctx, deadline)
						}
						_, _ = getBalance(ctx, c)
						late[i] = time.Since(deadline)
						cancel()
					}
				})
			}
			for i := range b.N {
				next <- i
			}
			close(next)
			wg.Wait()
			b.StopTimer()
			reportLateness(b, late)
		})
	}
}

// reportLateness reports the quantiles of late and the share above 0.
func reportLateness(b *testing.B, late []time.Duration) {
	slices.Sort(late)
	q := func(f float64) float64 {
		return float64(late[min(len(late)-1, int(f*float64(len(late))))]) / float64(time.Millisecond)
	}
	after := 0
	for _, d := range late {
		if d > 0 {
			after++
		}
	}
	b.ReportMetric(q(0.5), "p50-late-ms")
	b.ReportMetric(q(0.99), "p99-late-ms")
	b.ReportMetric(float64(late[len(late)-1])/float64(time.Millisecond), "max-late-ms")
	b.ReportMetric(float64(late[0])/float64(time.Millisecond), "min-late-ms")
	b.ReportMetric(100*float64(after)/float64(len(late)), "%-after")
}
