package bench

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

// tinyOptions is a run small enough for CI: few callers and calls, one
// round, short timeouts so that the blackholed cells end quickly.
func tinyOptions() Options {
	return Options{
		Callers:     4,
		Calls:       40,
		Rounds:      1,
		Warmup:      8,
		SendEvery:   4,
		CallTimeout: 200 * time.Millisecond,
		CellTimeout: time.Second,
	}
}

func TestRunEveryClientAndScenario(t *testing.T) {
	for _, isolate := range []bool{false, true} {
		t.Run(map[bool]string{false: "in-process", true: "child-process"}[isolate], func(t *testing.T) {
			o := tinyOptions()
			o.Isolate = isolate
			if isolate {
				// Two scenarios prove the child protocol: its counts, and
				// the slots and answers of a lagging endpoint.
				o.Scenarios = []string{"resetting", laggingScenario}
			}
			r, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			checkReport(t, r)
		})
	}
}

// checkReport checks what every run must show, and the facts the
// scenarios are built to demonstrate.
func checkReport(t *testing.T, r *Report) {
	t.Helper()
	if want := len(r.Clients) * len(r.Scenarios); len(r.Cells) != want {
		t.Fatalf("%d cells, want %d", len(r.Cells), want)
	}
	for _, c := range r.Cells {
		if c.Made == 0 || len(c.Latencies) != c.Made {
			t.Errorf("%s/%s: made %d calls, %d latencies", c.Scenario, c.Client, c.Made, len(c.Latencies))
		}
		if c.Succeeded+c.Failed+c.Ambiguous != c.Made {
			t.Errorf("%s/%s: outcomes %d+%d+%d != %d made", c.Scenario, c.Client, c.Succeeded, c.Failed, c.Ambiguous, c.Made)
		}
		for i := 1; i < len(c.Latencies); i++ {
			if c.Latencies[i] < c.Latencies[i-1] {
				t.Fatalf("%s/%s: latencies not sorted", c.Scenario, c.Client)
			}
		}
		checkShares(t, &c)
		checkSlots(t, &c)
		if _, ok := processCPU(); ok && (c.CPURounds != len(c.RoundGoodputs) || c.CPUPerCall() <= 0) {
			t.Errorf("%s/%s: CPU %s in %d of %d rounds", c.Scenario, c.Client, c.CPU, c.CPURounds, len(c.RoundGoodputs))
		}
		// The last call starts before the phase ends, and no call ends
		// before its start.
		if c.Steady > c.Elapsed || c.SteadySucceeded > c.Succeeded || c.SteadyGoodput() < 0 {
			t.Errorf("%s/%s: steady %s of %s elapsed, %d of %d successes", c.Scenario, c.Client, c.Steady, c.Elapsed, c.SteadySucceeded, c.Succeeded)
		}
		solroute := strings.HasPrefix(c.Client, "solroute")
		if solroute && c.Duplicates != 0 {
			t.Errorf("%s/%s: %d duplicate deliveries, want 0", c.Scenario, c.Client, c.Duplicates)
		}
		if !solroute && c.Ambiguous != 0 {
			t.Errorf("%s/%s: %d ambiguous outcomes from a client that has none", c.Scenario, c.Client, c.Ambiguous)
		}
	}
	if c := r.Cell("healthy", "net/http"); c != nil && c.SuccessRate() != 1 {
		t.Errorf("healthy/net/http: success %.3f, want 1", c.SuccessRate())
	}
	if c := r.Cell("healthy", "solroute"); c != nil && c.SuccessRate() != 1 {
		t.Errorf("healthy/solroute: success %.3f, want 1", c.SuccessRate())
	}
	// The scenarios reach the clients: a single endpoint that always
	// refuses fails every call (solroute's success under the faults is
	// what the report measures, not what this test pins).
	for _, sc := range []string{"rate-limited", "lagging"} {
		if c := r.Cell(sc, "solana-go"); c != nil && c.Succeeded != 0 {
			t.Errorf("%s/solana-go: %d successes against a faulty single endpoint, want 0", sc, c.Succeeded)
		}
	}
	// The slow peer answers after 300 ms, later than tinyOptions' call
	// timeout: a single endpoint that slow fails every call.
	if c := r.Cell("slow-peer", "net/http"); c != nil && slowPeerLatency > r.CallTimeout && c.Succeeded != 0 {
		t.Errorf("slow-peer/net/http: %d successes against an endpoint slower than the call timeout, want 0", c.Succeeded)
	}
	if c := r.Cell("resetting", "net/http"); c != nil && (c.Failed == 0 || c.Succeeded == 0) {
		t.Errorf("resetting/net/http: %d ok, %d failed; want both (half the connections reset)", c.Succeeded, c.Failed)
	}

	checkLaggingSilent(t, r)

	var md bytes.Buffer
	if err := r.WriteMarkdown(&md, "img"); err != nil {
		t.Fatal(err)
	}
	for _, sc := range r.Scenarios {
		if !strings.Contains(md.String(), "](img/"+SVGName(sc)+")") {
			t.Errorf("markdown does not link the %s chart", sc)
		}
		var svg bytes.Buffer
		if err := r.WriteSVG(&svg, sc); err != nil {
			t.Fatal(err)
		}
		checkSVG(t, sc, svg.Bytes(), len(r.Clients))
	}
	for _, cn := range r.Clients {
		if !strings.Contains(md.String(), "| "+cn+" |") {
			t.Errorf("markdown has no row for %s", cn)
		}
	}
	if got, want := strings.Count(md.String(), " duplicates | requests per endpoint |\n"), len(r.Scenarios); got != want {
		t.Errorf("markdown has %d scenario tables with a requests-per-endpoint column, want %d", got, want)
	}
	// Issue 12's rows, for the scenarios the run holds.
	for _, sc := range []string{"slow-peer", "blackholed"} {
		if r.Cell(sc, "solroute") == nil || r.Cell("healthy", "solroute") == nil {
			continue
		}
		for _, target := range []string{": steady goodput ≥ 0.9× healthy's | ", ": p99 ≤ 3× healthy p99 | ", ": share of the requests sent to the "} {
			if !strings.Contains(md.String(), "| "+sc+target) {
				t.Errorf("markdown has no row %q", sc+target)
			}
		}
	}
	for _, c := range r.Cells {
		if !strings.Contains(md.String(), " | "+fmtShares(&c)+" |\n") {
			t.Errorf("markdown lacks %s/%s's shares %q", c.Scenario, c.Client, fmtShares(&c))
		}
	}
	// Issue 13's rows and slot table, when the run holds their cells.
	if c := r.Cell(laggingScenario, "solroute"); c != nil {
		for _, want := range []string{
			"| " + laggingScenario + ": solroute reads back in time = 0 | ",
			"| " + laggingScenario + ": solroute reads served by the lagging endpoint a once its lag is known = 0 % | ",
			"| client | reads ok | back in time | returned from a |",
		} {
			if !strings.Contains(md.String(), want) {
				t.Errorf("markdown lacks %q", want)
			}
		}
	}
	if r.Cell("healthy", "solroute") != nil && r.Cell("healthy", trackingOff) != nil &&
		!strings.Contains(md.String(), "| healthy: goodput with slot tracking on ≥ 0.97× off (within 3 %) | ") {
		t.Errorf("markdown lacks the row of tracking's cost")
	}
}

