package soak

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/internal/resolve"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// The resolve soak (issue 14): many sends through endpoints that act and
// then reset, hang, reset on accept, refuse with 429 and 5xx, or lag,
// each resolved by package confirm; every verdict is checked against the
// fake ledger's ground truth. See TestSoakSendsResolve.

var (
	resolveSendsFlag   = flag.Int("soak.resolve.sends", 0, "sends of the resolve soak (0: 240 with -short, else 2000)")
	resolveSendersFlag = flag.Int("soak.resolve.senders", 0, "concurrent senders of the resolve soak (0: 64 with -short, else 96)")
)

const (
	// resolveSlotTime is the slot time of the resolve soak's chain: a
	// blockhash lives 150 blocks, 1.5 s here instead of 60 s, and an
	// expiry is concluded 32 slots (FinalizedDepth) later.
	resolveSlotTime = 10 * time.Millisecond
	// resolvePoll is confirm.Options.PollInterval: two slots, as the
	// default is one slot of 400 ms; polling faster only burns the CPU
	// the endpoints need under -race.
	resolvePoll = 2 * resolveSlotTime
	// resolveRebroadcast is Options.Rebroadcast for the sends that use it.
	resolveRebroadcast = 3 * resolveSlotTime
	// resolveBudget is how long after the cluster's finalized block
	// height passes a send's lastValidBlockHeight its verdict may come:
	// each send's context ends then (issue 20: a transaction that can
	// never land is expired within 30 s of that moment while a quorum is
	// alive). A resolution still Unknown at the end of it is a violation.
	resolveBudget = 30 * time.Second
	// resolveLag is how far the lagging endpoint is behind: 400 ms, past
	// the finalized depth, below the health distance (128).
	resolveLag = 40
)

// resolveMember is one endpoint of the resolve soak: its faults on
// sendTransaction and on reads, each applied to a share of its requests.
type resolveMember struct {
	name               string
	tier               int
	lag                uint64
	sendFaults         []fixtures.Fault
	sendRate, readRate float64
	readFaults         []fixtures.Fault
	// lies, behaviour and readOnly are the member's part of the provider
	// mix (resolve_realistic_test.go): what it tells wrong, the faults it
	// keeps before its own chaos (nil: none), and whether it takes sends.
	lies      *fixtures.Lies
	behaviour fixtures.Script
	readOnly  bool
}

// resolveMembers are eight endpoints, every one of which that takes sends
// misbehaves on some: were one clean, the pool would send through it
// alone, as it should (an endpoint that may have dropped a send's answer
// is in doubt for 30 s, pool.Settings.DoubtWindow), and no send would be
// left ambiguous. Two in tier 0 act then reset, hang, reset on accept or
// refuse (429, 5xx, -32005); one is resolveLag slots behind; one in tier
// 1 acts then answers garbage, too late, or garbled (a result with an
// error, a duplicate or case-variant context); one mostly answers. The
// provider mix adds a liar and a flaky endpoint in tier 0 and a dead
// reader in tier 1 (resolveMix). Reads see a few faults of their own.
func resolveMembers(seed uint64) []resolveMember {
	return append([]resolveMember{
		{name: "r0-act", tier: 0, sendRate: 0.4, readRate: 0.05,
			sendFaults: []fixtures.Fault{{Kind: fixtures.ResetAfterRead}, {Kind: fixtures.Hang}, {Kind: fixtures.ResetOnAccept}, fixtures.Status(503, "")},
			readFaults: []fixtures.Fault{fixtures.Status(429, ""), fixtures.Status(503, ""), fixtures.Fault{Delay: 5 * time.Millisecond}}},
		{name: "r0-refuse", tier: 0, sendRate: 0.4, readRate: 0.05,
			sendFaults: []fixtures.Fault{fixtures.Status(429, ""), fixtures.Status(500, ""), fixtures.Status(502, ""), fixtures.RPC(-32005), {Kind: fixtures.ResetOnAccept}},
			readFaults: []fixtures.Fault{{Kind: fixtures.Hang}, fixtures.Status(500, ""), {Kind: fixtures.ResetAfterRead}}},
		{name: "r0-lag", tier: 0, lag: resolveLag, sendRate: 0.2,
			sendFaults: []fixtures.Fault{{Kind: fixtures.ResetAfterRead}, fixtures.Status(429, "")}},
		{name: "r1-garble", tier: 1, sendRate: 0.4, readRate: 0.1,
			sendFaults: []fixtures.Fault{{Kind: fixtures.Truncated}, {Kind: fixtures.Malformed}, fixtures.Fault{Delay: time.Second}, {Kind: fixtures.Hang},
				{Kind: fixtures.ResultAndError, RPCCode: 429}, {Kind: fixtures.ResultAndError, RPCCode: -32005}},
			readFaults: []fixtures.Fault{{Kind: fixtures.Truncated}, {Kind: fixtures.ResetOnAccept}, fixtures.Status(502, ""),
				{Kind: fixtures.DuplicateContext}, {Kind: fixtures.CaseVariantKeys}}},
		{name: "r1-calm", tier: 1, sendRate: 0.2, readRate: 0.02,
			sendFaults: []fixtures.Fault{fixtures.Status(429, ""), {Kind: fixtures.ResetAfterRead}},
			readFaults: []fixtures.Fault{fixtures.Status(429, "")}},
	}, resolveMix(seed)...)
}

