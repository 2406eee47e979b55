package bench

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRoundOrder(t *testing.T) {
	for _, tt := range []struct {
		round, k int
		want     []int
	}{
		{0, 3, []int{0, 1, 2}},
		{1, 3, []int{1, 2, 0}},
		{2, 3, []int{2, 0, 1}},
		{3, 3, []int{0, 1, 2}},
		{4, 5, []int{4, 0, 1, 2, 3}},
		{1, 1, []int{0}},
	} {
		if got := roundOrder(tt.round, tt.k); !slices.Equal(got, tt.want) {
			t.Errorf("roundOrder(%d, %d) = %v, want %v", tt.round, tt.k, got, tt.want)
		}
	}
	// Over k rounds every client runs first once and last once.
	const k = 5
	first, last := map[int]int{}, map[int]int{}
	for r := range k {
		o := roundOrder(r, k)
		first[o[0]]++
		last[o[k-1]]++
	}
	if len(first) != k || len(last) != k {
		t.Errorf("over %d rounds, first %v and last %v: want every client once in each", k, first, last)
	}
}

// TestRunRotatesRounds runs three clients for three rounds and checks the
// order they ran in (from the progress lines) and the pooled cells.
func TestRunRotatesRounds(t *testing.T) {
	var progress bytes.Buffer
	o := tinyOptions()
	o.Clients = []string{"net/http", "solana-go", "solroute"}
	o.Scenarios = []string{"healthy", "resetting"}
	o.Rounds = 3
	o.Progress = &progress
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, r)
	if r.Rounds != 3 {
		t.Errorf("report rounds %d, want 3", r.Rounds)
	}

	var ran []string
	for line := range strings.Lines(progress.String()) {
		f := strings.Fields(line)
		if len(f) > 3 && f[2] == "round" {
			ran = append(ran, f[0]+" "+f[3]+" "+f[1])
		}
	}
	var want []string
	for _, sc := range o.Scenarios {
		for rd, clients := range [][]string{
			{"net/http", "solana-go", "solroute"},
			{"solana-go", "solroute", "net/http"},
			{"solroute", "net/http", "solana-go"},
		} {
			for _, cn := range clients {
				want = append(want, fmt.Sprintf("%s %d/3 %s", sc, rd+1, cn))
			}
		}
	}
	if !slices.Equal(ran, want) {
		t.Errorf("cells ran in order\n%s\nwant\n%s", strings.Join(ran, "\n"), strings.Join(want, "\n"))
	}

	for _, c := range r.Cells {
		if len(c.RoundGoodputs) != 3 {
			t.Errorf("%s/%s: %d round goodputs, want 3", c.Scenario, c.Client, len(c.RoundGoodputs))
		}
		if c.Made != 3*o.Calls && c.CutRounds == 0 {
			t.Errorf("%s/%s: %d calls over 3 uncut rounds, want %d", c.Scenario, c.Client, c.Made, 3*o.Calls)
		}
		if lo, hi := c.GoodputRange(); c.Goodput() < lo || c.Goodput() > hi {
			t.Errorf("%s/%s: median goodput %.0f outside its range %.0f–%.0f", c.Scenario, c.Client, c.Goodput(), lo, hi)
		}
	}
	// The resetting faults are seeded: every round of net/http sees some.
	if c := r.Cell("resetting", "net/http"); c != nil && c.Failed < 3 {
		t.Errorf("resetting/net/http: %d failed over 3 rounds, want some in each", c.Failed)
	}
}

// round1 builds a made-up measure of one round.
func round1(succeeded, failed, ambiguous int, elapsed time.Duration, lat ...time.Duration) Cell {
	made := succeeded + failed + ambiguous
	c := Cell{
		Scenario: "healthy", Client: "solroute",
		Made: made, Sends: made / 10, Succeeded: succeeded, Failed: failed, Ambiguous: ambiguous,
		SendsSucceeded: succeeded / 10, Elapsed: elapsed, Mallocs: uint64(100 * made),
		Delivered: made / 10, Duplicates: ambiguous, Latencies: slices.Sorted(slices.Values(lat)),
		Requests: []int{made / 10, made / 2, made - made/10 - made/2},
	}
	return c
}

