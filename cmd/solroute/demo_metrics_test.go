package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/jonboulle/clockwork"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestDemoServesMetrics runs the demo with --metrics on a port the system
// picks: it says where it serves, /metrics answers over HTTP while it
// runs (scraped from the onMetrics hook, after the summary), the
// series agree with the summary's totals, and the server is gone once
// the demo has returned.
func TestDemoServesMetrics(t *testing.T) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var out, errb bytes.Buffer
	var url, body string
	e := &env{stdout: &out, stderr: &errb, clock: clockwork.NewRealClock(), buildInfo: debug.ReadBuildInfo,
		onMetrics: func(u string) { url, body = u, scrape(t, client, u) }}
	code := e.dispatch(context.Background(), []string{"demo", "--duration", "300ms", "--callers", "4", "--metrics", "127.0.0.1:0"})
	r := result{code: code, stdout: out.String(), stderr: errb.String()}
	r.wantCode(t, exitOK)
	m := regexp.MustCompile(`(?m)^metrics: serving (http://127\.0\.0\.1:\d+/metrics) while the demo runs$`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no line says where the metrics are served:\n%s", r.stdout)
	}
	if url != m[1] {
		t.Fatalf("the demo served %q and said %q", url, m[1])
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	sum := func(name string) (total float64) {
		for _, m := range fams[name].GetMetric() {
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
		return total
	}
	calls := regexp.MustCompile(`calls: (\d+) in`).FindStringSubmatch(r.stdout)
	ambiguous := regexp.MustCompile(`calls: \d+ in .*, (\d+) ambiguous,`).FindStringSubmatch(r.stdout)
	if calls == nil || ambiguous == nil {
		t.Fatalf("no totals in the summary:\n%s", r.stdout)
	}
	if got, want := sum("solroute_calls_total"), float64(atoi(t, calls[1])); got != want || got == 0 {
		t.Errorf("solroute_calls_total adds up to %v, the summary says %v calls", got, want)
	}
	if got, want := sum("solroute_ambiguous_calls_total"), float64(atoi(t, ambiguous[1])); got != want {
		t.Errorf("solroute_ambiguous_calls_total adds up to %v, the summary says %v", got, want)
	}
	if n := len(fams["solroute_endpoint_info"].GetMetric()); n != 10 { // 7 endpoints, 3 of them with a send role
		t.Errorf("%d (endpoint, role) info series, want 10", n)
	}
	// The lag is known once primary-c answered a read after it fell
	// behind (an attempt it refused or never answered teaches no slot); on
	// a loaded machine a 300 ms run may have had none. The summary's table
	// and the gauge read the same snapshot source: when the table shows it
	// lagging, the gauge must say about 100.
	row := regexp.MustCompile(`(?m)^` + demoPrimaryC + ` .* (-?\d+) lagging +\S+$`).FindStringSubmatch(r.stdout)
	if row != nil {
		if lag := gaugeOf(fams["solroute_endpoint_lag_slots"], demoPrimaryC); lag < 90 || lag > 110 {
			t.Errorf("solroute_endpoint_lag_slots{endpoint=%q} = %v, the summary shows %s lagging %s: want about 100", demoPrimaryC, lag, demoPrimaryC, row[1])
		}
	} else {
		t.Logf("%s never answered a read after it fell behind: its lag is not checked", demoPrimaryC)
	}
	// Every call made an attempt, but those that shared an identical
	// read's answer (transport.coalesce).
	if a, c, k := sum("solroute_attempts_total"), sum("solroute_calls_total"), sum("solroute_coalesced_calls_total"); a+k < c {
		t.Errorf("%v attempts and %v coalesced calls for %v calls", a, k, c)
	}
	// Once the demo has returned, nothing serves there.
	if resp, err := client.Get(url); err == nil {
		resp.Body.Close()
		t.Errorf("%s still answers after the demo: %s", url, resp.Status)
	}
}

// gaugeOf is the value of the series of f labelled endpoint=name; -1
// when there is none.
func gaugeOf(f *dto.MetricFamily, name string) float64 {
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "endpoint" && l.GetValue() == name {
				return m.GetGauge().GetValue()
			}
		}
	}
	return -1
}

// scrape GETs url in the text format and returns the body of its 200
// answer.
func scrape(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v\n%s", url, resp.Status, err, b)
	}
	return string(b)
}

// TestDemoMetricsCannotListen: an address already taken fails the demo at
// once, before any call, with exit code 1.
func TestDemoMetricsCannotListen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := runCmd(t, "demo", "--duration", "300ms", "--metrics", ln.Addr().String())
	r.wantCode(t, exitFailed)
	if !strings.HasPrefix(r.stderr, "solroute demo: cannot serve metrics: ") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr %q, want one line saying the metrics cannot be served", r.stderr)
	}
	if strings.Contains(r.stdout, "calls: ") {
		t.Errorf("the demo ran:\n%s", r.stdout)
	}
}