// script applies m's send faults to sendTransaction and its read faults
// to the rest, each a pure function of (seed, request number). Accept-time
// asks get nothing: a ResetOnAccept among the faults resets the
// connection once its request is read, unrecorded (fixtures.ByMethod), so
// that the reset hits the method it was drawn for.
func (m resolveMember) script(seed uint64) fixtures.Script {
	send := fixtures.Chaos(seed, m.sendRate, m.sendFaults...)
	read := fixtures.Chaos(seed^0x7ead, m.readRate, m.readFaults...)
	return func(c fixtures.Call) fixtures.Fault {
		if m.behaviour != nil {
			if f := m.behaviour(c); f != (fixtures.Fault{}) {
				return f
			}
		}
		switch {
		case c.Method == "":
			return fixtures.Fault{}
		case c.Method == "sendTransaction":
			return send(c)
		}
		return read(c)
	}
}

// sendKind is what a send of the resolve soak is set up to test.
type sendKind int

const (
	// kindPlain: a recent blockhash, sent once through SendAndConfirm.
	kindPlain sendKind = iota
	// kindRaw: sent once through the transport, then resolve.Resolve.
	kindRaw
	// kindFail: fails on chain (Ledger.Fail), half of them failing their
	// preflight too.
	kindFail
	// kindDrop: every forwarded send of it is lost (Ledger.Drop): it must
	// expire.
	kindDrop
	// kindOld: a blockhash 140 to 149 blocks old, about to expire: it
	// lands or expires depending on when it arrives.
	kindOld
	// kindRebroadcast: its first 1 to 3 forwarded sends are lost, and
	// SendAndConfirm rebroadcasts it.
	kindRebroadcast
	// kindHidden: an old blockhash, and one endpoint does not show its
	// status until it is finalized there (Ledger.Hide): the trap of
	// concluding expiry from one endpoint.
	kindHidden
	sendKinds
)

func (k sendKind) String() string {
	return [...]string{"plain", "raw+resolve", "fails-on-chain", "dropped", "old-blockhash", "rebroadcast", "hidden-from-one"}[k]
}

// resolvePlan is how one send is made: drawn from the seed and the send's
// index only.
type resolvePlan struct {
	kind          sendKind
	age           uint64 // blocks between the tip's height and the blockhash's
	commitment    rpc.CommitmentType
	skipPreflight bool
	preflight     rpc.CommitmentType // "": the node's default (finalized)
	rebroadcast   bool
	drop          int
	fail          *fixtures.Failure
	hide          string // the endpoint that hides its status
}

// planSend draws send i's plan.
func planSend(seed uint64, i int, members []resolveMember) resolvePlan {
	rng := rand.New(rand.NewPCG(mix(seed, uint64(i)), 0x5e9d))
	p := resolvePlan{
		commitment: [...]rpc.CommitmentType{rpc.CommitmentProcessed, rpc.CommitmentConfirmed, rpc.CommitmentConfirmed, rpc.CommitmentFinalized}[rng.IntN(4)],
		age:        uint64(rng.IntN(121)),
	}
	switch rng.IntN(4) {
	case 0, 1:
		p.skipPreflight = true
	case 2:
		p.preflight = rpc.CommitmentProcessed
	}
	switch k := rng.IntN(100); {
	case k < 40:
		p.kind = kindPlain
	case k < 50:
		p.kind = kindRaw
	case k < 60:
		p.kind = kindFail
		p.fail = &fixtures.Failure{Instruction: uint8(rng.IntN(2)), Custom: uint32(6000 + rng.IntN(100)), PassPreflight: rng.IntN(2) == 0}
	case k < 70:
		p.kind, p.drop, p.age = kindDrop, math.MaxInt, 60+uint64(rng.IntN(90))
	case k < 82:
		p.kind, p.age = kindOld, 140+uint64(rng.IntN(10))
	case k < 92:
		p.kind, p.rebroadcast, p.drop = kindRebroadcast, true, 1+rng.IntN(3)
	default:
		p.kind, p.skipPreflight, p.age = kindHidden, true, 140+uint64(rng.IntN(8))
		p.hide = members[rng.IntN(len(members))].name
	}
	return p
}

