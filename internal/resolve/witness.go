package resolve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// The expiry rule (plans/011-confirmation.md): Expired only when
// Result.Quorum distinct read endpoints each vouch for it on their own
// answers. Each is asked directly (engine.WithEndpoint: pinned to it,
// outside any session's floor), so an endpoint a few slots behind is a
// witness as soon as it has itself seen the expiry, and one that does not
// answer is no witness, whatever the others say.

// minWitnessWait is the least time a witness round waits for its answers.
const minWitnessWait = 2 * time.Second

// rootDepth is how far past a finalized slot F a "not found" must be
// answered (its context slot, a processed one, at least F + rootDepth)
// to count: a root needs 32 confirmations (agave's MAX_LOCKOUT_HISTORY +
// 1), so an honest node's processed bank already runs that far ahead of
// its own finalized one, and costs nothing. What it refuses is a "not
// found" from a bank less far past F: a node behind a load balancer that
// has not rooted F, or sits on a fork without it, whose status cache and
// history may both lack a transaction landed at or before F.
const rootDepth = 32

// witnessWait bounds one witness round: five polls, at least
// minWitnessWait. A hung endpoint delays each poll by at most that; an
// answer slower than that (a history search on a loaded node) is no
// answer this round.
func (r *resolver) witnessWait() time.Duration { return max(5*r.o.PollInterval, minWitnessWait) }

// answer is what one endpoint said when asked as a witness.
type answer struct {
	name string
	// info is its finalized block height and slot, when read.
	info rpc.GetEpochInfoResult
	read bool
	// status is the signature's status, when it knew it.
	status *rpc.SignatureStatusesResult
	// nonce is its finalized read of a durable-nonce transaction's nonce
	// account, when read (read set; info is then zero).
	nonce nonceRead
	// searched reports a status read made by foundAnyway.
	searched bool
	// vouched, with the "not found" answer's context slot.
	vouched    bool
	statusSlot uint64
	reason     string
}

// witnessRound asks every reader that has not vouched yet, all at once,
// and reports whether there is a verdict: a status some endpoint knows,
// at the commitment, or Expired. It waits for every answer (at most
// witnessWait): a status found by any endpoint wins over any number of
// vouches.
func (r *resolver) witnessRound(ctx context.Context) bool {
	skip := r.blocked()
	rctx, cancel := withClockTimeout(ctx, r.clock, r.witnessWait(), errRoundOver)
	defer cancel()
	answers := make(chan answer, len(r.readers))
	asked := 0
	for _, w := range r.readers {
		switch why, blocked := skip[w.Endpoint]; {
		case w.Vouched:
		case blocked:
			w.Reason = strings.TrimPrefix(w.said+"; ", "; ") + "not asked: " + why
		default:
			asked++
			go func(name string, heldAt uint64, searched bool) { answers <- r.ask(rctx, name, heldAt, searched) }(w.Endpoint, w.NonceHeldAt, w.searched)
		}
	}
	var found *rpc.SignatureStatusesResult
	for range asked {
		a := <-answers
		w := r.reader(a.name)
		switch {
		case a.read && r.nonce:
			heardNonce(w, a.nonce)
		case a.read:
			r.heard(w, a.info)
		}
		w.said, w.Reason = a.reason, a.reason
		w.searched = w.searched || a.searched
		if a.vouched {
			w.Vouched, w.StatusSlot = true, a.statusSlot
		}
		if a.status != nil && (found == nil || rank(statusOf(a.status)) > rank(statusOf(found))) {
			found = a.status
		}
	}
	if found != nil {
		return r.seen(found)
	}
	if r.vouches() < r.res.Quorum {
		return false
	}
	r.res.Status = confirm.Expired
	return true
}

