//go:build !race

package engine_test

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/solroute/solroute/internal/engine"
)

// peakGate counts the calls of TestBudgetBoundsHeap as they reach a
// state where they hold nothing more (refused, or failed) or hold their
// body (decoding, held until open is closed). When every call is in one
// of them, the heap is measured by the call that got there last: every
// body the client could hold is held then.
type peakGate struct {
	total int
	open  chan struct{}
	full  chan struct{}

	mu                    sync.Mutex
	held, refused, failed int
	// live is the live heap (after a GC) and inuse the in-use heap spans
	// (before it) at the moment every call was counted.
	live, inuse uint64
}

func (g *peakGate) count(held, refused bool) {
	g.mu.Lock()
	switch {
	case held:
		g.held++
	case refused:
		g.refused++
	default:
		g.failed++
	}
	last := g.held+g.refused+g.failed == g.total
	g.mu.Unlock()
	if last {
		g.inuse, g.live = heapNow()
		close(g.full)
	}
}

// heapNow reads the in-use heap spans, then the live heap after a GC.
func heapNow() (inuse, live uint64) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	inuse = m.HeapInuse
	runtime.GC()
	runtime.ReadMemStats(&m)
	return inuse, m.HeapAlloc
}

// gatedOut is heldOut for a peakGate.
type gatedOut struct{}

// peakGates is the gate of the TestBudgetBoundsHeap run (not parallel).
var peakGates atomic.Pointer[peakGate]

func (*gatedOut) UnmarshalJSON([]byte) error {
	g := peakGates.Load()
	g.count(true, false)
	<-g.open
	return nil
}

// TestBudgetBoundsHeap is issue 25's target: 256 concurrent 8 MiB
// answers with a 64 MiB budget. Every answer the budget admits is held
// in its decode until every call is accounted for, so the heap is
// measured at the most the client can hold: it grows by at most the
// budget + 16 MiB; every call that is not held was refused with ErrBusy
// while the held ones still held the budget (none waited for it: the
// gate opens only when all 256 are counted); the budget is empty after.
func TestBudgetBoundsHeap(t *testing.T) {
	const calls, size, limit = 256, 8 * mib, 64 * mib
	e := budgetEnv(t, 1, newBlobServer(), conf{ResponseBudget: limit})
	g := &peakGate{total: calls, open: make(chan struct{}), full: make(chan struct{})}
	peakGates.Store(g)
	defer peakGates.Store(nil)
	_, base := heapNow()
	errs := make(chan error, calls)
	for range calls {
		go func() {
			err := e.CallForInto(context.Background(), new(gatedOut), "getTransaction", []any{strconv.Itoa(size)})
			if err != nil {
				g.count(false, errors.Is(err, engine.ErrBusy))
			}
			errs <- err
		}()
	}
	select {
	case <-g.full:
	case <-time.After(60 * time.Second): // a guard against a hung test, not a measurement
		t.Fatal("the calls never all held or returned")
	}
	usage := e.ResponseBudget()
	close(g.open)
	for range calls {
		if err := <-errs; err != nil && !errors.Is(err, engine.ErrBusy) {
			t.Errorf("not a busy refusal: %v", err)
		}
	}
	growth := int64(g.live) - int64(base)
	t.Logf("held %d, refused %d, failed %d; budget at the peak %+v; live heap growth %.1f MiB, in-use heap %.1f MiB over the base",
		g.held, g.refused, g.failed, usage, float64(growth)/mib, (float64(g.inuse)-float64(base))/mib)
	if growth > limit+16*mib {
		t.Errorf("live heap grew by %.1f MiB, over the budget + 16 MiB", float64(growth)/mib)
	}
	if g.held != limit/size || g.refused != calls-limit/size || g.failed != 0 {
		t.Errorf("held %d, refused %d, failed %d: want %d held, the rest refused", g.held, g.refused, g.failed, limit/size)
	}
	if u := e.ResponseBudget(); u.Used != 0 || u.Refused != uint64(g.refused) {
		t.Errorf("at rest: usage %+v", u)
	}
}