// resolveSend is one send of the resolve soak and what came of it.
type resolveSend struct {
	plan resolvePlan
	sig  string
	lvbh uint64
	// sendErr is the error of the send itself (SendAndConfirm's, or the
	// raw send's): refused when it proves that no server acted, ambiguous
	// when one may have (also Result.SendErr).
	sendErr            error
	refused, ambiguous bool
	// calls are the sendTransaction calls' attempts: the first send, then
	// each rebroadcast (a call ends with an attempt that decides no retry).
	calls [][]transport.Attempt
	res   confirm.Result
	// pollErrs counts the polls that met an error, and pollErr is the
	// last such error (confirm.Options.OnPoll): why a resolution was slow.
	pollErrs int
	pollErr  error
	// truth is the ledger's word on the signature when the verdict came,
	// and tip the cluster's tip then.
	truth fixtures.LedgerTx
	tip   uint64
	took  time.Duration
	// at is when the verdict came, and due when it had to come by:
	// resolveBudget after the cluster's finalized height passed lvbh.
	at, due time.Time
}

// attemptTrace collects the sendTransaction attempts of one send's
// context (an engine.AttemptFunc observer), split into calls.
type attemptTrace struct {
	mu    sync.Mutex
	calls [][]transport.Attempt
	open  bool // the last call's last attempt decided a retry
}

func (a *attemptTrace) observe(_ context.Context, method string, at transport.Attempt) {
	if method != "sendTransaction" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.open {
		a.calls = append(a.calls, nil)
	}
	a.calls[len(a.calls)-1] = append(a.calls[len(a.calls)-1], at)
	a.open = at.Decision.Retry
}

func (a *attemptTrace) result() [][]transport.Attempt {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.calls)
}

func TestSoakSendsResolve(t *testing.T) {
	t.Parallel() // beside TestSoakMainnet: both mostly wait on stalls
	seed := soakSeed(t)
	sends, senders := 2000, 96
	if testing.Short() {
		sends, senders = 240, 64
	}
	if *resolveSendsFlag > 0 {
		sends = *resolveSendsFlag
	}
	if *resolveSendersFlag > 0 {
		senders = *resolveSendersFlag
	}
	t.Logf("seed=%d sends=%d senders=%d slot time %s (replay: SOLROUTE_SOAK_SEED=%d)", seed, sends, senders, resolveSlotTime, seed)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("FAILED with seed=%d: replay with SOLROUTE_SOAK_SEED=%d go test -race -run TestSoakSendsResolve ./soak/", seed, seed)
		}
	})
	r := newResolveSoak(t, seed, sends, senders)
	start := time.Now()
	r.run()
	r.elapsed = time.Since(start)
	r.check()
}

// resolveSoak is one run of the resolve soak.
type resolveSoak struct {
	t       *testing.T
	seed    uint64
	senders int

	members []resolveMember
	ledger  *fixtures.Ledger
	cluster *fixtures.Cluster
	pool    *admission.Pool
	client  *engine.Engine

	sends   []resolveSend // by index; each sender writes its own
	bad     violations
	elapsed time.Duration
	// late counts the signatures that arrived at the ledger again after
	// their verdict (see check).
	late int
}