// ask asks the endpoint named name, alone and outside any floor, for its
// finalized block height and, when that is past lastValidBlockHeight,
// for the signature's status with history search (for a durable-nonce
// transaction: askNonce, heldAt the finalized slot at which name last
// reported the nonce held, searched whether foundAnyway asked it
// already). It runs on its own goroutine and only reads the resolver.
func (r *resolver) ask(ctx context.Context, name string, heldAt uint64, searched bool) (a answer) {
	a.name = name
	// Only name's own answers count: an answer from any other endpoint
	// (which WithEndpoint rules out) would make it vouch for another.
	other := ""
	pinned := engine.WithObserver(engine.WithEndpoint(ctx, name), engine.AttemptFunc(func(_ context.Context, _ string, at transport.Attempt) {
		if !at.Failed() && at.Endpoint != name {
			other = at.Endpoint
		}
	}))
	defer func() {
		if other != "" {
			a = answer{name: name, reason: "answered by " + other + ", not by itself"}
		}
	}()
	if r.nonce {
		return r.askNonce(ctx, pinned, a, heldAt, searched)
	}
	info, err := r.epochInfo(pinned)
	if err != nil {
		a.reason = r.failure(ctx, "getEpochInfo", err)
		return a
	}
	a.info, a.read = info, true
	lvbh := r.res.LastValidBlockHeight
	if info.BlockHeight <= lvbh {
		a.reason = fmt.Sprintf("finalized block height %d ≤ %d", info.BlockHeight, lvbh)
		return a
	}
	return r.unknownPast(ctx, pinned, a, info.AbsoluteSlot, "its own finalized slot")
}

// unknownPast asks, through pinned, for the signature's status with
// history search, and vouches when it is not found in an answer at least
// rootDepth slots past the finalized slot from (what names it); ctx is
// the round's.
func (r *resolver) unknownPast(ctx, pinned context.Context, a answer, from uint64, what string) answer {
	st, at, err := r.status(pinned, true)
	switch {
	case err != nil:
		a.reason = r.failure(ctx, "getSignatureStatuses", err)
	case st != nil:
		a.status = st
		a.reason = fmt.Sprintf("status found (%s in slot %d)", statusOf(st), st.Slot)
	case at < from+rootDepth:
		a.reason = fmt.Sprintf("not found, but at slot %d, less than %d slots past %s %d", at, rootDepth, what, from)
	default:
		a.vouched, a.statusSlot = true, at
	}
	return a
}

// failure says why a witness's call of method failed, under the round's
// context ctx: "unreachable: ..." for a connection that failed, "no
// answer to getEpochInfo within 2s" for a round that ran out, else the
// transport's error.
func (r *resolver) failure(ctx context.Context, method string, err error) string {
	var ce *transport.CallError
	switch {
	case errors.Is(context.Cause(ctx), errRoundOver):
		return fmt.Sprintf("no answer to %s within %v", method, r.witnessWait())
	case ctx.Err() != nil:
		return "not answered before the resolution ended"
	case errors.As(err, &ce) && ce.Cause == retrypolicy.Connection:
		return "unreachable: " + err.Error()
	}
	return err.Error()
}

// blocked names the readers not to ask now, and why: awaiting or failing
// the cluster check (a pinned call would bypass it), or cooling down
// after a rate limit or an ejection (asking would only wait).
func (r *resolver) blocked() map[string]string {
	var skip map[string]string
	for _, s := range r.tc.Pool().Snapshot() {
		why := ""
		switch {
		case s.Role != endpoint.RoleRead:
			continue
		case s.Verification == endpoint.WrongCluster:
			why = "excluded: " + s.Excluded
		case s.Verification != endpoint.Verified:
			why = "its cluster is not checked yet"
		case s.CooldownRemaining > 0:
			why = fmt.Sprintf("%s for %v more", s.State, s.CooldownRemaining.Round(time.Millisecond))
		default:
			continue
		}
		if skip == nil {
			skip = make(map[string]string)
		}
		skip[s.Name] = why
	}
	return skip
}

// statusOf is a status's confirmation status ("finalized" for a node too
// old to say, whose rooted statuses have no confirmations).
func statusOf(st *rpc.SignatureStatusesResult) string {
	if st.ConfirmationStatus == "" && st.Confirmations == nil {
		return "finalized"
	}
	return string(st.ConfirmationStatus)
}
