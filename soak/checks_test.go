package soak

import (
	"encoding/json"
	"math"
	"net/http"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// The checks of TestSoak must be able to fail: these tests feed them
// violations on purpose.

func TestMaxInWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms ...int) []time.Time {
		ts := make([]time.Time, len(ms))
		for i, m := range ms {
			ts[i] = t0.Add(time.Duration(m) * time.Millisecond)
		}
		return ts
	}
	for _, tt := range []struct {
		ts   []time.Time
		want int
	}{
		{nil, 0},
		{at(0), 1},
		{at(0, 999), 2},
		{at(0, 1000), 1},
		{at(0, 10, 20, 1005, 1015), 3},
		{at(0, 500, 900, 1400, 1450, 1499), 5},
		{at(0, 500, 900, 1400, 1450, 1500), 4},
	} {
		if got := maxInWindow(tt.ts, time.Second); got != tt.want {
			t.Errorf("maxInWindow(%v) = %d, want %d", tt.ts, got, tt.want)
		}
	}
}

func TestSecretIn(t *testing.T) {
	if m := secretIn("transport: t0-a: dial http://x/" + markPath + "-t0-a"); m != markPath {
		t.Errorf("secretIn missed the path marker: %q", m)
	}
	if m := secretIn("transport: t0-a: connection refused"); m != "" {
		t.Errorf("secretIn found %q in a clean text", m)
	}
}