func newResolveSoak(t *testing.T, seed uint64, sends, senders int) *resolveSoak {
	r := &resolveSoak{t: t, seed: seed, senders: senders, members: resolveMembers(seed), sends: make([]resolveSend, sends)}
	r.ledger = fixtures.NewLedger()
	lim := func(rps float64, burst, conc int, timeout time.Duration) endpoint.Limits {
		return endpoint.Limits{RequestsPerSecond: rps, BurstCapacity: burst, MaxConcurrentRequests: conc,
			RequestTimeout: timeout, PauseAfterRateLimit: 50 * time.Millisecond}
	}
	fm := make([]fixtures.Member, len(r.members))
	for i, m := range r.members {
		roles := map[endpoint.Role]endpoint.Limits{
			endpoint.RoleRead: lim(4000, 200, 32, 250*time.Millisecond),
			endpoint.RoleSend: lim(1000, 50, 8, 300*time.Millisecond),
		}
		if m.readOnly {
			delete(roles, endpoint.RoleSend)
		}
		// One chain on the real clock: NewCluster gives the members one
		// origin, the ledger checks they share it and its stalls; each
		// drifts on a seed of its own.
		fm[i] = fixtures.Member{Name: m.name, Tier: m.tier,
			Options: fixtures.Options{Script: m.script(mix(seed, uint64(i)+1)), Ledger: r.ledger, Lies: m.lies,
				Slots: &fixtures.SlotOptions{SlotTime: resolveSlotTime, Lag: m.lag,
					Drift: &fixtures.Drift{Seed: mix(seed, uint64(i)+0xd41f7)}, Stalls: resolveStalls(seed)}}}
		fm[i].Read, fm[i].Send = memberLimits(roles)
	}
	r.cluster = fixtures.NewCluster(fm)
	t.Cleanup(r.cluster.Close)
	settings := pool.DefaultSettings()
	// The pool extrapolates an endpoint's slot at 400 ms a slot
	// (pool/slots.go slotTime) and judges lag and outliers against it:
	// at 10 ms a slot, a mark seen 200 ms ago is 20 slots stale, so an
	// endpoint in step looks lagging and a fresh answer more than
	// 2·MaxSlotLag past a reference a few hundred ms old is refused as
	// an outlier. Lag-aware routing is proven by TestSoak; here it is
	// off, and the resolver's own session (which refuses an answer older
	// than one it saw) and its rule for expiry (only from endpoints at or
	// past the finalized slot) are what stand between the lagging
	// endpoint and a wrong verdict.
	settings.MaxSlotLag = 0
	p, err := admission.New(fixturespec.Specs(r.cluster), settings, admission.Options{Seed: seed})
	if err != nil {
		t.Fatalf("admission.New: %v", err)
	}
	r.pool = p
	c, err := engine.New(p, transport.DefaultSettings(), engine.Options{})
	if err != nil {
		t.Fatalf("engine.New: %v", err)
	}
	r.client = c
	t.Cleanup(func() { _ = c.Close() })
	return r
}

// run makes every send from r.senders goroutines, each resolving one at a
// time.
func (r *resolveSoak) run() {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range r.senders {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(r.sends) {
					return
				}
				r.send(i)
			}
		})
	}
	wg.Wait()
}

// send makes send i, resolves it, and judges the verdict at once.
func (r *resolveSoak) send(i int) {
	s := &r.sends[i]
	s.plan = planSend(r.seed, i, r.members)
	p := s.plan
	tx, o, err := r.prepare(i, s)
	if err != nil {
		r.bad.add("send %d: %v", i, err)
		return
	}
	var trace attemptTrace
	// Every verdict is due within resolveBudget of the moment the
	// cluster's finalized height passes the blockhash's
	// lastValidBlockHeight (stalls included): a landing comes before it,
	// an expiry may be concluded from it on.
	s.due = r.ledger.FinalizedPast(s.lvbh).Add(resolveBudget)
	ctx, cancel := context.WithDeadline(context.Background(), s.due)
	defer cancel()
	ctx = engine.WithObserver(ctx, engine.AttemptFunc(trace.observe))

	start := time.Now()
	var res confirm.Result
	if p.kind == kindRaw {
		wire, encErr := fixtures.EncodeTransaction(tx)
		if encErr != nil {
			r.bad.add("send %d: %v", i, encErr)
			return
		}
		cfg := map[string]any{"encoding": "base64"}
		if p.skipPreflight {
			cfg["skipPreflight"] = true
		}
		if p.preflight != "" {
			cfg["preflightCommitment"] = p.preflight
		}
		var got string
		s.sendErr = r.client.CallForInto(ctx, &got, "sendTransaction", []any{wire, cfg})
		if s.sendErr == nil && got != s.sig {
			r.bad.add("send %d (%s): answered signature %s", i, s.sig, got)
		}
		r.sent(i, s)
		res, err = resolve.Resolve(ctx, r.client, tx.Signatures[0], s.lvbh, o)
	} else {
		res, err = resolve.SendAndConfirm(ctx, r.client, tx, s.lvbh, o)
		if err != nil {
			// Refused: nothing to resolve, says SendAndConfirm. Resolve it
			// anyway: it must never land, so it must expire.
			s.sendErr = err
			r.sent(i, s)
			res, err = resolve.Resolve(ctx, r.client, tx.Signatures[0], s.lvbh, o)
		} else if res.SendErr != nil {
			s.sendErr = res.SendErr
			r.sent(i, s)
		}
	}
	s.at = time.Now()
	s.took = s.at.Sub(start)
	s.res, s.truth, s.calls = res, r.truthOf(s), trace.result()
	s.tip, _ = r.ledger.Tip()
	if err != nil {
		r.bad.add("send %d (%s): Resolve refused its input: %v", i, s.sig, err)
		return
	}
	if why := r.judgeTiming(s); why != "" {
		r.bad.addAs("an expiry concluded before the finalized height passed lastValidBlockHeight", "send %d (%s, %s): %s; result %s; truth %s", i, s.sig, describePlan(p), why, describeResult(res), describeTruth(s.truth))
	}
	if why := judge(s); why != "" {
		r.bad.addAs("a wrong or missing verdict", "send %d (%s, %s): %s; result %s; truth %s; send %s", i, s.sig, describePlan(p), why, describeResult(res), describeTruth(s.truth), describeCalls(s.calls))
	}
	r.checkCalls(i, s, s.truth)
}

