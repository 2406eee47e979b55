package dashshot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/solroute/solroute/tools/dashboard"
)

var t0 = time.Unix(1767323045, 0).UTC()

// at returns points one second apart from t0 with the values given.
func at(values ...float64) []Point {
	out := make([]Point, len(values))
	for i, v := range values {
		out[i] = Point{T: t0.Add(time.Duration(i) * time.Second), V: v}
	}
	return out
}

// ident places a point at (seconds from t0, value).
func ident(p Point) (float64, float64) { return p.T.Sub(t0).Seconds(), p.V }

func TestLinePath(t *testing.T) {
	pts := at(1, 2, math.NaN(), 4, 5)
	pts = append(pts, Point{T: t0.Add(9 * time.Second), V: 9}) // 5 s after the last: a gap
	got := linePath(pts, 1500*time.Millisecond, ident)
	if want := "M0.0 1.0L1.0 2.0M3.0 4.0L4.0 5.0M9.0 9.0"; got != want {
		t.Errorf("linePath = %q, want %q", got, want)
	}
	if got := linePath(at(math.Inf(1)), time.Second, ident); got != "" {
		t.Errorf("linePath of nothing drawable = %q", got)
	}
}

func TestAreaPath(t *testing.T) {
	// Over the axis at 0 (y = 10 here): one shape per run of two points
	// or more; a lone point makes none.
	got := areaPath(at(1, 2, math.NaN(), 4), nil, 1500*time.Millisecond, ident, 10)
	if want := "M0.0 1.0L1.0 2.0L1.0 10.0L0.0 10.0Z"; got != want {
		t.Errorf("areaPath = %q, want %q", got, want)
	}
	// Over the series under it.
	got = areaPath(at(3, 5), at(1, 2), time.Second, ident, 10)
	if want := "M0.0 3.0L1.0 5.0L1.0 2.0L0.0 1.0Z"; got != want {
		t.Errorf("stacked areaPath = %q, want %q", got, want)
	}
}

func TestStack(t *testing.T) {
	got := stack([]named{{name: "a", points: at(1, 2, math.NaN())}, {name: "b", points: at(10, 20, 30)}})
	var a, b []float64
	for i := range 3 {
		a, b = append(a, got[0].points[i].V), append(b, got[1].points[i].V)
	}
	if !slices.Equal(a, []float64{1, 2, 0}) || !slices.Equal(b, []float64{11, 22, 30}) {
		t.Errorf("stacked %v and %v", a, b)
	}
}

func TestThresholdColor(t *testing.T) {
	th := dashboard.Thresholds{Steps: []dashboard.Step{{Color: "green"}, {Color: "red", Value: ptr(16)}}}
	if got := thresholdColor(th, 3); got != NamedColor("green") {
		t.Errorf("below the step: %s", got)
	}
	if got := thresholdColor(th, 16); got != NamedColor("red") {
		t.Errorf("at the step: %s", got)
	}
	if got := thresholdColor(dashboard.Thresholds{}, 1); got != colorText {
		t.Errorf("no thresholds: %s", got)
	}
}

// testDashboard has a panel of every kind Render draws, and panels with
// no data and with a failed query.
const testDashboard = `{"title": "solroute: endpoint pool", "panels": [
	{"id": 1, "type": "row", "title": "Rate limits", "gridPos": {"x": 0, "y": 0, "w": 24, "h": 1}},
	{"id": 2, "type": "timeseries", "title": "Slot lag by endpoint", "gridPos": {"x": 0, "y": 1, "w": 12, "h": 8},
	 "fieldConfig": {"defaults": {"unit": "short",
	   "thresholds": {"steps": [{"color": "green", "value": null}, {"color": "red", "value": 16}]},
	   "custom": {"thresholdsStyle": {"mode": "line"}}}},
	 "targets": [{"refId": "A", "expr": "lag", "legendFormat": "{{endpoint}}"}]},
	{"id": 3, "type": "timeseries", "title": "Share of admissions", "gridPos": {"x": 12, "y": 1, "w": 12, "h": 8},
	 "fieldConfig": {"defaults": {"unit": "percentunit", "min": 0, "max": 1,
	   "custom": {"stacking": {"mode": "normal"}, "fillOpacity": 60}}},
	 "targets": [{"refId": "A", "expr": "share", "legendFormat": "{{endpoint}}"}]},
	{"id": 4, "type": "stat", "title": "Ambiguous sends since start", "gridPos": {"x": 0, "y": 9, "w": 6, "h": 8},
	 "fieldConfig": {"defaults": {"unit": "none", "decimals": 0,
	   "thresholds": {"steps": [{"color": "green", "value": null}, {"color": "orange", "value": 1}]}}},
	 "targets": [{"refId": "A", "expr": "ambiguous"}]},
	{"id": 5, "type": "state-timeline", "title": "Health state", "gridPos": {"x": 6, "y": 9, "w": 18, "h": 8},
	 "fieldConfig": {"defaults": {"unit": "none", "mappings": [{"type": "value", "options": {
	   "0": {"text": "available", "color": "green", "index": 0},
	   "2": {"text": "rate-limited", "color": "orange", "index": 2}}}]}},
	 "targets": [{"refId": "A", "expr": "state", "legendFormat": "{{endpoint}} {{role}}"}]},
	{"id": 6, "type": "timeseries", "title": "Hedges", "gridPos": {"x": 0, "y": 17, "w": 12, "h": 8},
	 "fieldConfig": {"defaults": {"unit": "reqps"}}, "targets": [{"refId": "A", "expr": "hedges"}]},
	{"id": 7, "type": "timeseries", "title": "Broken", "gridPos": {"x": 12, "y": 17, "w": 12, "h": 8},
	 "fieldConfig": {"defaults": {"unit": "s"}}, "targets": [{"refId": "A", "expr": "broken"}]}
]}`

