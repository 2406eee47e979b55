package resolve

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
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

// vouches counts the witnesses that vouched: readers of one provider
// (confirm.Witness.Provider) count once, for they may share a backend.
func (r *resolver) vouches() int { return r.witnesses(func(w *reader) bool { return w.Vouched }) }

// witnessFor is the witness w speaks as: witnessOf when the resolution
// counts providers (Witnesses' grouped), else w itself.
func (r *resolver) witnessFor(w *reader) witness {
	if !r.grouped {
		return witness{name: w.Endpoint}
	}
	return witnessOf(w.Endpoint, w.Provider)
}

// witness is who vouches for an expiry: a provider, for the endpoints
// that name one (endpoint.Spec.Provider: they may share a backend), else
// the endpoint itself. The two kinds never meet: a provider is keyed
// apart from an endpoint of the same name.
type witness struct{ provider, name string }

// witnessOf is the witness the endpoint name of provider speaks as.
func witnessOf(name, provider string) witness {
	if provider != "" {
		return witness{provider: provider}
	}
	return witness{name: name}
}

// Witnesses counts the witnesses of an expiry among specs' read
// endpoints, as the quorum counts them (confirm.Options.Quorum), and
// reports whether it counts providers: each provider once and each
// endpoint without one on its own (grouped) when that makes two witnesses
// or more, else every read endpoint on its own, as if none named a
// provider. Grouping may only raise the bar: when one provider is behind
// every reader, counting it once would drop the default quorum to 1 and
// let one URL's word conclude what its other URLs deny; such a pool
// counts its URLs, as before providers were named (it gains no
// independent witness from them).
func Witnesses(specs []endpoint.Spec) (n int, grouped bool) {
	return WitnessCount(readWitnesses(specs))
}

// readWitnesses is the empty Witness of each of specs' read endpoints, in
// configuration order: the readers a resolution asks.
func readWitnesses(specs []endpoint.Spec) []confirm.Witness {
	var ws []confirm.Witness
	for i := range specs {
		if admission.Serves(&specs[i], endpoint.RoleRead) {
			ws = append(ws, confirm.Witness{Endpoint: specs[i].Name, Provider: specs[i].Provider})
		}
	}
	return ws
}

// WitnessCount is Witnesses over a resolution's witnesses, one per read
// endpoint (confirm.Result.Witnesses).
func WitnessCount(ws []confirm.Witness) (n int, grouped bool) {
	seen := make(map[witness]bool, len(ws))
	for _, w := range ws {
		seen[witnessOf(w.Endpoint, w.Provider)] = true
	}
	if len(seen) < 2 || len(seen) == len(ws) {
		return len(ws), false
	}
	return len(seen), true
}

// witnesses counts the distinct witnesses of the readers ok holds for.
func (r *resolver) witnesses(ok func(*reader) bool) int {
	seen := make(map[witness]bool, len(r.readers))
	for _, w := range r.readers {
		if ok(w) {
			seen[r.witnessFor(w)] = true
		}
	}
	return len(seen)
}

// quorumHeight is the highest finalized block height Quorum witnesses
// have each reported: the Quorum-th highest of theirs, a provider's the
// highest of its readers' (0 when fewer answered).
func (r *resolver) quorumHeight() uint64 {
	best := make(map[witness]uint64, len(r.readers))
	for _, w := range r.readers {
		best[r.witnessFor(w)] = max(best[r.witnessFor(w)], w.BlockHeight)
	}
	hs := slices.Sorted(maps.Values(best))
	return hs[len(hs)-r.res.Quorum]
}

// update refreshes the Result's view of the readers: BlockHeight,
// Witnesses and Reason.
func (r *resolver) update() {
	r.res.BlockHeight, r.res.Vouched = r.quorumHeight(), r.vouches()
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
		return fmt.Sprintf("%s vouched (%d needed) that it is past block height %d and unknown to them: %s",
			r.counted(r.vouches()), q, lvbh, r.witnessed(true))
	case !r.watching:
		return fmt.Sprintf("no endpoint has reported a finalized block height past %d yet", lvbh)
	}
	return fmt.Sprintf("expired needs %s to vouch that it is past block height %d and unknown to them, and %d did: %s",
		r.counted(q), lvbh, r.vouches(), r.witnessed(false))
}

// witnessed joins the Result's witnesses, each as Witness.String says it,
// those that vouched alone when vouched is set.
func (r *resolver) witnessed(vouched bool) string {
	var ws []string
	for _, w := range r.res.Witnesses {
		if w.Vouched || !vouched {
			ws = append(ws, w.String())
		}
	}
	return strings.Join(ws, "; ")
}

// counted is n witnesses as the quorum counts them: "1 endpoint" or "n
// endpoints", or, when it counts providers (grouped), "1 provider" or
// "n providers" (an endpoint without one is its own).
func (r *resolver) counted(n int) string {
	unit := "endpoint"
	if r.grouped {
		unit = "provider"
	}
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
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
