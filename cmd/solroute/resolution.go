package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/durablenonce"
	"github.com/solroute/solroute/internal/resolve"
	"github.com/solroute/solroute/transport"
)

// What "confirm" and "send --confirm" share: the flags that tune a
// resolution, the pool it runs on, and its report and exit code.

// defaultResolveTimeout is --timeout's default for a resolution. A
// blockhash is valid for 150 blocks, 60 to 80 s at 400 to 450 ms a slot
// with some slots skipped, and "expired" is only concluded from a
// finalized block height, some 32 slots (13 s) behind the tip: 2 minutes
// reach a verdict for a blockhash fetched just before the send, with room
// for slow slots.
const defaultResolveTimeout = 2 * time.Minute

// commitments are --commitment's values, weakest first.
var commitments = []string{"processed", "confirmed", "finalized"}

// parseCommitment checks the value s of the commitment flag named flag;
// a near miss is suggested.
func parseCommitment(flag, s string) (rpc.CommitmentType, error) {
	for _, c := range commitments {
		if s == c {
			return rpc.CommitmentType(s), nil
		}
	}
	msg := fmt.Sprintf("invalid --%s %q: want processed, confirmed or finalized", flag, s)
	if sug, ok := suggest(s, commitments); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", sug)
	}
	return "", errors.New(msg)
}

// lastValidHelp is what --last-valid-block-height is, for help and
// errors.
const lastValidHelp = "the lastValidBlockHeight getLatestBlockhash returned with the transaction's blockhash"

// expiry is what a transaction expires by: its blockhash's last valid
// block height, or, for a durable-nonce transaction (its first
// instruction advances a nonce account), its nonce moving on.
type expiry struct {
	lvbh         uint64
	nonceAccount solana.PublicKey
	nonce        solana.Hash
	// lookup is set for a durable-nonce transaction whose message loads
	// its nonce account from an address lookup table (nonceAccount zero:
	// the table is needed to name it).
	lookup bool
}

// expiryOf is tx's expiry, lvbh the --last-valid-block-height given.
func expiryOf(tx *solana.Transaction, lvbh uint64) expiry {
	if acct, nonce, ok := durablenonce.Of(tx); ok {
		return expiry{nonceAccount: acct, nonce: nonce, lookup: acct.IsZero()}
	}
	return expiry{lvbh: lvbh}
}

// nonced reports whether x is a durable nonce's.
func (x expiry) nonced() bool { return !x.nonce.IsZero() }

// flags is x as 'solroute confirm' takes it: "--nonce-account A --nonce
// N", or "--last-valid-block-height N" (N itself when not known).
func (x expiry) flags() string {
	switch {
	case x.lookup:
		return fmt.Sprintf("--nonce-account A --nonce %s (A: the nonce account, which the message loads from an address lookup table)", x.nonce)
	case x.nonced():
		return fmt.Sprintf("--nonce-account %s --nonce %s", x.nonceAccount, x.nonce)
	case x.lvbh == 0:
		return "--last-valid-block-height N (N: " + lastValidHelp + ")"
	}
	return fmt.Sprintf("--last-valid-block-height %d", x.lvbh)
}

// openPool builds the client of cmd from the configuration, on the
// command's clock, and checks that an endpoint serves the role of each of
// methods: without one the configuration is wrong, whatever the endpoints
// do, and no request is sent (exit 2). The caller closes the client (and
// with it the shared limiter of a [limits] backend = "redis").
func (e *env) openPool(cmd, cfgPath string, cfg *config.Document, methods ...string) (*client, int) {
	c, err := fromDocument(cfg, solroute.Hooks{Clock: e.clock})
	if err != nil {
		fmt.Fprintf(e.stderr, "solroute %s: %v\n", cmd, err)
		return nil, exitUsage
	}
	served := make(map[endpoint.Role]bool)
	for _, s := range c.Snapshot() {
		served[s.Role] = true
	}
	reg := c.Registry()
	for _, m := range methods {
		if entry, _ := reg.Lookup(m); !served[entry.Role] {
			_ = c.Close()
			return nil, e.noEndpoint(cmd, cfgPath, m, reg, solroute.ErrNoEndpoint)
		}
	}
	return c, exitOK
}