// sent classifies the send's error, if any, as it returns: a refusal
// must leave nothing acted on at that moment.
func (r *resolveSoak) sent(i int, s *resolveSend) {
	if s.sendErr == nil {
		return
	}
	var ce *transport.CallError
	if !errors.As(s.sendErr, &ce) {
		r.bad.add("send %d (%s): error is not a *transport.CallError: %T %v", i, s.sig, s.sendErr, s.sendErr)
		return
	}
	if s.ambiguous = errors.Is(s.sendErr, engine.ErrAmbiguousDispatch); s.ambiguous {
		return
	}
	s.refused = true
	for _, a := range ce.Attempts {
		if a.MayHaveActed() {
			r.bad.add("send %d (%s): refused (%v), but attempt %s/%s may have been acted on: %s", i, s.sig, s.sendErr, a.Endpoint, a.Cause, describe(ce.Attempts))
		}
	}
	if truth := r.ledger.Tx(s.sig); truth.Forwarded != 0 || truth.Landed {
		r.bad.addAs("a send refused as proven not dispatched, yet acted on", "send %d (%s): refused (%v), but the ledger has it forwarded %d times, landed %v: %s", i, s.sig, s.sendErr, truth.Forwarded, truth.Landed, describe(ce.Attempts))
	}
}

// truthOf is the ledger's word on s's signature now. The ledger knows
// nothing of a signature that never arrived (every send of it reset on
// accept, or refused before reading): no blockhash, so no
// lastValidBlockHeight and never Expired. Such a transaction can never
// land once a send arriving now would land past its blockhash's
// lastValidBlockHeight, as LedgerTx.Expired says of the others: that is
// filled in from the tip.
func (r *resolveSoak) truthOf(s *resolveSend) fixtures.LedgerTx {
	t := r.ledger.Tx(s.sig)
	if t.Arrivals == 0 {
		_, height := r.ledger.Tip()
		t.LastValidBlockHeight = s.lvbh
		t.Expired = !t.Landed && height+fixturedata.DefaultLandAfter > s.lvbh
	}
	return t
}

// judge returns how s's verdict contradicts the ledger's truth about its
// transaction, "" when it does not: Landed only for a transaction landed
// without error, in that slot; Failed only for one landed with an error,
// in that slot, with that error; either only once the landing slot is at
// the commitment asked for (confirmed: ConfirmedDepth slots under the tip
// at the verdict; finalized: FinalizedDepth), as the result says; Expired
// only for one that has not landed and can no longer land, concluded from
// a finalized block height past its lastValidBlockHeight; Unknown never
// (the context ends long after any verdict is due).
func judge(s *resolveSend) string {
	res, truth := s.res, s.truth
	if truth.LastValidBlockHeight != res.LastValidBlockHeight {
		return fmt.Sprintf("resolved with lastValidBlockHeight %d, the blockhash's is %d", res.LastValidBlockHeight, truth.LastValidBlockHeight)
	}
	switch res.Status {
	case confirm.Landed, confirm.Failed:
		if !truth.Landed {
			return fmt.Sprintf("%s, but the ledger has not landed it", res.Status)
		}
		if res.Slot != truth.Slot {
			return fmt.Sprintf("%s at slot %d, the ledger's is %d", res.Status, res.Slot, truth.Slot)
		}
		depth := map[rpc.CommitmentType]uint64{rpc.CommitmentConfirmed: fixturedata.ConfirmedDepth, rpc.CommitmentFinalized: fixturedata.FinalizedDepth}[s.plan.commitment]
		if truth.Slot+depth > s.tip {
			return fmt.Sprintf("%s at %s, but its slot %d is not %s under the tip %d", res.Status, s.plan.commitment, truth.Slot, s.plan.commitment, s.tip)
		}
		if confirmations[res.Confirmation] < confirmations[rpc.ConfirmationStatusType(s.plan.commitment)] {
			return fmt.Sprintf("%s with confirmation %q, %s asked", res.Status, res.Confirmation, s.plan.commitment)
		}
	}
	switch res.Status {
	case confirm.Landed:
		switch {
		case truth.Err != nil:
			return "landed, but it failed on chain"
		case res.Err != nil:
			return fmt.Sprintf("landed with error %v", res.Err)
		}
	case confirm.Failed:
		switch {
		case truth.Err == nil:
			return "failed, but it landed without error"
		case !sameJSON(res.Err, truth.Err):
			return fmt.Sprintf("failed with %v, the ledger's error is %s", res.Err, truth.Err)
		}
	case confirm.Expired:
		switch {
		case truth.Landed:
			return "EXPIRED BUT LANDED"
		case !truth.Expired:
			return "expired, but the ledger says it can still land"
		case res.BlockHeight <= res.LastValidBlockHeight:
			return fmt.Sprintf("expired at finalized height %d, not past lastValidBlockHeight %d", res.BlockHeight, res.LastValidBlockHeight)
		}
	default:
		return fmt.Sprintf("%s: no verdict within %s of the finalized height passing its lastValidBlockHeight (last error: %v)", res.Status, resolveBudget, res.LastErr)
	}
	return ""
}