func TestPoolRounds(t *testing.T) {
	ms := time.Millisecond
	rounds := []Cell{
		round1(90, 10, 0, time.Second, 5*ms, 1*ms, 9*ms),          // 90 calls/s
		round1(100, 0, 0, 500*time.Millisecond, 2*ms, 4*ms),       // 200 calls/s
		round1(40, 15, 5, 800*time.Millisecond, 3*ms, 8*ms, 6*ms), // 50 calls/s, cut
	}
	rounds[2].Truncated, rounds[2].CutRounds = true, 1
	// Before their drains: 80 in 0.8 s, 90 in 0.45 s, 40 in 0.8 s.
	for i, st := range []struct {
		d time.Duration
		n int
	}{{800 * ms, 80}, {450 * ms, 90}, {800 * ms, 40}} {
		rounds[i].Steady, rounds[i].SteadySucceeded = st.d, st.n
	}
	p := poolRounds(rounds)

	if p.Scenario != "healthy" || p.Client != "solroute" {
		t.Errorf("pooled cell is %s/%s", p.Scenario, p.Client)
	}
	if want := []float64{90, 200, 50}; !slices.Equal(p.RoundGoodputs, want) {
		t.Errorf("round goodputs %v, want %v (round order)", p.RoundGoodputs, want)
	}
	if g := p.Goodput(); g != 90 {
		t.Errorf("goodput %g, want the median 90", g)
	}
	if lo, hi := p.GoodputRange(); lo != 50 || hi != 200 {
		t.Errorf("goodput range %g–%g, want 50–200", lo, hi)
	}
	if p.Made != 260 || p.Succeeded != 230 || p.Failed != 25 || p.Ambiguous != 5 {
		t.Errorf("made %d = %d ok + %d failed + %d ambiguous, want 260 = 230 + 25 + 5", p.Made, p.Succeeded, p.Failed, p.Ambiguous)
	}
	if p.Sends != 10+10+6 || p.SendsSucceeded != 9+10+4 || p.Delivered != 26 || p.Duplicates != 5 {
		t.Errorf("sends %d ok %d, delivered %d, duplicates %d; want 26, 23, 26, 5", p.Sends, p.SendsSucceeded, p.Delivered, p.Duplicates)
	}
	if got, want := p.SuccessRate(), 230.0/260; got != want {
		t.Errorf("success rate %g, want %g (over every round's calls)", got, want)
	}
	if got := p.AllocsPerCall(); got != 100 {
		t.Errorf("allocs/call %g, want 100", got)
	}
	if p.Elapsed != 2300*ms {
		t.Errorf("elapsed %s, want the sum 2.3s", p.Elapsed)
	}
	// Per endpoint: 10+10+6, 50+50+30, 40+40+24.
	if want := []int{26, 130, 104}; !slices.Equal(p.Requests, want) {
		t.Errorf("requests per endpoint %v, want the sums %v", p.Requests, want)
	}
	if got, want := p.RequestShares(), []float64{0.1, 0.5, 0.4}; !slices.Equal(got, want) {
		t.Errorf("request shares %v, want %v", got, want)
	}
	if !p.Truncated || p.CutRounds != 1 {
		t.Errorf("truncated %v in %d rounds, want true in 1", p.Truncated, p.CutRounds)
	}
	wantLat := []time.Duration{1 * ms, 2 * ms, 3 * ms, 4 * ms, 5 * ms, 6 * ms, 8 * ms, 9 * ms}
	if !slices.Equal(p.Latencies, wantLat) {
		t.Errorf("latencies %v, want every round's, sorted: %v", p.Latencies, wantLat)
	}
	if got := p.Percentile(0.5); got != 4*ms {
		t.Errorf("pooled p50 %s, want 4ms", got)
	}
	if got := p.Percentile(0.99); got != 9*ms {
		t.Errorf("pooled p99 %s, want 9ms", got)
	}
	if want := []float64{100, 200, 50}; !slices.Equal(p.RoundSteadyGoodputs, want) {
		t.Errorf("round steady goodputs %v, want %v (round order)", p.RoundSteadyGoodputs, want)
	}
	if g := p.SteadyGoodput(); g != 100 {
		t.Errorf("steady goodput %g, want the median 100", g)
	}
	if p.Steady != 2050*ms || p.SteadySucceeded != 210 {
		t.Errorf("steady %s with %d successes, want the sums 2.05s and 210", p.Steady, p.SteadySucceeded)
	}
	if got := poolRounds(nil); got.Made != 0 || got.Goodput() != 0 {
		t.Errorf("pool of no rounds = %+v", got)
	}
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{7}, 7}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{5, 5}, 5}} {
		in := slices.Clone(tt.xs)
		if got := median(tt.xs); got != tt.want {
			t.Errorf("median(%v) = %g, want %g", tt.xs, got, tt.want)
		}
		if !slices.Equal(in, tt.xs) {
			t.Errorf("median reordered its input: %v", tt.xs)
		}
	}
}