func testShot(t *testing.T) Shot {
	t.Helper()
	d, err := dashboard.Parse([]byte(testDashboard))
	if err != nil {
		t.Fatal(err)
	}
	ep := func(name string) map[string]string { return map[string]string{"endpoint": name, "role": "read"} }
	return Shot{
		Dashboard: d, Start: t0, End: t0.Add(4 * time.Second), Step: time.Second,
		Notes:     []string{"Drawn by a test."},
		Variables: [][2]string{{"endpoint", "All"}},
		Results: map[int][]Result{
			2: {{RefID: "A", Legend: "{{endpoint}}", Series: []Series{
				{Labels: ep("primary-c"), Points: at(0, 0, 100, 100, 101)},
				{Labels: ep("a<b>&c"), Points: at(0, 1, math.NaN(), 0, 0)},
			}}},
			3: {{RefID: "A", Legend: "{{endpoint}}", Series: []Series{
				{Labels: ep("backup"), Points: at(0.2, 0.2, 0.3, 0.3, 0.2)},
				{Labels: ep("primary-a"), Points: at(0.8, 0.8, 0.7, 0.7, 0.8)},
			}}},
			4: {{RefID: "A", Series: []Series{{Labels: map[string]string{}, Points: at(0, 40, 90, 142, math.NaN())}}}},
			5: {{RefID: "A", Legend: "{{endpoint}} {{role}}", Series: []Series{
				{Labels: ep("primary-a"), Points: at(0, 0, 2, 2, 0)},
				{Labels: ep("backup"), Points: at(0, 0, 0, 0, 0)},
			}}},
			6: {{RefID: "A"}},
			7: {{RefID: "A", Err: errors.New("bad_data: parse error")}},
		},
	}
}

// svgText renders s, checks that the SVG is well-formed XML, and returns
// it with every text element's content.
func svgText(t *testing.T, s Shot) (string, []string) {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, s); err != nil {
		t.Fatal(err)
	}
	var texts []string
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, buf.String())
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		}
	}
	return buf.String(), texts
}

func TestRender(t *testing.T) {
	s := testShot(t)
	svg, texts := svgText(t, s)
	if !strings.HasPrefix(svg, `<svg xmlns="http://www.w3.org/2000/svg" width="1440" `) {
		t.Errorf("want an SVG of the default width, got %.120s", svg)
	}
	for _, want := range []string{
		"solroute: endpoint pool", "Drawn by a test.", "endpoint", "All", // the header
		"Rate limits", "Slot lag by endpoint", "Share of admissions", "Ambiguous sends since start",
		"Health state", "Hedges", "Broken", // rows and panel titles
		"primary-c", "a<b>&c", "backup", "primary-a", // legends, escaped in the file
		"142",                           // the stat's last value
		"primary-a read", "backup read", // the timeline's lanes
		"available", "rate-limited", // and its states
		"No data",                             // a query that returned nothing
		"query failed: bad_data: parse error", // and one that failed
		"0s", "4s", "100", "80%",              // axes
	} {
		if !slices.Contains(texts, want) {
			t.Errorf("no text %q in %q", want, texts)
		}
	}
	if !strings.Contains(svg, "a&lt;b&gt;&amp;c") {
		t.Error("a legend is not escaped")
	}
	if !strings.Contains(svg, `stroke="`+NamedColor("red")+`" stroke-dasharray`) {
		t.Error("no threshold line at 16")
	}
	if !strings.Contains(svg, `fill="`+NamedColor("orange")+`"`) {
		t.Error("neither the stat nor the timeline is orange")
	}
	// The series with a NaN is drawn in two pieces.
	var broken int
	for _, line := range strings.Split(svg, "\n") {
		if strings.Contains(line, `class="line"`) && strings.Count(line, "M") == 2 {
			broken++
		}
	}
	if broken != 1 {
		t.Errorf("%d lines in two pieces, want the one with a NaN", broken)
	}
	again, _ := svgText(t, s)
	if again != svg {
		t.Error("two renders of one shot differ")
	}
	s.Width = 800
	narrow, _ := svgText(t, s)
	if !strings.HasPrefix(narrow, `<svg xmlns="http://www.w3.org/2000/svg" width="800" `) {
		t.Errorf("Width 800 gave %.80s", narrow)
	}
}