// confirmations ranks confirmation statuses.
var confirmations = map[rpc.ConfirmationStatusType]int{
	rpc.ConfirmationStatusProcessed: 1, rpc.ConfirmationStatusConfirmed: 2, rpc.ConfirmationStatusFinalized: 3,
}

// sameJSON reports whether v, as solana-go decoded it, is the JSON raw.
func sameJSON(v any, raw json.RawMessage) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var x, y any
	return json.Unmarshal(b, &x) == nil && json.Unmarshal(raw, &y) == nil && reflect.DeepEqual(x, y)
}

// checkCalls checks the sends of one signature against what the ledger
// received (t: at the verdict, and again at the end): no call attempted again after an attempt that may have been
// acted on (NeverAfterDispatch); no more arrivals than attempts that left
// the client; acted on at most once per call made (the first send and each
// rebroadcast), and so at most once without rebroadcast; a send answered
// with its signature was acted on.
func (r *resolveSoak) checkCalls(i int, s *resolveSend, t fixtures.LedgerTx) {
	left := 0
	for c, call := range s.calls {
		for j, a := range call {
			if a.Dispatch != retrypolicy.NotDispatched {
				left++
			}
			if a.MayHaveActed() && j != len(call)-1 {
				r.bad.add("send %d (%s): call %d attempted again after attempt %d may have been acted on: %s", i, s.sig, c+1, j+1, describe(call))
			}
		}
	}
	if t.Arrivals > left {
		r.bad.add("send %d (%s): %d arrivals at the ledger but only %d attempts left the client: %s", i, s.sig, t.Arrivals, left, describeCalls(s.calls))
	}
	if t.Forwarded > 1+s.res.Rebroadcasts {
		r.bad.add("send %d (%s): acted on %d times with %d rebroadcasts: %s", i, s.sig, t.Forwarded, s.res.Rebroadcasts, describeCalls(s.calls))
	}
	if len(s.calls) > 0 && s.sendErr == nil {
		first := s.calls[0]
		if last := first[len(first)-1]; !last.Failed() && t.Forwarded == 0 {
			r.bad.add("send %d (%s): answered by %s, but the ledger never had it forwarded: %s", i, s.sig, last.Endpoint, describeCalls(s.calls))
		}
	}
	if want := 1 + s.res.Rebroadcasts; s.plan.kind != kindRaw && len(s.calls) > want {
		r.bad.add("send %d (%s): %d sendTransaction calls for 1 send and %d rebroadcasts", i, s.sig, len(s.calls), s.res.Rebroadcasts)
	}
}