// resolveMethods are the methods a resolution calls.
var resolveMethods = []string{"getSignatureStatuses", "getEpochInfo", "getAccountInfo"}

// withTimeout bounds ctx by d on the command's clock: the context is
// canceled with the cause context.DeadlineExceeded when d has passed, and
// its Deadline is that instant, so the transport does not start what it
// cannot finish. (clockwork.WithTimeout's context on a fake clock blocks
// in Err until it is done, and a resolution asks Err before every poll.)
func (e *env) withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	deadline := e.clock.Now().Add(d)
	ctx, cancel := context.WithCancelCause(ctx)
	t := e.clock.AfterFunc(d, func() { cancel(context.DeadlineExceeded) })
	return deadlineContext{ctx, deadline}, func() {
		t.Stop()
		cancel(context.Canceled)
	}
}

// deadlineContext is a context with a deadline on another clock.
type deadlineContext struct {
	context.Context
	deadline time.Time
}

// Deadline returns the instant withTimeout set.
func (c deadlineContext) Deadline() (time.Time, bool) { return c.deadline, true }

// resolution is how one resolution was asked for: what its report says
// besides the Result.
type resolution struct {
	cfgPath    string
	commitment rpc.CommitmentType
	timeout    time.Duration
	// send is true for send --confirm: the report says how the send went
	// and counts the rebroadcasts.
	send        bool
	rebroadcast time.Duration
	// quorum is confirm.Options.Quorum (0: its default).
	quorum int
	// nonce is, for confirm, the durable nonce --nonce-account and
	// --nonce give (send --confirm reads it from the transaction).
	nonce expiry
}

// options returns the confirm.Options of the resolution, with the
// command's test hook.
func (rs *resolution) options(e *env) confirm.Options {
	return confirm.Options{Commitment: rs.commitment, Rebroadcast: rs.rebroadcast, Quorum: rs.quorum, OnPoll: e.onPoll,
		NonceAccount: rs.nonce.nonceAccount, Nonce: rs.nonce.nonce}
}

// resolutionReport is the report of a resolution, and its --json form.
type resolutionReport struct {
	// Signature is the transaction's first signature.
	Signature string `json:"signature"`
	// Status is "landed", "failed" (landed with an on-chain error),
	// "expired" or "unknown".
	Status string `json:"status"`
	// Commitment is the one waited for.
	Commitment string `json:"commitment"`
	// Slot is where it landed (for unknown, the slot it was last seen
	// at, below the commitment); absent when never seen.
	Slot uint64 `json:"slot,omitempty"`
	// Confirmation is the highest confirmation status seen; absent when
	// never seen.
	Confirmation string `json:"confirmation,omitempty"`
	// Err is the on-chain error of a failed transaction, as the node
	// answered it.
	Err json.RawMessage `json:"err,omitempty"`
	// BlockHeight is the highest finalized block height that Quorum
	// endpoints have each reported (absent until that many have: one
	// endpoint cannot raise it); LastValidBlockHeight the one given.
	BlockHeight          uint64 `json:"block_height,omitempty"`
	LastValidBlockHeight uint64 `json:"last_valid_block_height"`
	// NonceAccount and Nonce are, for a durable-nonce transaction, its
	// nonce account and the nonce it carries (its expiry is the nonce's
	// moving on, and LastValidBlockHeight is 0); absent for others.
	NonceAccount string `json:"nonce_account,omitempty"`
	Nonce        string `json:"nonce,omitempty"`
	// Quorum is how many endpoints must vouch for expired.
	Quorum int `json:"quorum"`
	// Witnesses is what each read endpoint said about the expiry; absent
	// for landed and failed.
	Witnesses []witnessReport `json:"witnesses,omitempty"`
	// Reason says why the status is what it is (confirm.Result.Reason);
	// absent for landed and failed.
	Reason string `json:"reason,omitempty"`
	// Polls counts the status polls.
	Polls int `json:"polls"`
	// SendAmbiguous and SendError, for send --confirm: the send may have
	// reached a server without an answer (it was not resent; its status
	// decided), and the transport's error saying so.
	SendAmbiguous bool   `json:"send_ambiguous,omitempty"`
	SendError     string `json:"send_error,omitempty"`
	// Rebroadcasts, for send --confirm, counts the re-sends of the
	// identical signed bytes (--rebroadcast); RebroadcastEvery is that
	// flag, absent when off.
	Rebroadcasts     *int   `json:"rebroadcasts,omitempty"`
	RebroadcastEvery string `json:"rebroadcast_every,omitempty"`
	// Stopped says why an unknown resolution stopped: "timeout" after
	// --timeout, "interrupted".
	Stopped string `json:"stopped,omitempty"`
	// LastError is the last poll's error when it failed (every endpoint
	// down, say).
	LastError string `json:"last_error,omitempty"`
	// Verdict says, in a sentence, what the status means to do.
	Verdict string `json:"verdict"`

	status confirm.Status
	// vouched is how many have vouched, counted as Quorum is
	// (confirm.Result.Vouched: a provider's endpoints once), and grouped
	// whether that count is of providers (resolve.WitnessCount).
	vouched int
	grouped bool
	// pastValid is set when some endpoint reported a finalized block
	// height past LastValidBlockHeight, or a durable nonce moved on.
	pastValid bool
	expiry    expiry
}

