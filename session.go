package solroute

import (
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/solroute/solroute/internal/slots"
)

// Session is a scope of monotonic reads narrower than the client: reads
// made with WithSession(ctx, s) never return a context slot older than
// one already returned within s, and are not held to what other callers
// saw. The zero value is an empty session, ready to use; it is safe for
// concurrent use by any number of goroutines. See docs/consistency.md.
type Session struct {
	marks slots.Session
}

// Slot returns the highest slot returned within s at commitment c (0:
// none): a read's context slot, or getSlot's answer, whichever is higher.
// c is a commitment as a request names it: "" is finalized, agave's
// deprecated names map to their levels, and any other name has no slot
// (0).
func (s *Session) Slot(c rpc.CommitmentType) uint64 {
	cm, ok := slots.ParseCommitment(string(c))
	if !ok {
		return 0
	}
	return s.marks.Slot(cm)
}