// check runs the end-of-run checks, reports every violation and logs the
// figures.
func (r *resolveSoak) check() {
	ours := make(map[string]bool, len(r.sends))
	for i := range r.sends {
		s := &r.sends[i]
		if s.sig == "" {
			continue
		}
		ours[s.sig] = true
		// No verdict may be overtaken: an expired transaction that lands
		// later, or a landing that moves.
		now := r.truthOf(s)
		switch s.res.Status {
		case confirm.Expired:
			if now.Landed {
				r.bad.add("send %d (%s): EXPIRED, then landed at slot %d", i, s.sig, now.Slot)
			}
		case confirm.Landed, confirm.Failed:
			if now.Slot != s.res.Slot {
				r.bad.add("send %d (%s): %s at slot %d, the ledger now says %d", i, s.sig, s.res.Status, s.res.Slot, now.Slot)
			}
		}
		if now.Arrivals != s.truth.Arrivals || now.Forwarded != s.truth.Forwarded {
			// A request the client gave up on may still be read, and acted
			// on, after the verdict: it must still be one of the calls'.
			r.late++
			r.checkCalls(i, s, now)
		}
	}
	for _, sig := range r.ledger.Signatures() {
		if !ours[sig] {
			r.bad.add("the ledger received %s, which no send made", sig)
		}
	}
	if n := r.pool.Outstanding(); n != 0 {
		r.bad.add("%d permits still held after every send returned", n)
	}
	for _, sn := range r.pool.Snapshot() {
		if sn.InFlight != 0 {
			r.bad.add("%s/%s: %d in flight after every send returned", sn.Name, sn.Role, sn.InFlight)
		}
	}
	if err := r.client.Close(); err != nil {
		r.bad.add("client.Close: %v", err)
	}
	f := r.figures()
	r.checkCoverage(f)
	r.checkMix()
	r.bad.report(r.t)
	r.t.Log(f)
	r.t.Log(r.latencies())
}

// resolveFigures are the run's counts.
type resolveFigures struct {
	sends, misclassified, expiredLanded, unknown int
	verdicts                                     map[confirm.Status]int
	byKind                                       map[sendKind]map[confirm.Status]int
	// ambiguous and refused are the verdicts of the sends left ambiguous,
	// and of those refused (then resolved all the same).
	ambiguous, refused             map[confirm.Status]int
	rebroadcasts, rebroadcastSends int
	multiArrivals, multiForwarded  int
	multiForwardedOnce             int // acted on more than once without a rebroadcast: must be 0
	late                           int // arrived again after the verdict
	polls                          int
	sendFaults                     map[fixtures.FaultKind]int
	sendsAt                        map[string]int // sendTransaction requests recorded, by endpoint
	p50, p99, longest, elapsed     time.Duration
	slowest                        []string // the slowest resolutions, described
}

func (r *resolveSoak) figures() resolveFigures {
	f := resolveFigures{sends: len(r.sends), elapsed: r.elapsed, late: r.late,
		verdicts: map[confirm.Status]int{}, byKind: map[sendKind]map[confirm.Status]int{},
		ambiguous: map[confirm.Status]int{}, refused: map[confirm.Status]int{}, sendFaults: map[fixtures.FaultKind]int{},
		sendsAt: map[string]int{}}
	var took []time.Duration
	for i := range r.sends {
		s := &r.sends[i]
		st := s.res.Status
		f.verdicts[st]++
		if f.byKind[s.plan.kind] == nil {
			f.byKind[s.plan.kind] = map[confirm.Status]int{}
		}
		f.byKind[s.plan.kind][st]++
		if judge(s) != "" && st != confirm.Unknown {
			f.misclassified++
		}
		if st == confirm.Unknown {
			f.unknown++
		}
		if st == confirm.Expired && (s.truth.Landed || r.truthOf(s).Landed) {
			f.expiredLanded++
		}
		switch {
		case s.ambiguous:
			f.ambiguous[st]++
		case s.refused:
			f.refused[st]++
		}
		f.rebroadcasts += s.res.Rebroadcasts
		if s.plan.rebroadcast {
			f.rebroadcastSends++
		}
		if s.truth.Arrivals > 1 {
			f.multiArrivals++
		}
		if s.truth.Forwarded > 1 {
			f.multiForwarded++
			if s.res.Rebroadcasts == 0 {
				f.multiForwardedOnce++
			}
		}
		f.polls += s.res.Polls
		took = append(took, s.took)
	}
	slices.Sort(took)
	if n := len(took); n > 0 {
		f.p50, f.p99, f.longest = took[n/2], took[min(n*99/100, n-1)], took[n-1]
	}
	order := make([]int, len(r.sends))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(r.sends[b].took, r.sends[a].took) })
	for _, i := range order[:min(3, len(order))] {
		s := &r.sends[i]
		f.slowest = append(f.slowest, fmt.Sprintf("send %d (%s) took %s: %s after %d polls, %d of them failed (last: %v)",
			i, describePlan(s.plan), s.took.Round(time.Millisecond), s.res.Status, s.res.Polls, s.pollErrs, s.pollErr))
	}
	for _, ep := range r.cluster.Endpoints() {
		name, srv := ep.Name, r.cluster.Server(ep.Name)
		for _, rq := range srv.Requests() {
			if rq.Method == "sendTransaction" {
				f.sendFaults[rq.Fault.Kind]++
				f.sendsAt[name]++
			}
		}
	}
	return f
}