// TestMarkdownRounds renders a made-up report of three rounds: the header
// states the rounds and how they aggregate, the goodput shows its range,
// and the targets use the medians.
func TestMarkdownRounds(t *testing.T) {
	ms := time.Millisecond
	cell := func(sc, client string, goodputs ...int) Cell {
		var rounds []Cell
		for _, g := range goodputs {
			rc := round1(g, 0, 0, time.Second, 2*ms, 3*ms)
			rc.Scenario, rc.Client = sc, client
			rounds = append(rounds, rc)
		}
		return poolRounds(rounds)
	}
	r := &Report{
		Callers: 4, Calls: 100, Rounds: 3, SendEvery: 10, CallTimeout: time.Second, CellTimeout: time.Second,
		Clients:   []string{"net/http", "solana-go", "solroute"},
		Scenarios: []string{"healthy"},
		Cells: []Cell{
			cell("healthy", "net/http", 1000, 1100, 900),
			cell("healthy", "solana-go", 800, 1000, 600),
			cell("healthy", "solroute", 950, 800, 1000),
		},
	}
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b, ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"measures every cell (client × scenario) 3 times",
		"Goodput is the median of the 3 rounds",
		"goodput (calls/s): median (min–max)",
		"| net/http | 3000 | 1000 (900–1100) |",
		// solroute 950 ÷ net/http 1000; per round 950/1000, 800/1100, 1000/900.
		"| healthy goodput ≥ 0.9× net/http | 0.95× (950 vs 1000 calls/s; medians of 3 rounds, per-round ratios 0.73–1.11×) | yes |",
		"| healthy goodput ≥ 1.3× solana-go | 1.19× (950 vs 800 calls/s; medians of 3 rounds, per-round ratios 0.80–1.67×) | no |",
		"| healthy: net/http ÷ solana-go (the most any client can gain over solana-go at zero node latency, when neither is capped) | 1.25× (1000 vs 800 calls/s; medians of 3 rounds, per-round ratios 1.10–1.50×) | — |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}

	r.Rounds = 1
	for i := range r.Cells {
		r.Cells[i] = poolRounds([]Cell{round1(1000, 0, 0, time.Second, ms)})
		r.Cells[i].Scenario, r.Cells[i].Client = "healthy", r.Clients[i]
	}
	b.Reset()
	if err := r.WriteMarkdown(&b, ""); err != nil {
		t.Fatal(err)
	}
	if md := b.String(); !strings.Contains(md, "measures every cell (client × scenario) once") || strings.Contains(md, "median") {
		t.Errorf("one-round markdown should say once and mention no median:\n%s", md)
	}
}

func TestShares(t *testing.T) {
	for _, tt := range []struct {
		requests []int
		want     string
	}{
		{nil, "—"},
		{[]int{0, 0, 0}, "—"},
		{[]int{40, 0, 0}, "a 100 % · b 0 % · c 0 %"},
		{[]int{1, 1, 2}, "a 25.0 % · b 25.0 % · c 50.0 %"},
		{[]int{1, 1, 1}, "a 33.3 % · b 33.3 % · c 33.3 %"},
		// A trickle to the slow peer is not rounded to nothing, nor the
		// rest to everything.
		{[]int{4, 4998, 4998}, "a 0.04 % · b 50.0 % · c 50.0 %"},
		{[]int{1, 9999, 0}, "a 0.01 % · b > 99.9 % · c 0 %"},
		{[]int{1, 999, 0}, "a 0.1 % · b 99.9 % · c 0 %"},
	} {
		c := Cell{Requests: tt.requests}
		if got := fmtShares(&c); got != tt.want {
			t.Errorf("fmtShares(%v) = %q, want %q", tt.requests, got, tt.want)
		}
	}
}