// TestCheckSendsCatchesDuplicate delivers one signed transaction to two
// endpoints behind the client's back: the send check must see it acted on
// twice.
func TestCheckSendsCatchesDuplicate(t *testing.T) {
	s := newSoak(t, 7, sendEvery, 1)
	body := `{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["` + s.tx(0) + `",{"encoding":"base64"}]}`
	for _, name := range []string{"t0-a", liarName} {
		resp, err := http.Post(s.cluster.Server(name).URL(), "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	http.DefaultClient.CloseIdleConnections()
	s.sends[0] = sendResult{made: true, ok: true}
	s.checkSends()
	if s.bad.n == 0 {
		t.Fatal("checkSends accepted a transaction acted on twice")
	}
	if !strings.Contains(s.bad.first[0], "acted on 2 times") {
		t.Errorf("checkSends reported %q, want the double delivery", s.bad.first[0])
	}
}

// steady returns n beats heartbeatEvery apart from t0, each with the
// given runnable wait: a process scheduling normally.
func steady(t0 time.Time, n int, runnable time.Duration) []beat {
	bs := make([]beat, n)
	for i := range bs {
		bs[i] = beat{at: t0.Add(time.Duration(i) * heartbeatEvery), runnable: runnable}
	}
	return bs
}

// TestCheckDeadlinesCatchesLateCall feeds a call that returned a second
// after its deadline, with no stall around it.
func TestCheckDeadlinesCatchesLateCall(t *testing.T) {
	s := &soak{t: t}
	now := time.Now()
	s.beats = steady(now, 1000, 0)
	s.done.Store(1)
	s.late = []lateCall{{deadline: now.Add(10 * time.Millisecond), end: now.Add(time.Second + 10*time.Millisecond), what: "call 1"}}
	s.checkDeadlines()
	if s.bad.n != 1 {
		t.Fatalf("checkDeadlines found %d violations, want 1", s.bad.n)
	}
}

// TestCheckDeadlinesAllowsMeasuredDelay feeds calls around a moment when
// goroutines waited 200 ms runnable, and one while the process ran
// normally (1 ms waits, beats on time). A call late by one attempt
// (requestTimeout) is allowed during the delay and caught outside it; a
// call hung for two seconds is caught even during it.
func TestCheckDeadlinesAllowsMeasuredDelay(t *testing.T) {
	s := &soak{t: t}
	t0 := time.Now()
	s.beats = steady(t0, 2000, time.Millisecond)   // 4 s
	s.beats[500].runnable = 200 * time.Millisecond // at 1 s
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	late := requestTimeout + 10*time.Millisecond
	s.late = []lateCall{
		{deadline: at(900 * time.Millisecond), end: at(900*time.Millisecond + late), what: "attempt-late during the delay"},
		{deadline: at(900 * time.Millisecond), end: at(900*time.Millisecond + 2*time.Second), what: "hung during the delay"},
		{deadline: at(3 * time.Second), end: at(3*time.Second + late), what: "attempt-late, normal scheduling"},
	}
	s.done.Store(int64(len(s.late)))
	s.checkDeadlines()
	if s.bad.n != 2 {
		t.Fatalf("checkDeadlines found %d violations, want 2: %q", s.bad.n, s.bad.first)
	}
	for i, want := range []string{"hung during the delay", "attempt-late, normal scheduling"} {
		if !strings.HasPrefix(s.bad.first[i], want+":") {
			t.Errorf("violation %d = %q, want the call %q", i, s.bad.first[i], want)
		}
	}
}

// TestCheckDeadlinesAllowsLogWait feeds a call late by one attempt while a
// log record took 200 ms to be handled (the handler's lock): allowed.
func TestCheckDeadlinesAllowsLogWait(t *testing.T) {
	s := &soak{t: t}
	t0 := time.Now()
	s.beats = steady(t0, 500, time.Millisecond)
	s.beats[100].logWait = 200 * time.Millisecond
	deadline := t0.Add(150 * time.Millisecond)
	s.late = []lateCall{{deadline: deadline, end: deadline.Add(requestTimeout + 10*time.Millisecond), what: "call 1"}}
	s.done.Store(1)
	s.checkDeadlines()
	if s.bad.n != 0 {
		t.Fatalf("checkDeadlines flagged a call explained by a log wait: %q", s.bad.first)
	}
}

// TestCheckDeadlinesAllowsCPUShare feeds calls late by 1.5 times what is
// allowed at full CPU, one while the threads had half the CPU they wanted
// (other processes on the cores): allowed; one while they had all of it:
// caught. A share below minShare counts as minShare.
func TestCheckDeadlinesAllowsCPUShare(t *testing.T) {
	t0 := time.Now()
	for _, tt := range []struct {
		share  float64
		factor float64 // of the full-CPU allowance
		bad    int
	}{
		{0.5, 1.5, 0},
		{1, 1.5, 1},
		{0.1, 3.9, 0},
		{0.1, 4.1, 1},
	} {
		s := &soak{t: t}
		s.beats = steady(t0, 500, time.Millisecond)
		for i := range s.beats {
			if i%cpuEvery == 0 {
				s.beats[i].onCPU = time.Duration(tt.share * float64(cpuEvery*heartbeatEvery))
				s.beats[i].queued = cpuEvery*heartbeatEvery - s.beats[i].onCPU
			}
		}
		full := tolerance() + delayFactor*heartbeatEvery
		deadline := t0.Add(100 * time.Millisecond)
		late := time.Duration(tt.factor * float64(full))
		s.late = []lateCall{{deadline: deadline, end: deadline.Add(late), what: "call 1"}}
		s.done.Store(1)
		s.checkDeadlines()
		if s.bad.n != tt.bad {
			t.Errorf("CPU share %.0f%%, %s late: %d violations, want %d: %q", 100*tt.share, late, s.bad.n, tt.bad, s.bad.first)
		}
	}
}

// TestCheckDeadlinesAllowsStall feeds a call late by one attempt while the
// whole process stalled 250 ms (no beat, nothing sampled): allowed.
func TestCheckDeadlinesAllowsStall(t *testing.T) {
	s := &soak{t: t}
	t0 := time.Now()
	s.beats = append(steady(t0, 100, 0), steady(t0.Add(450*time.Millisecond), 100, 0)...)
	deadline := t0.Add(150 * time.Millisecond)
	s.late = []lateCall{{deadline: deadline, end: deadline.Add(requestTimeout), what: "call 1"}}
	s.done.Store(1)
	s.checkDeadlines()
	if s.bad.n != 0 {
		t.Fatalf("checkDeadlines flagged a call explained by a stall: %q", s.bad.first)
	}
}

// TestLongestSince reads the growth of a histogram between two beats.
func TestLongestSince(t *testing.T) {
	h := &metrics.Float64Histogram{Counts: []uint64{5, 3, 1}, Buckets: []float64{0, 0.001, 0.01, math.Inf(1)}}
	for _, tt := range []struct {
		seen []uint64
		want time.Duration
	}{
		{nil, 0},
		{[]uint64{5, 3, 1}, 0},
		{[]uint64{4, 3, 1}, time.Millisecond},
		{[]uint64{0, 2, 1}, 10 * time.Millisecond},
		{[]uint64{5, 3, 0}, 10 * time.Millisecond}, // the open last bucket: its lower bound
	} {
		if got := longestSince(h, tt.seen); got != tt.want {
			t.Errorf("longestSince(%v) = %s, want %s", tt.seen, got, tt.want)
		}
	}
}

// TestCheckLogsCatchesSecret writes a line carrying a marker among clean
// ones: the log check must report it; with no line at all, it must say the
// check proved nothing.
func TestCheckLogsCatchesSecret(t *testing.T) {
	s := &soak{t: t, logs: &logSink{}}
	s.checkLogs()
	if s.bad.n != 1 || !strings.Contains(s.bad.first[0], "nothing was logged") {
		t.Fatalf("checkLogs on no logs: %q, want \"nothing was logged\"", s.bad.first)
	}
	s = &soak{t: t, logs: &logSink{}}
	for _, line := range []string{`{"msg":"clean"}`, `{"url":"http://x/` + markPath + `-t0-a"}`, `{"msg":"clean"}`} {
		if _, err := s.logs.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	s.checkLogs()
	if s.bad.n != 1 || !strings.Contains(s.bad.first[0], markPath) {
		t.Fatalf("checkLogs reported %q, want the line carrying %s", s.bad.first, markPath)
	}
}

// TestThreadTimes reads this process's threads' CPU times where Linux
// gives them: they only grow.
func TestThreadTimes(t *testing.T) {
	on1, q1, ok := threadTimes()
	if !ok {
		t.Skip("no /proc/self/task/*/schedstat here: the CPU share counts as 100%")
	}
	for start := time.Now(); time.Since(start) < 10*time.Millisecond; {
	}
	on2, q2, _ := threadTimes()
	if on1 <= 0 || on2 < on1 || q1 < 0 {
		t.Errorf("threadTimes: on CPU %s then %s, queued %s then %s", on1, on2, q1, q2)
	}
}

// TestSlotCheckCatchesBackwards feeds the slot check a caller with a
// session whose slot goes back, and a caller on the client's mark
// answered below a slot another caller returned before it started: both
// are reported, naming the caller, the method and the slots. A context
// slot below an earlier getSlot answer is no violation (issue 20, N1: a
// getSlot may run ahead of every bank); a getSlot below an earlier
// context slot is.
func TestSlotCheckCatchesBackwards(t *testing.T) {
	var sc slotCheck
	var bad violations
	own := &caller{id: 2, session: new(slots.Session)}
	wide1, wide2 := &caller{id: 1}, &caller{id: 3}
	const tip = 1000
	sc.check(&bad, own, returned{slot: 1003, call: 9, method: "getSlot", caller: 2}, slots.Confirmed, nil, tip, lagKnown)
	sc.check(&bad, own, returned{slot: 1000, call: 10, method: "getBalance", caller: 2}, slots.Confirmed, nil, tip, lagKnown) // below a getSlot: allowed
	sc.check(&bad, own, returned{slot: 1000, call: 11, method: "getBalance", caller: 2}, slots.Confirmed, nil, tip, lagKnown) // equal: allowed
	sc.check(&bad, own, returned{slot: 900, call: 12, method: "getBalance", caller: 2}, slots.Confirmed, nil, tip, lagKnown)
	sc.check(&bad, own, returned{slot: 800, call: 13, method: "getBalance", caller: 2}, slots.Processed, nil, tip, lagKnown) // another commitment: nothing held
	sc.check(&bad, own, returned{slot: 1002, call: 14, method: "getSlot", caller: 2}, slots.Confirmed, nil, tip, lagKnown)
	if bad.n != 2 || !strings.Contains(bad.first[0], "caller 2 (own session): call 12 (getBalance, confirmed) returned context slot 900, below slot 1000 its call 10 (getBalance)") ||
		!strings.Contains(bad.first[1], "call 14 (getSlot, confirmed) returned context slot 1002, below slot 1003 its call 9 (getSlot)") {
		t.Fatalf("session caller: %d violations %q, want call 12 going back from 1000 to 900 and call 14 from 1003 to 1002", bad.n, bad.first)
	}

	bad = violations{}
	sc.check(&bad, wide1, returned{slot: 1000, call: 20, method: "getBalance", caller: 1}, slots.Finalized, sc.before(wide1, slots.Finalized, "getBalance"), tip, lagKnown)
	sc.check(&bad, wide1, returned{slot: 1004, call: 22, method: "getSlot", caller: 1}, slots.Finalized, sc.before(wide1, slots.Finalized, "getSlot"), tip, lagKnown)
	before := sc.before(wide2, slots.Finalized, "getLatestBlockhash")
	if before == nil || before.slot != 1000 {
		t.Fatalf("the client-wide context mark after calls 20 and 22 is %+v, want slot 1000", before)
	}
	sc.check(&bad, wide2, returned{slot: 900, call: 21, method: "getLatestBlockhash", caller: 3}, slots.Finalized, before, tip, lagKnown)
	sc.check(&bad, wide2, returned{slot: 1001, call: 23, method: "getSlot", caller: 3}, slots.Finalized, sc.before(wide2, slots.Finalized, "getSlot"), tip, lagKnown)
	if bad.n != 2 || !strings.Contains(bad.first[0], "caller 3 (client-wide mark): call 21 (getLatestBlockhash, finalized) returned context slot 900, below slot 1000 the client returned (caller 1, call 20, getBalance)") ||
		!strings.Contains(bad.first[1], "call 23 (getSlot, finalized) returned context slot 1001, below slot 1004 the client returned (caller 1, call 22, getSlot)") {
		t.Fatalf("client-wide caller: %d violations %q, want call 21 below call 20's slot and call 23 below call 22's", bad.n, bad.first)
	}
	if sc.before(own, slots.Finalized, "getBalance") != nil {
		t.Error("a caller with a session is held to the client-wide mark")
	}
	// Answered 100 behind the tip to a caller anchored near it.
	if n := sc.behind[lagKnown][0][heldAnchored].Load() + sc.behind[lagKnown][1][heldAnchored].Load(); n != 2 {
		t.Errorf("%d anchored reads counted behind the tip, want 2 (calls 12 and 21)", n)
	}
}

// TestCheckSessionsCatchesMismatch feeds a caller whose session never
// saw the slot returned to it.
func TestCheckSessionsCatchesMismatch(t *testing.T) {
	var sc slotCheck
	var bad violations
	w := &caller{id: 4, session: new(slots.Session)}
	w.last[slots.Processed] = returned{slot: 1234, call: 1, method: "getSlot", caller: 4}
	sc.checkSessions(&bad, []*caller{w, {id: 5}})
	if bad.n != 1 || !strings.Contains(bad.first[0], "caller 4 (own session): its session's mark at processed is 0, but the highest slot returned to it is 1234") {
		t.Fatalf("checkSessions: %d violations %q, want caller 4's mark", bad.n, bad.first)
	}
}

// TestLagCheckCatchesVacuousRun feeds the lagging endpoint's check a run
// where the pool never marked it lagging and it never refused nor served:
// every way the bound could prove nothing is reported.
func TestLagCheckCatchesVacuousRun(t *testing.T) {
	var l lagWatch
	var sc slotCheck
	var bad violations
	l.check(&bad, &sc)
	for _, want := range []string{"did not mark it lagging", "no snapshot showed it in step", "received no read", "refused no read", "served no slot-bearing read", "the bound proves nothing"} {
		found := false
		for _, m := range bad.first {
			found = found || strings.Contains(m, want)
		}
		if !found {
			t.Errorf("lag check on an empty run: no violation says %q: %q", want, bad.first)
		}
	}
}

// TestLagWatchPhases walks the lagging endpoint through its schedule as
// the soak's goroutines do.
func TestLagWatchPhases(t *testing.T) {
	var l lagWatch
	lagging := endpoint.Snapshot{Name: lagName, Slot: 900, SlotLag: 100, SlotStanding: endpoint.Lagging}
	inStep := endpoint.Snapshot{Name: lagName, Slot: 1000, SlotStanding: endpoint.InStep}
	l.observe(inStep) // not yet known: no move
	l.observe(lagging)
	if p := l.current(); p != lagKnown {
		t.Fatalf("after a lagging snapshot: %s, want %s", p, lagKnown)
	}
	l.move(lagCaughtUp, lagBehind, lagKnown)
	l.observe(lagging) // its old mark: still lagging until it answers
	l.observe(inStep)
	if p := l.current(); p != lagCaughtUp || !l.caughtUp.Load() {
		t.Fatalf("caught up and seen in step: %s, caughtUp %v", p, l.caughtUp.Load())
	}
	l.move(lagBehindAgain, lagCaughtUp)
	l.observe(lagging)
	if p := l.current(); p != lagKnownAgain {
		t.Fatalf("behind again and seen lagging: %s, want %s", p, lagKnownAgain)
	}
	for _, tt := range []struct {
		done int64
		want uint64
	}{{0, lagSlots}, {349, lagSlots}, {350, 0}, {699, 0}, {700, lagSlots}, {1000, lagSlots}} {
		if got := lagSchedule(tt.done, 1000); got != tt.want {
			t.Errorf("lagSchedule(%d, 1000) = %d, want %d", tt.done, got, tt.want)
		}
	}
}

// TestJudgeCatchesMisclassification feeds the resolve soak's judge every
// kind of wrong verdict against a ledger's truth, and the right ones.
func TestJudgeCatchesMisclassification(t *testing.T) {
	const lvbh, slot, tip = 5150, 1000, 1100
	landed := fixtures.LedgerTx{Arrivals: 1, Forwarded: 1, Landed: true, Slot: slot, LastValidBlockHeight: lvbh}
	failed := landed
	failed.Err = json.RawMessage(`{"InstructionError":[0,{"Custom":6001}]}`)
	lost := fixtures.LedgerTx{Arrivals: 1, Forwarded: 1, Dropped: 1, LastValidBlockHeight: lvbh}
	expired := lost
	expired.Expired = true
	decoded := map[string]any{"InstructionError": []any{0.0, map[string]any{"Custom": 6001.0}}} // as solana-go decodes it
	result := func(st confirm.Status, slot uint64, conf rpc.ConfirmationStatusType, err any, height uint64) confirm.Result {
		return confirm.Result{Status: st, Slot: slot, Confirmation: conf, Err: err, BlockHeight: height, LastValidBlockHeight: lvbh}
	}
	C, F := rpc.ConfirmationStatusConfirmed, rpc.ConfirmationStatusFinalized
	for _, tt := range []struct {
		name       string
		res        confirm.Result
		truth      fixtures.LedgerTx
		commitment rpc.CommitmentType
		tip        uint64
		want       string // "" when the verdict is right
	}{
		{"landed", result(confirm.Landed, slot, C, nil, 0), landed, rpc.CommitmentConfirmed, tip, ""},
		{"failed", result(confirm.Failed, slot, C, decoded, 0), failed, rpc.CommitmentConfirmed, tip, ""},
		{"expired", result(confirm.Expired, 0, "", nil, lvbh+1), expired, rpc.CommitmentConfirmed, tip, ""},
		{"expired but landed", result(confirm.Expired, 0, "", nil, lvbh+1), landed, rpc.CommitmentConfirmed, tip, "EXPIRED BUT LANDED"},
		{"expired while it can land", result(confirm.Expired, 0, "", nil, lvbh+1), lost, rpc.CommitmentConfirmed, tip, "can still land"},
		{"expired from no height", result(confirm.Expired, 0, "", nil, lvbh), expired, rpc.CommitmentConfirmed, tip, "not past lastValidBlockHeight"},
		{"landed, not landed", result(confirm.Landed, slot, C, nil, 0), lost, rpc.CommitmentConfirmed, tip, "has not landed"},
		{"landed elsewhere", result(confirm.Landed, slot+1, C, nil, 0), landed, rpc.CommitmentConfirmed, tip, "the ledger's is 1000"},
		{"landed, but failed", result(confirm.Landed, slot, C, nil, 0), failed, rpc.CommitmentConfirmed, tip, "failed on chain"},
		{"failed, but landed", result(confirm.Failed, slot, C, decoded, 0), landed, rpc.CommitmentConfirmed, tip, "without error"},
		{"failed otherwise", result(confirm.Failed, slot, C, map[string]any{"InstructionError": []any{1.0, "InvalidAccountData"}}, 0), failed, rpc.CommitmentConfirmed, tip, "the ledger's error"},
		{"finalized too soon", result(confirm.Landed, slot, F, nil, 0), landed, rpc.CommitmentFinalized, slot + 31, "not finalized under the tip"},
		{"below the commitment", result(confirm.Landed, slot, C, nil, 0), landed, rpc.CommitmentFinalized, tip, `confirmation "confirmed", finalized asked`},
		{"unknown", result(confirm.Unknown, 0, "", nil, 0), landed, rpc.CommitmentConfirmed, tip, "no verdict"},
		{"another blockhash", confirm.Result{Status: confirm.Landed, Slot: slot, Confirmation: C, LastValidBlockHeight: lvbh - 1}, landed, rpc.CommitmentConfirmed, tip, "lastValidBlockHeight"},
	} {
		s := &resolveSend{plan: resolvePlan{commitment: tt.commitment}, res: tt.res, truth: tt.truth, tip: tt.tip}
		got := judge(s)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%s: judge = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestCheckCallsCatchesResend feeds the resolve soak's send check a send
// attempted again after an attempt that may have been acted on, and acted
// on twice without a rebroadcast: both are reported, and the arrivals
// beyond the attempts that left the client.
func TestCheckCallsCatchesResend(t *testing.T) {
	r := &resolveSoak{t: t}
	maybe := transport.Attempt{Endpoint: "r0-act", Outcome: retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.MaybeDispatched}, Decision: retrypolicy.Decision{Retry: true}}
	ok := transport.Attempt{Endpoint: "r1-calm", Outcome: retrypolicy.Outcome{Dispatch: retrypolicy.Answered}}
	s := &resolveSend{sig: "sig", calls: [][]transport.Attempt{{maybe, ok}}, truth: fixtures.LedgerTx{Arrivals: 3, Forwarded: 2}}
	r.checkCalls(0, s, s.truth)
	for _, want := range []string{"attempted again after attempt 1 may have been acted on", "3 arrivals at the ledger but only 2 attempts left the client", "acted on 2 times with 0 rebroadcasts"} {
		found := false
		for _, m := range r.bad.first {
			found = found || strings.Contains(m, want)
		}
		if !found {
			t.Errorf("checkCalls: no violation says %q: %q", want, r.bad.first)
		}
	}
	// The same with two rebroadcasts, each its own call: nothing to report.
	r = &resolveSoak{t: t}
	first := maybe
	first.Decision = retrypolicy.Decision{}
	s = &resolveSend{sig: "sig", plan: resolvePlan{rebroadcast: true}, calls: [][]transport.Attempt{{first}, {ok}, {ok}},
		res: confirm.Result{Rebroadcasts: 2}, truth: fixtures.LedgerTx{Arrivals: 3, Forwarded: 3}, sendErr: engine.ErrAmbiguousDispatch}
	r.checkCalls(0, s, s.truth)
	if r.bad.n != 0 {
		t.Errorf("checkCalls flagged a send and two rebroadcasts: %q", r.bad.first)
	}
}