// checkCoverage checks that the run was not vacuous: every verdict class
// came, ambiguous sends were resolved both ways, refused sends resolved,
// rebroadcasts made, and the faults that leave a send ambiguous applied.
func (r *resolveSoak) checkCoverage(f resolveFigures) {
	for _, st := range []confirm.Status{confirm.Landed, confirm.Failed, confirm.Expired} {
		if f.verdicts[st] == 0 {
			r.bad.add("no send resolved %s: the check of that verdict proves nothing", st)
		}
	}
	if f.ambiguous[confirm.Landed] == 0 || f.ambiguous[confirm.Expired] == 0 {
		r.bad.add("ambiguous sends resolved %v: want some landed and some expired", f.ambiguous)
	}
	if f.refused[confirm.Expired] == 0 {
		r.bad.add("no refused send was resolved expired")
	}
	if f.rebroadcasts == 0 {
		r.bad.add("no rebroadcast was made")
	}
	for _, k := range []fixtures.FaultKind{fixtures.ResetAfterRead, fixtures.Hang, fixtures.HTTPStatus} {
		if f.sendFaults[k] == 0 {
			r.bad.add("no sendTransaction met %s", k)
		}
	}
}

func (f resolveFigures) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "resolve soak: %d sends in %s; verdicts %s; misclassified %d, expired-that-landed %d, unknown %d\n",
		f.sends, f.elapsed.Round(time.Millisecond), statusCounts(f.verdicts), f.misclassified, f.expiredLanded, f.unknown)
	for k := range sendKinds {
		fmt.Fprintf(&b, "  %-16s %s\n", k.String()+":", statusCounts(f.byKind[k]))
	}
	fmt.Fprintf(&b, "  ambiguous sends: %s; refused sends (then resolved): %s\n", statusCounts(f.ambiguous), statusCounts(f.refused))
	fmt.Fprintf(&b, "  %d rebroadcasts over %d sends with rebroadcast on; %d signatures arrived more than once (refusals retried elsewhere, rebroadcasts), %d acted on more than once, %d of them without a rebroadcast; %d arrived again after their verdict\n",
		f.rebroadcasts, f.rebroadcastSends, f.multiArrivals, f.multiForwarded, f.multiForwardedOnce, f.late)
	fmt.Fprintf(&b, "  %d polls; resolution time p50 %s, p99 %s, max %s; the slowest:\n", f.polls, f.p50.Round(time.Millisecond), f.p99.Round(time.Millisecond), f.longest.Round(time.Millisecond))
	for _, d := range f.slowest {
		fmt.Fprintf(&b, "    %s\n", d)
	}
	var faults []string
	for _, k := range slices.Sorted(maps.Keys(f.sendFaults)) {
		faults = append(faults, fmt.Sprintf("%s %d", k, f.sendFaults[k]))
	}
	var at []string
	for _, name := range slices.Sorted(maps.Keys(f.sendsAt)) {
		at = append(at, fmt.Sprintf("%s %d", name, f.sendsAt[name]))
	}
	fmt.Fprintf(&b, "  sendTransaction requests recorded, by fault: %s; by endpoint: %s", strings.Join(faults, ", "), strings.Join(at, ", "))
	return b.String()
}

// statusCounts formats verdict counts in a fixed order.
func statusCounts(m map[confirm.Status]int) string {
	var parts []string
	for _, st := range []confirm.Status{confirm.Landed, confirm.Failed, confirm.Expired, confirm.Unknown} {
		if m[st] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, m[st]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func describePlan(p resolvePlan) string {
	s := fmt.Sprintf("%s, age %d, %s", p.kind, p.age, p.commitment)
	switch {
	case p.skipPreflight:
		s += ", skip preflight"
	case p.preflight != "":
		s += ", preflight " + string(p.preflight)
	}
	if p.hide != "" {
		s += ", hidden from " + p.hide
	}
	return s
}

func describeResult(res confirm.Result) string {
	return fmt.Sprintf("{%s slot %d %s err %v height %d lvbh %d polls %d rebroadcasts %d sendErr %v lastErr %v}",
		res.Status, res.Slot, res.Confirmation, res.Err, res.BlockHeight, res.LastValidBlockHeight, res.Polls, res.Rebroadcasts, res.SendErr, res.LastErr)
}

func describeTruth(t fixtures.LedgerTx) string {
	return fmt.Sprintf("{arrivals %d forwarded %d dropped %d landed %v slot %d height %d err %s lvbh %d expired %v}",
		t.Arrivals, t.Forwarded, t.Dropped, t.Landed, t.Slot, t.Height, t.Err, t.LastValidBlockHeight, t.Expired)
}

func describeCalls(calls [][]transport.Attempt) string {
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = describe(c)
	}
	return strings.Join(parts, " ")
}
