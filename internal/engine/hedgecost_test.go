package engine_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/solroute/solroute/internal/balancefloor"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/transport"
)

// maxHedgeReadyAllocs bounds what being ready to hedge adds to a read
// answered before its hedge delay: the hedge timer (the clock's timer and
// its function) and the pair's state (hedgeStart, which holds the hedge's
// means to cancel the first attempt, firstCancel). It was 12 when the
// first attempt ran on a goroutine of its own, waited for on a channel,
// then 8 while the first attempt had a cancel context of its own above
// the attempt's (three allocations: the context, its Done channel and the
// attempt's registration under it).
const maxHedgeReadyAllocs = 3

// TestHedgedReadAnsweredInTime: a hedged read answered before its hedge
// delay runs on the caller's goroutine: at most maxHedgeReadyAllocs
// allocations more than the same read unhedged, in the same run.
func TestHedgedReadAnsweredInTime(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	srv := httptest.NewServer(http.HandlerFunc(balancefloor.Handler))
	t.Cleanup(srv.Close)
	hedged := transport.DefaultSettings()
	hedged.HedgeAfter = time.Hour
	ctx := context.Background()
	count := func(e *engine.Engine) float64 {
		return testing.AllocsPerRun(300, func() {
			if _, err := getBalance(ctx, e); err != nil {
				t.Fatal(err)
			}
		})
	}
	plain := count(twoEndpoints(t, srv.URL, transport.DefaultSettings()))
	ready := count(twoEndpoints(t, srv.URL, hedged))
	t.Logf("allocations per read: %.1f plain, %.1f ready to hedge (+%.1f)", plain, ready, ready-plain)
	if ready-plain > maxHedgeReadyAllocs {
		t.Fatalf("being ready to hedge adds %.1f allocations per read, want at most %d", ready-plain, maxHedgeReadyAllocs)
	}
}
