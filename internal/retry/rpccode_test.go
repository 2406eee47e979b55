package retry

import (
	"testing"

	"github.com/solroute/solroute/retrypolicy"
)

// TestLacksHistory: the answers that avoid an endpoint for a history
// method are exactly agave's "this node does not keep it" codes of
// history (off, cleaned up, long-term storage down or missing the epoch
// boundary), each an endpoint's gap; a skipped slot is the chain's, and
// the caller's.
func TestLacksHistory(t *testing.T) {
	want := map[int]bool{-32001: true, -32011: true, -32018: true, -32019: true}
	for code := -33000; code <= 1000; code++ {
		if got := LacksHistory(code); got != want[code] {
			t.Errorf("LacksHistory(%d) = %v, want %v", code, got, want[code])
		}
		if LacksHistory(code) && (RPCCodeCause(code) != retrypolicy.RPCEndpoint || !rpcGap(code)) {
			t.Errorf("%d lacks history but is not an endpoint's gap", code)
		}
	}
	for _, code := range []int{-32007, -32009} {
		if RPCCodeCause(code) != retrypolicy.RPCApplication {
			t.Errorf("%d (a skipped slot) is %v, want the caller's", code, RPCCodeCause(code))
		}
	}
}