// checkSlots checks a cell's slot figures: within their bounds, every read
// with a slot (the slot model is on everywhere), lagging figures only
// where "a" lags, one time to the first answer per round there, and no
// read back in time where nothing lags (the endpoints share their slots).
func checkSlots(t *testing.T, c *Cell) {
	t.Helper()
	reads := c.Succeeded - c.SendsSucceeded
	if c.SlotReads != reads || c.BackInTime > c.SlotReads || c.SlotReadsKnown > c.SlotReads ||
		c.LaggingReadsKnown > c.LaggingReads || c.LaggingReads > c.SlotReads || c.LaggingReadsKnown > c.SlotReadsKnown {
		t.Errorf("%s/%s: %d successful reads; slot figures %d reads, %d back in time, %d once known, %d from a, %d of them once known",
			c.Scenario, c.Client, reads, c.SlotReads, c.BackInTime, c.SlotReadsKnown, c.LaggingReads, c.LaggingReadsKnown)
	}
	if lags := c.Scenario == laggingScenario; c.Lags() != lags || (lags && len(c.RoundLagKnown) != len(c.RoundGoodputs)) {
		t.Errorf("%s/%s: lags %v with %d times to the first answer over %d rounds", c.Scenario, c.Client, c.Lags(), len(c.RoundLagKnown), len(c.RoundGoodputs))
	}
	if !c.Lags() && (c.BackInTime != 0 || c.LaggingReads != 0 || c.LaggingAnswered != 0) {
		t.Errorf("%s/%s: nothing lags, yet %d reads back in time, %d from a, %d answered by a", c.Scenario, c.Client, c.BackInTime, c.LaggingReads, c.LaggingAnswered)
	}
}