// witnessReport is one read endpoint's word on the expiry
// (confirm.Witness).
type witnessReport struct {
	Endpoint string `json:"endpoint"`
	// Provider is the endpoint's provider; absent when it has none (its
	// provider's endpoints are one witness).
	Provider string `json:"provider,omitempty"`
	Vouched  bool   `json:"vouched"`
	// BlockHeight and Slot are its own finalized block height and slot;
	// absent when it never answered.
	BlockHeight uint64 `json:"block_height,omitempty"`
	Slot        uint64 `json:"slot,omitempty"`
	// StatusSlot is the slot of its "not found", when it vouched.
	StatusSlot uint64 `json:"status_slot,omitempty"`
	// NonceHeldAt and NonceMovedAt are, for a durable-nonce transaction,
	// the finalized slots at which it reported the nonce held and, after,
	// moved on; absent when not yet.
	NonceHeldAt  uint64 `json:"nonce_held_at,omitempty"`
	NonceMovedAt uint64 `json:"nonce_moved_at,omitempty"`
	// Reason is why it did not vouch.
	Reason string `json:"reason,omitempty"`
	text   string
}

// report builds the report of r. ctx is the resolution's context: when
// it ended, that is why the status is unknown.
func (rs *resolution) report(ctx context.Context, r confirm.Result) *resolutionReport {
	_, grouped := resolve.WitnessCount(r.Witnesses)
	rep := &resolutionReport{
		Signature:            r.Signature.String(),
		Status:               r.Status.String(),
		Commitment:           string(rs.commitment),
		Slot:                 r.Slot,
		Confirmation:         string(r.Confirmation),
		BlockHeight:          r.BlockHeight,
		LastValidBlockHeight: r.LastValidBlockHeight,
		Polls:                r.Polls,
		Quorum:               r.Quorum,
		vouched:              r.Vouched,
		grouped:              grouped,
		status:               r.Status,
		expiry:               expiry{lvbh: r.LastValidBlockHeight, nonceAccount: r.NonceAccount, nonce: r.Nonce},
	}
	if rep.expiry.nonced() {
		rep.NonceAccount, rep.Nonce = r.NonceAccount.String(), r.Nonce.String()
	}
	if r.Status == confirm.Expired || r.Status == confirm.Unknown {
		rep.Reason = r.Reason
		for _, w := range r.Witnesses {
			rep.Witnesses = append(rep.Witnesses, witnessReport{Endpoint: w.Endpoint, Provider: w.Provider, Vouched: w.Vouched,
				BlockHeight: w.BlockHeight, Slot: w.Slot, StatusSlot: w.StatusSlot, NonceHeldAt: w.NonceHeldAt, NonceMovedAt: w.NonceMovedAt,
				Reason: w.Reason, text: w.String()})
			rep.pastValid = rep.pastValid || (rep.expiry.nonced() && w.NonceMovedAt > 0) || (!rep.expiry.nonced() && w.BlockHeight > r.LastValidBlockHeight)
		}
	}
	if r.Err != nil {
		if js, err := json.Marshal(r.Err); err == nil {
			rep.Err = js
		}
	}
	if rs.send {
		n := r.Rebroadcasts
		rep.Rebroadcasts = &n
		if rs.rebroadcast > 0 {
			rep.RebroadcastEvery = rs.rebroadcast.String()
		}
		if r.SendErr != nil {
			rep.SendAmbiguous, rep.SendError = true, r.SendErr.Error()
		}
	}
	switch {
	case r.Status != confirm.Unknown:
	case errors.Is(context.Cause(ctx), context.DeadlineExceeded):
		rep.Stopped = "timeout"
	case ctx.Err() != nil:
		rep.Stopped = "interrupted"
	}
	if r.LastErr != nil && !onlyContextEnded(r.LastErr) {
		rep.LastError = r.LastErr.Error()
	}
	rep.Verdict = rs.verdict(rep)
	return rep
}