// TestMarkdownIssue12 renders a made-up report of three rounds with a
// slow peer and a blackhole: issue 12's targets on plain solroute against
// healthy, the share of requests sent to the faulty endpoint, hedging for
// comparison, the line left for the owner, and issue 6's table still
// there.
func TestMarkdownIssue12(t *testing.T) {
	ms := time.Millisecond
	// cell pools three rounds of one client in one scenario, each round
	// with goodput g (calls in one second), the given latencies, and
	// requests a, b, c.
	cell := func(sc, client string, g int, requests []int, lat ...time.Duration) Cell {
		var rounds []Cell
		for range 3 {
			rc := round1(g, 0, 0, time.Second, lat...)
			rc.Scenario, rc.Client, rc.Requests = sc, client, slices.Clone(requests)
			// Steady goodput 1.5 g: a drain of a third of the phase.
			rc.Steady, rc.SteadySucceeded = time.Second, g*3/2
			rounds = append(rounds, rc)
		}
		return poolRounds(rounds)
	}
	even := []int{10, 10, 10}
	r := &Report{
		Callers: 4, Calls: 100, Rounds: 3, SendEvery: 10, CallTimeout: time.Second, CellTimeout: time.Second,
		Clients:   []string{"net/http", "round-robin", "solroute", "solroute-hedged"},
		Scenarios: []string{"healthy", "blackholed", "slow-peer"},
		Cells: []Cell{
			cell("healthy", "net/http", 1100, []int{30, 0, 0}, 1*ms),
			cell("healthy", "round-robin", 1050, even, 1*ms),
			cell("healthy", "solroute", 1000, even, 2*ms, 3*ms),
			cell("healthy", "solroute-hedged", 800, even, 2*ms, 4*ms),
			cell("blackholed", "net/http", 0, []int{30, 0, 0}, time.Second),
			cell("blackholed", "round-robin", 20, even, 1*ms, time.Second),
			cell("blackholed", "solroute", 500, []int{1, 50, 49}, 2*ms, time.Second),
			cell("blackholed", "solroute-hedged", 760, []int{2, 49, 49}, 2*ms, 8*ms),
			cell("slow-peer", "net/http", 100, []int{30, 0, 0}, 300*ms),
			cell("slow-peer", "round-robin", 300, even, 1*ms, 300*ms),
			cell("slow-peer", "solroute", 950, []int{1, 4998, 5001}, 2*ms, 5*ms),
			cell("slow-peer", "solroute-hedged", 800, []int{0, 50, 50}, 2*ms, 6*ms),
		},
	}
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b, ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## Targets (issue 6)\n",
		"| healthy goodput ≥ 0.9× net/http | 0.91× (1000 vs 1100 calls/s; medians of 3 rounds, per-round ratios 0.91–0.91×) | yes |",
		"## Targets (issue 12): a slow or hanging peer, solroute without hedging\n",
		"| slow-peer: steady goodput ≥ 0.9× healthy's | 0.95× (1425 vs 1500 calls/s; medians of 3 rounds) | yes |",
		"| slow-peer: goodput of the whole phase, drain included, ÷ healthy's | 0.95× (950 vs 1000 calls/s; medians of 3 rounds) | — |",
		"| blackholed: steady goodput ≥ 0.9× healthy's | 0.50× (750 vs 1500 calls/s; medians of 3 rounds) | no |",
		// 100 calls per round of 1 s; attempts of half the 1 s call timeout.
		"healthy solroute makes its 100 calls in about 1.00 s per round, so a single call on the hanging endpoint bounds blackholed goodput by 100 calls ÷ 500 ms = 200 calls/s, whatever the balancing.",
		"| slow-peer: p99 ≤ 3× healthy p99 | 5 ms vs 3 ms (1.67×; all 3 rounds' calls pooled) | yes |",
		"| slow-peer: share of the requests sent to the slow endpoint a | solroute 0.01 % (3 of 30000), solroute-hedged 0 % (0 of 300), round-robin 33.3 % (30 of 90) | — |",
		"| slow-peer: solroute-hedged, for comparison | goodput 1.00× its healthy (800 vs 800 calls/s), p99 6 ms (1.50× its healthy 4 ms) | — |",
		"| blackholed: goodput of the whole phase, drain included, ÷ healthy's | 0.50× (500 vs 1000 calls/s; medians of 3 rounds) | — |",
		"| blackholed: p99 ≤ 3× healthy p99 | 1.00 s vs 3 ms (333.33×; all 3 rounds' calls pooled) | no |",
		"| blackholed: share of the requests sent to the hanging endpoint a | solroute 1.0 % (3 of 300), solroute-hedged 2.0 % (6 of 300), round-robin 33.3 % (30 of 90) | — |",
		"| healthy goodput unchanged within noise (balancing costs nothing when every peer is fast) | solroute 1000 (1000–1000) calls/s, median of 3 rounds: to be read by the owner against the healthy solroute goodput of the report before balancing",
		// The scenario tables carry the shares.
		"| solroute | 2850 | 950 (950–950) | 100.00 % | 2 ms | 5 ms | 5 ms | 100.0 | 285/285 | 0 | 0 | a 0.01 % · b 50.0 % · c 50.0 % |",
		"| net/http | 0 | 0 | 0.00 % | 1.00 s | 1.00 s | 1.00 s | 0.0 | 0/0 | 0 | 0 | a 100 % · b 0 % · c 0 % |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "no target") {
		t.Errorf("blackholed has a target now, the markdown still says it has none:\n%s", md)
	}
	if i, j := strings.Index(md, "## Targets (issue 12)"), strings.Index(md, "## One of three endpoints answers every call after 300 ms"); i < 0 || j < i {
		t.Errorf("issue 12's targets should come before the scenario tables")
	}
}