// checkLaggingSilent checks what lagging-silent is built to show: a single
// endpoint that fell behind serves every read back in time, a round robin
// some, and solroute, which tracks slots, none.
func checkLaggingSilent(t *testing.T, r *Report) {
	t.Helper()
	for _, cn := range r.Clients {
		c := r.Cell(laggingScenario, cn)
		if c == nil {
			continue
		}
		k, err := clientNamed(cn)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case k.single:
			// Every read came from a, below the warm-up's slots.
			if c.SlotReads == 0 || c.LaggingReads != c.SlotReads || c.BackInTime != c.SlotReads || c.LaggingAnswered < c.SlotReads {
				t.Errorf("%s/%s: %d reads, %d from a, %d back in time, %d answered by a; want all of them", c.Scenario, cn, c.SlotReads, c.LaggingReads, c.BackInTime, c.LaggingAnswered)
			}
		case cn == "round-robin":
			if c.LaggingReads == 0 || c.BackInTime == 0 || c.LaggingAnswered == 0 {
				t.Errorf("%s/%s: %d from a, %d back in time, %d answered by a; want some of each", c.Scenario, cn, c.LaggingReads, c.BackInTime, c.LaggingAnswered)
			}
		case cn != trackingOff:
			// solroute and solroute-hedged: monotonic reads ask every
			// read for the slot already returned, so a refuses them all.
			if c.BackInTime != 0 || c.LaggingReads != 0 || c.LaggingAnswered != 0 {
				t.Errorf("%s/%s: %d reads back in time, %d from a, %d answered by a; want none", c.Scenario, cn, c.BackInTime, c.LaggingReads, c.LaggingAnswered)
			}
		}
	}
}

// checkShares checks a cell's requests per endpoint: one count per
// endpoint, some requests when calls were made, shares summing to 100 %,
// and nothing sent to "b" or "c" by a client configured with "a" alone.
func checkShares(t *testing.T, c *Cell) {
	t.Helper()
	if len(c.Requests) != clusterSize {
		t.Fatalf("%s/%s: requests of %d endpoints, want %d", c.Scenario, c.Client, len(c.Requests), clusterSize)
	}
	total := 0
	for _, n := range c.Requests {
		if n < 0 {
			t.Errorf("%s/%s: negative request count in %v", c.Scenario, c.Client, c.Requests)
		}
		total += n
	}
	shares := c.RequestShares()
	if c.Made > 0 && (total == 0 || shares == nil) {
		t.Fatalf("%s/%s: %d calls made, requests %v", c.Scenario, c.Client, c.Made, c.Requests)
	}
	sum := 0.0
	for _, s := range shares {
		sum += s
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("%s/%s: shares %v sum to %g, want 1", c.Scenario, c.Client, shares, sum)
	}
	if k, err := clientNamed(c.Client); err == nil && k.single && (c.Requests[1] != 0 || c.Requests[2] != 0) {
		t.Errorf("%s/%s: a single-endpoint client's requests reached b and c: %v", c.Scenario, c.Client, c.Requests)
	}
}

// checkSVG parses an SVG with encoding/xml and counts its curves.
func checkSVG(t *testing.T, scenario string, data []byte, curves int) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	polylines, root := 0, ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: SVG is not well-formed XML: %v", scenario, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			if se.Name.Local == "polyline" {
				polylines++
				for _, a := range se.Attr {
					if a.Name.Local == "points" && strings.Contains(a.Value, "NaN") {
						t.Errorf("%s: a curve has NaN points", scenario)
					}
				}
			}
		}
	}
	if root != "svg" || polylines != curves {
		t.Errorf("%s: root <%s> with %d curves, want <svg> with %d", scenario, root, polylines, curves)
	}
}

func TestPercentile(t *testing.T) {
	c := Cell{Latencies: []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0, 1}, {0.1, 1}, {0.5, 5}, {0.51, 6}, {0.99, 10}, {1, 10}} {
		if got := c.Percentile(tt.q); got != tt.want {
			t.Errorf("Percentile(%g) = %d, want %d", tt.q, got, tt.want)
		}
	}
	if got := (&Cell{}).Percentile(0.5); got != 0 {
		t.Errorf("empty Percentile = %d, want 0", got)
	}
}

func TestUnknownNames(t *testing.T) {
	for _, o := range []Options{{Clients: []string{"curl"}}, {Scenarios: []string{"meteor"}}} {
		if _, err := Run(context.Background(), o); err == nil || !strings.HasPrefix(err.Error(), "bench: unknown") {
			t.Errorf("Run(%+v) = %v, want an unknown-name error", o, err)
		}
	}
}
