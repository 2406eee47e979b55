//go:build !race

package solroute_test

import (
	"context"
	"testing"

	"github.com/solroute/solroute"
)

// TestBulkMillionAccounts is the target on the fake cluster:
// 1 000 000 keys through GetMultipleAccountsBulk over three endpoints,
// complete and in order, the default cap (32: three unlimited endpoints)
// reached and never passed on the servers. Without the race detector only (the race detector
// makes it minutes); TestBulkAccountsInOrderUnderTheCap runs 20 000
// keys under it.
func TestBulkMillionAccounts(t *testing.T) {
	const n = 1000000
	f := newFront(32, 1)
	_, res := readAccountsBulk(context.Background(), t, f, n, solroute.BulkOptions{})
	if got := f.peak.Load(); got != 32 {
		t.Errorf("peak in flight %d, want 32", got)
	}
	if got := f.requests.Load(); got != n/100 {
		t.Errorf("%d requests for %d chunks", got, n/100)
	}
	t.Logf("floor %d, highest %d, %d requests, peak %d in flight", res.Floor, res.HighestSlot, f.requests.Load(), f.peak.Load())
}