// verdict says what the status means to do, in one sentence.
func (rs *resolution) verdict(rep *resolutionReport) string {
	switch rep.status {
	case confirm.Landed:
		return "landed: it succeeded on chain; do not send it again"
	case confirm.Failed:
		return "failed: it landed with an on-chain error; its fee was paid, and sending it again fails the same way"
	case confirm.Expired:
		if rep.expiry.nonced() {
			return fmt.Sprintf("expired: its nonce account %s moved on from its nonce and no endpoint knows it; "+
				"it can never land: sign it again on the account's current nonce", rep.NonceAccount)
		}
		return fmt.Sprintf("expired: its blockhash is past block height %d and no endpoint knows it; "+
			"it can never land: sign it again with a new blockhash", rep.LastValidBlockHeight)
	}
	why := fmt.Sprintf("no verdict within --timeout %v", rs.timeout)
	if rep.Stopped == "interrupted" {
		why = "interrupted before a verdict"
	}
	again := fmt.Sprintf("run 'solroute confirm --config %s %s %s' before signing it again",
		rs.cfgPath, rep.Signature, rep.expiry.flags())
	if rep.expiry.nonced() {
		return rs.nonceVerdict(rep, why, again)
	}
	if !rep.pastValid {
		return fmt.Sprintf("unknown: %s; it may still land until a finalized block height passes %d: %s",
			why, rep.LastValidBlockHeight, again)
	}
	return fmt.Sprintf("unknown: %s; an endpoint reported a finalized block height past %d, but expired needs %d "+
		"%s to vouch for it and %d did (see the witness lines): until %d do, it may have landed: %s",
		why, rep.LastValidBlockHeight, rep.Quorum, rep.witnesses(), rep.vouched, rep.Quorum, again)
}

// nonceVerdict is verdict's unknown for a durable-nonce transaction.
func (rs *resolution) nonceVerdict(rep *resolutionReport, why, again string) string {
	held := false
	for _, w := range rep.Witnesses {
		held = held || w.NonceHeldAt > 0
	}
	if !held {
		return fmt.Sprintf("unknown: %s; no endpoint has reported its nonce account %s holding its nonce at finalized "+
			"commitment: their finalized banks may not have reached the nonce yet, or it moved on before they looked "+
			"(then it can never land, but no endpoint can vouch for that); check the account's nonce yourself, or %s",
			why, rep.NonceAccount, again)
	}
	if !rep.pastValid {
		return fmt.Sprintf("unknown: %s; it may still land while its nonce account %s holds its nonce "+
			"(advancing the nonce, or landing another transaction on it, settles it): %s", why, rep.NonceAccount, again)
	}
	return fmt.Sprintf("unknown: %s; an endpoint saw the nonce of %s move on, but expired needs %d "+
		"%s to vouch for it and %d did (see the witness lines): until %d do, it may have landed: %s",
		why, rep.NonceAccount, rep.Quorum, rep.witnesses(), rep.vouched, rep.Quorum, again)
}

