package metrics_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/fixtures"
)

// TestResponseBudgetSeries: the response budget's used bytes, limit and
// refusals are scraped from the client: the bytes of an answer held, the
// limit as set, and a refusal of an answer that did not fit beside it.
func TestResponseBudgetSeries(t *testing.T) {
	const limit = 64 // one getSlot answer (about 40 bytes) fits, two do not
	e := newEnv(t, []fixtures.Member{member("a", 0, "read")}, func(o *solroute.Options) {
		o.Transport.MaxResponseBytes, o.Transport.ResponseBudgetBytes = limit, limit
	})
	ctx := context.Background()
	holding, release := make(chan int64), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- e.client.CallWithCallback(ctx, "getSlot", nil, func(_ *http.Request, r *http.Response) error {
			holding <- r.ContentLength
			<-release
			return nil
		})
	}()
	held := <-holding
	if err := e.client.CallForInto(ctx, nil, "getSlot", nil); !errors.Is(err, solroute.ErrBusy) {
		t.Fatalf("error %v, want ErrBusy", err)
	}
	body, s := e.scrape()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s.want(t, body, map[string]float64{
		series("solroute_response_budget_used_bytes"):     float64(held),
		series("solroute_response_budget_limit_bytes"):    limit,
		series("solroute_response_budget_refusals_total"): 1,
	})
	body, s = e.scrape()
	s.want(t, body, map[string]float64{series("solroute_response_budget_used_bytes"): 0})
}
