package dashshot

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/solroute/solroute/tools/dashboard"
)

func ptr(v float64) *float64 { return &v }

func TestValueAxis(t *testing.T) {
	for _, tc := range []struct {
		name             string
		lo, hi           float64
		fixedMin, fixMax *float64
		n                int
		minStep          float64
		want             Axis
	}{
		{"rounded out to a nice step", 0, 97, nil, nil, 5, 0,
			Axis{0, 100, []float64{0, 20, 40, 60, 80, 100}}},
		{"negative values", -3, 101, nil, nil, 5, 0,
			Axis{-25, 125, []float64{-25, 0, 25, 50, 75, 100, 125}}},
		{"small values", 0.0021, 0.0048, nil, nil, 3, 0,
			Axis{0.002, 0.005, []float64{0.002, 0.003, 0.004, 0.005}}},
		{"fixed bounds", 0.2, 0.7, ptr(0), ptr(1), 4, 0,
			Axis{0, 1, []float64{0, 0.25, 0.5, 0.75, 1}}},
		{"fixed min only", 3, 8, ptr(0), nil, 4, 0,
			Axis{0, 8, []float64{0, 2, 4, 6, 8}}},
		{"no data", math.Inf(1), math.Inf(-1), nil, nil, 2, 0,
			Axis{0, 1, []float64{0, 0.5, 1}}},
		{"all zero", 0, 0, nil, nil, 2, 0,
			Axis{0, 1, []float64{0, 0.5, 1}}},
		{"a flat line", 100, 100, nil, nil, 2, 0,
			Axis{90, 110, []float64{90, 100, 110}}},
		{"whole numbers only", 0, 1, ptr(0), nil, 5, 1,
			Axis{0, 1, []float64{0, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ValueAxis(tc.lo, tc.hi, tc.fixedMin, tc.fixMax, tc.n, tc.minStep)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ValueAxis(%v, %v) = %+v, want %+v", tc.lo, tc.hi, got, tc.want)
			}
		})
	}
}

