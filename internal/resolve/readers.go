package resolve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/confirm"
)

// reader is what the resolution knows of one read endpoint: the Witness
// it reports, and the reason its last answer gave (said), which
// Witness.Reason extends when the endpoint is not asked.
type reader struct {
	confirm.Witness
	said string
	// searched is set once the reader was asked for the signature with
	// history although it could not vouch (foundAnyway): once a
	// resolution, so that a reader without history, or a nonce set less
	// than a finalized depth ago, costs one read, not one a poll.
	searched bool
}

// reader returns the reader named name, or nil.
func (r *resolver) reader(name string) *reader {
	for _, w := range r.readers {
		if w.Endpoint == name {
			return w
		}
	}
	return nil
}

// heard records a finalized block height w answered, through the pool or
// as a witness.
func (r *resolver) heard(w *reader, info rpc.GetEpochInfoResult) {
	if info.BlockHeight > w.BlockHeight {
		w.BlockHeight, w.Slot = info.BlockHeight, info.AbsoluteSlot
	}
	if lvbh := r.res.LastValidBlockHeight; !w.Vouched && info.BlockHeight <= lvbh {
		w.said = fmt.Sprintf("finalized block height %d ≤ %d", info.BlockHeight, lvbh)
		w.Reason = w.said
	}
}

// vouches counts the readers that vouched.
func (r *resolver) vouches() int {
	n := 0
	for _, w := range r.readers {
		if w.Vouched {
			n++
		}
	}
	return n
}

// quorumHeight is the highest finalized block height Quorum readers have
// each reported: the Quorum-th highest of theirs (0 when fewer answered).
func (r *resolver) quorumHeight() uint64 {
	hs := make([]uint64, 0, len(r.readers))
	for _, w := range r.readers {
		hs = append(hs, w.BlockHeight)
	}
	slices.Sort(hs)
	return hs[len(hs)-r.res.Quorum]
}

// update refreshes the Result's view of the readers: BlockHeight,
// Witnesses and Reason.
func (r *resolver) update() {
	r.res.BlockHeight = r.quorumHeight()
	r.res.Witnesses = make([]confirm.Witness, len(r.readers))
	for i, w := range r.readers {
		r.res.Witnesses[i] = w.Witness
	}
	r.res.Reason = r.reason()
}

// reason is Result.Reason.
func (r *resolver) reason() string {
	if r.nonce {
		return r.nonceReason()
	}
	lvbh, q := r.res.LastValidBlockHeight, r.res.Quorum
	switch {
	case r.res.Status == confirm.Landed || r.res.Status == confirm.Failed:
		return ""
	case r.res.Status == confirm.Expired:
		n, by := r.witnessed(true)
		return fmt.Sprintf("%s vouched (%d needed) that it is past block height %d and unknown to them: %s",
			endpoints(n), q, lvbh, by)
	case !r.watching:
		return fmt.Sprintf("no endpoint has reported a finalized block height past %d yet", lvbh)
	}
	_, all := r.witnessed(false)
	return fmt.Sprintf("expired needs %s to vouch that it is past block height %d and unknown to them, and %d did: %s",
		endpoints(q), lvbh, r.vouches(), all)
}

// witnessed joins the Result's witnesses, each as Witness.String says it,
// those that vouched alone when vouched is set, and counts them.
func (r *resolver) witnessed(vouched bool) (int, string) {
	var ws []string
	for _, w := range r.res.Witnesses {
		if w.Vouched || !vouched {
			ws = append(ws, w.String())
		}
	}
	return len(ws), strings.Join(ws, "; ")
}

// endpoints is "1 endpoint" or "n endpoints".
func endpoints(n int) string {
	if n == 1 {
		return "1 endpoint"
	}
	return fmt.Sprintf("%d endpoints", n)
}

// errRoundOver is the cause of a witness round's context when its time
// ran out.
var errRoundOver = errors.New("confirm: the witness round is over")

// clockDeadline is a context whose Deadline is an instant on another
// clock (the pool's), which the transport reads its deadlines on.
type clockDeadline struct {
	context.Context
	at time.Time
}

// Deadline returns the instant withClockTimeout set, or the parent's
// when sooner.
func (c clockDeadline) Deadline() (time.Time, bool) {
	if d, ok := c.Context.Deadline(); ok && d.Before(c.at) {
		return d, true
	}
	return c.at, true
}

// withClockTimeout bounds ctx by d on clock: canceled, with the cause
// cause, when d has passed on it. (clockwork.WithTimeout's context on a
// fake clock blocks in Err until it is done.)
func withClockTimeout(ctx context.Context, clock clockwork.Clock, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	at := clock.Now().Add(d)
	ctx, cancel := context.WithCancelCause(ctx)
	t := clock.AfterFunc(d, func() { cancel(cause) })
	return clockDeadline{ctx, at}, func() {
		t.Stop()
		cancel(context.Canceled)
	}
}
