package bench

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// rd is a made-up read that started at began ms, ended at ended ms and
// returned slot.
func rd(began, ended int, slot uint64) slotRead {
	return slotRead{began: time.Duration(began) * time.Millisecond, ended: time.Duration(ended) * time.Millisecond, slot: slot}
}

func TestBackInTime(t *testing.T) {
	for _, tt := range []struct {
		name  string
		floor uint64
		reads []slotRead
		want  int
	}{
		{"none", 0, nil, 0},
		{"rising one after the other", 0, []slotRead{rd(0, 1, 10), rd(2, 3, 11), rd(4, 5, 11)}, 0},
		{"lower after a higher ended", 0, []slotRead{rd(0, 1, 10), rd(2, 3, 9)}, 1},
		// Overlapping reads may end in either order: the caller of the
		// second could not have seen the first.
		{"lower while a higher was under way", 0, []slotRead{rd(0, 5, 10), rd(1, 6, 9)}, 0},
		{"lower, started the instant a higher ended", 0, []slotRead{rd(0, 5, 10), rd(5, 6, 9)}, 0},
		{"lower, started just after a higher ended", 0, []slotRead{rd(0, 5, 10), rd(6, 7, 9)}, 1},
		// The mark is the highest of every read ended before, not the
		// last one.
		{"below an earlier, higher read", 0, []slotRead{rd(0, 1, 12), rd(2, 3, 10), rd(4, 5, 11)}, 2},
		{"the warm-up's slot is the first mark", 20, []slotRead{rd(0, 1, 19), rd(0, 1, 20), rd(2, 3, 21)}, 1},
		// Order in the slice does not matter.
		{"unsorted", 0, []slotRead{rd(6, 7, 9), rd(0, 5, 10), rd(1, 2, 10)}, 1},
	} {
		if got := backInTime(tt.floor, tt.reads); got != tt.want {
			t.Errorf("%s: backInTime = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestLagLine(t *testing.T) {
	for _, slots := range [][]uint64{nil, {100}, {100, 100, 100}, {98, 100, 100}, {101, 100, 100}} {
		if l := newLagLine(slots); l.ok || l.lagging(rd(0, 1, 0)) {
			t.Errorf("newLagLine(%v) lags", slots)
		}
	}
	l := newLagLine([]uint64{900, 1000, 1001})
	if !l.ok || l.mid != 950 {
		t.Fatalf("newLagLine = %+v, want the midpoint 950", l)
	}
	step := int(slotTime / time.Millisecond)
	for _, tt := range []struct {
		r    slotRead
		want bool
	}{
		{rd(0, 1, 900), true},
		{rd(0, 1, 949), true},
		{rd(0, 1, 950), false},
		{rd(0, 1, 1000), false},
		// Ten slot times later every endpoint is ten slots further: the
		// line moved with them.
		{rd(10*step, 10*step+1, 955), true},
		{rd(10*step, 10*step+1, 1010), false},
		// A long call to the lagging endpoint: it answered at most its
		// duration in slots later, far from the line.
		{rd(0, 2000, 905), true},
	} {
		if got := l.lagging(tt.r); got != tt.want {
			t.Errorf("lagging(%+v) = %v, want %v", tt.r, got, tt.want)
		}
	}
}

func TestAnswerWatch(t *testing.T) {
	var nilWatch *answerWatch
	nilWatch.arm(time.Now())
	nilWatch.saw()
	if _, ok := nilWatch.firstAnswer(); ok {
		t.Error("a nil watch saw an answer")
	}
	w := new(answerWatch)
	w.saw() // before arm: the warm-up's, not counted
	if _, ok := w.firstAnswer(); ok {
		t.Error("an answer before arm was counted")
	}
	w.arm(time.Now().Add(-time.Hour))
	w.saw()
	first, ok := w.firstAnswer()
	if !ok || first < time.Hour {
		t.Fatalf("firstAnswer = %s, %v; want at least an hour after arm", first, ok)
	}
	w.saw()
	if again, _ := w.firstAnswer(); again != first {
		t.Errorf("a later answer moved the first from %s to %s", first, again)
	}
}

func TestMeasureSlots(t *testing.T) {
	slots := []uint64{900, 1000, 1000}
	// Reads from b or c, and three from a: the first of them ends at 5 ms,
	// the first answer from a; the second was under way then, the third
	// started after it.
	reads := []slotRead{rd(0, 2, 1000), rd(1, 3, 1000), rd(2, 5, 900), rd(4, 6, 900), rd(6, 8, 901), rd(7, 9, 1001)}

	f := measureSlots(reads, 1000, slots, nil)
	want := slotFigures{reads: 6, backInTime: 3, lagging: 3, laggingKnown: 1, readsKnown: 2, known: 5 * time.Millisecond}
	if f != want {
		t.Errorf("measureSlots = %+v, want %+v", f, want)
	}

	// A client that reports its attempts heard from a earlier (a refusal
	// at 1 ms): every read started after it counts as once known.
	w := new(answerWatch)
	w.arm(time.Now())
	w.first.Store(int64(time.Millisecond))
	f = measureSlots(reads, 1000, slots, w)
	want = slotFigures{reads: 6, backInTime: 3, lagging: 3, laggingKnown: 3, readsKnown: 4, known: time.Millisecond}
	if f != want {
		t.Errorf("with a watch, measureSlots = %+v, want %+v", f, want)
	}

	// No lag: no lagging figures, back in time still counted.
	f = measureSlots([]slotRead{rd(0, 1, 10), rd(2, 3, 9)}, 0, []uint64{9, 9, 9}, nil)
	if want := (slotFigures{reads: 2, backInTime: 1, known: -1}); f != want {
		t.Errorf("without lag, measureSlots = %+v, want %+v", f, want)
	}
	// A lag, never heard from a.
	f = measureSlots([]slotRead{rd(0, 1, 1000)}, 1000, slots, nil)
	if want := (slotFigures{reads: 1, known: -1}); f != want {
		t.Errorf("never from a, measureSlots = %+v, want %+v", f, want)
	}
}

// TestPoolSlotFigures pools three rounds' slot figures: sums, and the
// rounds' times to the first answer from the lagging endpoint in order.
func TestPoolSlotFigures(t *testing.T) {
	ms := time.Millisecond
	var rounds []Cell
	for i, k := range []time.Duration{3 * ms, -1, 5 * ms} {
		c := round1(100, 0, 0, time.Second, ms)
		c.SlotReads, c.BackInTime, c.SlotReadsKnown = 90, i, 80
		c.LaggingReads, c.LaggingReadsKnown, c.LaggingAnswered = 30, 25+i, 31
		c.RoundLagKnown = []time.Duration{k}
		rounds = append(rounds, c)
	}
	p := poolRounds(rounds)
	if p.SlotReads != 270 || p.BackInTime != 3 || p.SlotReadsKnown != 240 ||
		p.LaggingReads != 90 || p.LaggingReadsKnown != 78 || p.LaggingAnswered != 93 {
		t.Errorf("pooled slot figures %+v", p)
	}
	if want := []time.Duration{3 * ms, -1, 5 * ms}; !slices.Equal(p.RoundLagKnown, want) || !p.Lags() {
		t.Errorf("RoundLagKnown %v, want %v", p.RoundLagKnown, want)
	}
	if got := fmtKnown(p.RoundLagKnown); got != "3 ms–5 ms (never in 1 of 3 rounds)" {
		t.Errorf("fmtKnown = %q", got)
	}
	empty, healthy := poolRounds(rounds[:0]), poolRounds([]Cell{round1(1, 0, 0, time.Second)})
	if empty.Lags() || healthy.Lags() {
		t.Error("a cell without a lagging endpoint lags")
	}
	for _, tt := range []struct {
		known []time.Duration
		want  string
	}{{nil, "—"}, {[]time.Duration{-1}, "never"}, {[]time.Duration{2 * ms, 2 * ms}, "2 ms"}} {
		if got := fmtKnown(tt.known); got != tt.want {
			t.Errorf("fmtKnown(%v) = %q, want %q", tt.known, got, tt.want)
		}
	}
}

// TestMarkdownIssue13 renders a made-up report of three rounds: issue
// 13's targets on solroute in lagging-silent and on tracking's cost in
// healthy, the other clients for comparison, and the slot table under
// the scenario.
func TestMarkdownIssue13(t *testing.T) {
	ms := time.Millisecond
	// cell pools three rounds of one client, goodput g each, with the
	// given slot figures per round.
	cell := func(sc, client string, g, back, fromA, fromAKnown, answered int) Cell {
		var rounds []Cell
		for range 3 {
			rc := round1(g, 0, 0, time.Second, 2*ms)
			rc.Scenario, rc.Client = sc, client
			rc.SlotReads, rc.SlotReadsKnown, rc.BackInTime = 90, 80, back
			if sc == laggingScenario {
				rc.LaggingReads, rc.LaggingReadsKnown, rc.LaggingAnswered = fromA, fromAKnown, answered
				rc.RoundLagKnown = []time.Duration{2 * ms}
			}
			rounds = append(rounds, rc)
		}
		return poolRounds(rounds)
	}
	r := &Report{
		Callers: 4, Calls: 100, Rounds: 3, SendEvery: 10, CallTimeout: time.Second, CellTimeout: time.Second,
		Clients:   []string{"round-robin", "solroute", trackingOff},
		Scenarios: []string{"healthy", laggingScenario},
		Cells: []Cell{
			cell("healthy", "round-robin", 1050, 0, 0, 0, 0),
			cell("healthy", "solroute", 980, 0, 0, 0, 0),
			cell("healthy", trackingOff, 1000, 0, 0, 0, 0),
			cell(laggingScenario, "round-robin", 1000, 30, 30, 27, 30),
			cell(laggingScenario, "solroute", 1000, 0, 0, 0, 0),
			cell(laggingScenario, trackingOff, 1000, 28, 29, 26, 29),
		},
	}
	// CPU time: 110 µs a call with tracking, 100 µs without.
	on, off := r.Cell("healthy", "solroute"), r.Cell("healthy", trackingOff)
	on.CPU, on.CPURounds = time.Duration(on.Made)*110*time.Microsecond, 3
	off.CPU, off.CPURounds = time.Duration(off.Made)*100*time.Microsecond, 3
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b, ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## Targets (issue 13): a lagging endpoint that answers, slot-aware routing and monotonic reads\n",
		"| lagging-silent: solroute reads back in time = 0 | 0 of 270 reads; all 3 rounds' calls pooled | yes |",
		"| lagging-silent: solroute reads served by the lagging endpoint a once its lag is known = 0 % | 0 % (0 of the 240 reads that started after solroute's first answer from a, 2 ms after the fault; all 3 rounds' calls pooled) | yes |",
		"| lagging-silent: solroute, the whole phase, fault's onset included | 0 reads returned from a (0 before its lag was known); a answered 0 getBalance calls with a result, counted by a; 300 requests reached a, refusals included | — |",
		"| lagging-silent: round-robin, for comparison | 90 of 270 reads back in time (33.3 %); 90 returned from a (33.3 %), 81 of the 240 that started once its lag was known (33.8 %); a answered 90 | — |",
		"| every other scenario: reads back in time (no endpoint lags there) | none, for any client (810 reads) | — |",
		"| healthy: goodput with slot tracking on ≥ 0.97× off (within 3 %) | 0.980× (980 vs 1000 calls/s; medians of 3 rounds, per-round ratios 0.98–0.98×) | yes |",
		"| healthy: what slot tracking costs per call, on vs off | CPU/call 110 µs vs 100 µs (+10.0 %); allocs/call 100.0 vs 100.0; p50 2 ms vs 2 ms; p99 2 ms vs 2 ms; all 3 rounds' calls pooled | — |",
		"In `lagging-silent` endpoint `a` falls 100 slots behind",
		"- *Back in time*: a successful read whose context slot is below the highest slot of the reads the same client instance had returned before it started",
		// The slot table under the scenario, after its main table.
		"| client | reads ok | back in time | returned from a | from a once known | answered by a (counted by a) | first answer from a after the fault |\n",
		"| solroute | 270 | 0 (0 %) | 0 (0 %) | 0 of 240 (0 %) | 0 | 2 ms |\n",
		"| solroute-untracked | 270 | 84 (31.1 %) | 87 (32.2 %) | 78 of 240 (32.5 %) | 87 | 2 ms |\n",
		// The workload says what every read asks.
		"the others `getBalance` at `confirmed` commitment",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "| reads ok |") != 1 {
		t.Errorf("want one slot table, under %s only:\n%s", laggingScenario, md)
	}
	if i, j := strings.Index(md, "## Targets (issue 13)"), strings.Index(md, "## Healthy: three endpoints answer normally"); i < 0 || j < i {
		t.Errorf("issue 13's targets should come before the scenario tables")
	}

	// Without lagging-silent the note says nothing of it; a round whose
	// CPU time could not be read leaves the CPU figure out.
	off.CPURounds = 2
	short := *r
	short.Scenarios = []string{"healthy"}
	short.Cells = r.Cells[:3]
	b.Reset()
	if err := short.WriteMarkdown(&b, ""); err != nil {
		t.Fatal(err)
	}
	if md := b.String(); strings.Contains(md, "In `lagging-silent`") || strings.Contains(md, "*From a*") || strings.Contains(md, "CPU/call 1") ||
		!strings.Contains(md, "| healthy: what slot tracking costs per call, on vs off | allocs/call 100.0 vs 100.0;") {
		t.Errorf("a report of healthy alone:\n%s", md)
	}

	// A solroute that went back in time and served from a fails both
	// targets; tracking that costs 10 % fails its own.
	*r.Cell(laggingScenario, "solroute") = cell(laggingScenario, "solroute", 1000, 1, 2, 1, 2)
	*r.Cell("healthy", "solroute") = cell("healthy", "solroute", 900, 0, 0, 0, 0)
	b.Reset()
	if err := r.WriteMarkdown(&b, ""); err != nil {
		t.Fatal(err)
	}
	md = b.String()
	for _, want := range []string{
		"| lagging-silent: solroute reads back in time = 0 | 3 of 270 reads; all 3 rounds' calls pooled | no |",
		"| lagging-silent: solroute reads served by the lagging endpoint a once its lag is known = 0 % | 1.2 % (3 of the 240 reads",
		"| healthy: goodput with slot tracking on ≥ 0.97× off (within 3 %) | 0.900× (900 vs 1000 calls/s",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(md, "calls/s; medians of 3 rounds, per-round ratios 0.90–0.90×) | no |") {
		t.Errorf("tracking that costs 10 %% is not a met target:\n%s", md)
	}
}