func TestAxisPos(t *testing.T) {
	a := Axis{Min: 0, Max: 100}
	for _, tc := range []struct{ v, want float64 }{{0, 300}, {100, 100}, {50, 200}, {-5, 300}, {150, 100}} {
		if got := a.Pos(tc.v, 300, 100); got != tc.want {
			t.Errorf("Pos(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestNiceStep(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{
		{0.7, 1}, {1, 1}, {1.2, 2}, {2.2, 2.5}, {3, 5}, {7, 10}, {0.013, 0.02}, {180, 200}, {0, 1}, {math.NaN(), 1},
	} {
		if got := niceStep(tc.x); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("niceStep(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
}

func TestTimeTicks(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		span time.Duration
		n    int
		want []time.Duration
	}{
		{60 * s, 5, []time.Duration{0, 15 * s, 30 * s, 45 * s, 60 * s}},
		{61 * s, 13, []time.Duration{0, 5 * s, 10 * s, 15 * s, 20 * s, 25 * s, 30 * s, 35 * s, 40 * s, 45 * s, 50 * s, 55 * s, 60 * s}},
		{60 * s, 2, []time.Duration{0, 60 * s}},
		{3 * s, 10, []time.Duration{0, s, 2 * s, 3 * s}},
	} {
		if got := TimeTicks(tc.span, tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("TimeTicks(%v, %d) = %v, want %v", tc.span, tc.n, got, tc.want)
		}
	}
}

func TestFormatOffset(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {15 * time.Second, "15s"}, {time.Minute, "60s"}, {119 * time.Second, "119s"},
		{2 * time.Minute, "2m"}, {150 * time.Second, "2m30s"}, {time.Hour, "1h"}, {90 * time.Minute, "1h30m0s"},
	} {
		if got := FormatOffset(tc.d); got != tc.want {
			t.Errorf("FormatOffset(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		unit     string
		v        float64
		decimals int
		want     string
	}{
		{"s", 0.0025, -1, "2.5 ms"},
		{"s", 2.31, -1, "2.31 s"},
		{"s", 0.0000421, -1, "42.1 µs"},
		{"s", 90, -1, "1.5 min"},
		{"s", 0, -1, "0 s"},
		{"percentunit", 0.853, -1, "85.3%"},
		{"reqps", 1234, -1, "1.23k req/s"},
		{"reqps", 3, -1, "3 req/s"},
		{"short", 2500000, -1, "2.5M"},
		{"none", 345679048, 0, "345679048"},
		{"none", 142, 0, "142"},
		{"bytes", 3, 1, "3.0 bytes"},
		{"short", math.NaN(), -1, "NaN"},
		{"s", math.Inf(1), -1, "+Inf"},
	} {
		if got := FormatValue(tc.unit, tc.v, tc.decimals); got != tc.want {
			t.Errorf("FormatValue(%q, %v, %d) = %q, want %q", tc.unit, tc.v, tc.decimals, got, tc.want)
		}
	}
}

func TestFormatTicks(t *testing.T) {
	for _, tc := range []struct {
		unit     string
		ticks    []float64
		decimals int
		want     []string
	}{
		{"s", []float64{0, 0.5, 1, 1.5}, -1, []string{"0.0 s", "0.5 s", "1.0 s", "1.5 s"}},
		{"s", []float64{0, 0.001, 0.002}, -1, []string{"0 ms", "1 ms", "2 ms"}},
		{"percentunit", []float64{0, 0.25, 0.5}, -1, []string{"0%", "25%", "50%"}},
		{"percentunit", []float64{0, 0.005, 0.01}, -1, []string{"0.0%", "0.5%", "1.0%"}},
		{"reqps", []float64{0, 200, 400}, -1, []string{"0 req/s", "200 req/s", "400 req/s"}},
		{"short", []float64{-20, 0, 20}, -1, []string{"-20", "0", "20"}},
		{"short", []float64{0, 1}, 0, []string{"0", "1"}},
		{"short", []float64{0, 0.01, 0.02}, -1, []string{"0.00", "0.01", "0.02"}},
	} {
		if got := FormatTicks(tc.unit, tc.ticks, tc.decimals); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("FormatTicks(%q, %v) = %q, want %q", tc.unit, tc.ticks, got, tc.want)
		}
	}
}

func TestLayout(t *testing.T) {
	// 24 columns of 50 pixels, 8 apart: 1384 pixels.
	panels := []dashboard.Panel{
		{ID: 1, Type: "row", GridPos: dashboard.GridPos{X: 0, Y: 0, W: 24, H: 1}},
		{ID: 2, Type: "timeseries", GridPos: dashboard.GridPos{X: 0, Y: 1, W: 12, H: 8}},
		{ID: 3, Type: "stat", GridPos: dashboard.GridPos{X: 12, Y: 1, W: 6, H: 8}},
		{ID: 4, Type: "row", Collapsed: true, GridPos: dashboard.GridPos{X: 0, Y: 9, W: 24, H: 1},
			Panels: []dashboard.Panel{{ID: 5, GridPos: dashboard.GridPos{X: 0, Y: 10, W: 24, H: 8}}}},
	}
	boxes, bottom := Layout(panels, 1384, 100)
	want := []struct{ id, x, y, w, h float64 }{
		{1, 0, 100, 1384, 30},
		{2, 0, 138, 688, 296},   // 12×50 + 11×8 wide, 8×30 + 7×8 tall
		{3, 696, 138, 340, 296}, // column 12 starts at 12 × 58
		{4, 0, 442, 1384, 30},   // height unit 9 at 100 + 9 × 38
	}
	if len(boxes) != len(want) {
		t.Fatalf("%d boxes, want %d (a collapsed row's panels are not drawn)", len(boxes), len(want))
	}
	for i, w := range want {
		b := boxes[i]
		if float64(b.Panel.ID) != w.id || b.X != w.x || b.Y != w.y || b.W != w.w || b.H != w.h {
			t.Errorf("box %d = panel %d at (%v, %v) %v×%v, want panel %v at (%v, %v) %v×%v",
				i, b.Panel.ID, b.X, b.Y, b.W, b.H, w.id, w.x, w.y, w.w, w.h)
		}
	}
	if bottom != 472 {
		t.Errorf("bottom %v, want 472", bottom)
	}
}