// witnesses names what the quorum counts: "endpoints", or "providers"
// when it counts them (resolve.WitnessCount), as confirm.Result.Reason
// does.
func (rep *resolutionReport) witnesses() string {
	if rep.grouped {
		return "providers"
	}
	return "endpoints"
}

// exitCode is the exit code of a resolution's status.
func (rep *resolutionReport) exitCode() int {
	switch rep.status {
	case confirm.Landed:
		return exitOK
	case confirm.Failed:
		return exitFailedOnChain
	case confirm.Expired:
		return exitExpired
	}
	return exitUnknown
}

// write writes the report as JSON or as lines for people.
func (rep *resolutionReport) write(w io.Writer, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return
	}
	var b strings.Builder
	line := func(label, format string, args ...any) {
		fmt.Fprintf(&b, "%-16s%s\n", label, fmt.Sprintf(format, args...))
	}
	line("signature", "%s", rep.Signature)
	if rep.Rebroadcasts != nil {
		if rep.SendAmbiguous {
			line("send", "ambiguous: it may have reached a server and was not resent; its status decides")
		} else {
			line("send", "answered")
		}
	}
	status := rep.Status
	if rep.status == confirm.Failed {
		status += " (landed with an on-chain error)"
	}
	line("status", "%s", status)
	if rep.Slot > 0 {
		line("slot", "%d", rep.Slot)
	} else {
		line("slot", "-")
	}
	seen := rep.Confirmation
	if seen == "" {
		seen = "not seen"
	}
	line("confirmation", "%s (waited for %s)", seen, rep.Commitment)
	if len(rep.Err) > 0 {
		line("on-chain error", "%s", rep.Err)
	}
	rep.writeHeights(line)
	line("polls", "%d", rep.Polls)
	if rep.Rebroadcasts != nil {
		if rep.RebroadcastEvery != "" {
			line("rebroadcasts", "%d (every %s)", *rep.Rebroadcasts, rep.RebroadcastEvery)
		} else {
			line("rebroadcasts", "%d (--rebroadcast off)", *rep.Rebroadcasts)
		}
	}
	if rep.LastError != "" {
		line("last error", "%s", rep.LastError)
	}
	b.WriteString(rep.Verdict + "\n")
	_, _ = io.WriteString(w, b.String())
}

// writeHeights writes the block height line and, for an expired
// resolution or an unknown one past the last valid height, one witness
// line per read endpoint.
func (rep *resolutionReport) writeHeights(line func(label, format string, args ...any)) {
	on := fmt.Sprintf("on %d endpoints", rep.Quorum)
	if rep.Quorum == 1 {
		on = "on 1 endpoint"
	}
	switch {
	case rep.expiry.nonced():
		who := fmt.Sprintf("%d endpoints see", rep.Quorum)
		if rep.Quorum == 1 {
			who = "1 endpoint sees"
		}
		line("nonce", "%s of account %s; expired once %s it move on (finalized)", rep.Nonce, rep.NonceAccount, who)
		for _, w := range rep.Witnesses {
			line("witness", "%s", w.text)
		}
		return
	case rep.BlockHeight > 0:
		line("block height", "%d finalized %s; last valid %d", rep.BlockHeight, on, rep.LastValidBlockHeight)
	default:
		line("block height", "not yet read %s; last valid %d", on, rep.LastValidBlockHeight)
	}
	if rep.pastValid || rep.status == confirm.Expired {
		for _, w := range rep.Witnesses {
			line("witness", "%s", w.text)
		}
	}
}

// onlyContextEnded reports whether err says nothing but that the context
// ended: a call that failed on its endpoints and then met the deadline
// matches context.DeadlineExceeded too, but its attempts are worth
// showing.
func onlyContextEnded(err error) bool {
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return false
	}
	var ce *transport.CallError
	return !errors.As(err, &ce) || len(ce.Attempts) == 0
}
