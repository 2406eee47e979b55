package bench

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// SVGName is the file name of a scenario's latency chart:
// "latency-<scenario>.svg".
func SVGName(scenario string) string { return "latency-" + scenario + ".svg" }

// Chart geometry, in SVG user units.
const (
	svgWidth   = 760
	svgHeight  = 440
	plotLeft   = 70
	plotRight  = 600
	plotTop    = 40
	plotBottom = 390
	// curvePoints bounds the points drawn per client.
	curvePoints = 400
)

// clientColor gives each client a fixed color, solroute the strongest.
func clientColor(name string) string {
	switch name {
	case "net/http":
		return "#7f7f7f"
	case "solana-go":
		return "#1f77b4"
	case "retryablehttp":
		return "#ff7f0e"
	case "round-robin":
		return "#9467bd"
	case "solroute":
		return "#2ca02c"
	case "solroute-hedged":
		return "#17becf"
	case "solroute-fixed":
		return "#bcbd22"
	case "solroute-auto":
		return "#e377c2"
	}
	return "#000000"
}

// WriteSVG writes the latency CDF of one scenario as a standalone SVG: one
// curve per client, latency on a log scale across, and the fraction of
// calls up the side on a tail scale (0, 90 %, 99 %, 99.9 % evenly spaced)
// so that the tail is as visible as the median.
func (r *Report) WriteSVG(w io.Writer, scenario string) error {
	var cells []*Cell
	for _, cn := range r.Clients {
		if c := r.Cell(scenario, cn); c != nil && len(c.Latencies) > 0 {
			cells = append(cells, c)
		}
	}
	lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
	maxTail := 1.0
	for _, c := range cells {
		lo = min(lo, max(c.Latencies[0], time.Microsecond))
		hi = max(hi, c.Latencies[len(c.Latencies)-1])
		maxTail = max(maxTail, math.Log10(float64(len(c.Latencies))))
	}
	if len(cells) == 0 {
		lo, hi = time.Microsecond, time.Second
	}
	// Whole decades of microseconds across.
	xMin := math.Floor(math.Log10(float64(lo) / 1e3))
	xMax := math.Max(math.Ceil(math.Log10(float64(max(hi, lo))/1e3)), xMin+1)
	yMax := math.Ceil(maxTail)
	x := func(d time.Duration) float64 {
		v := math.Log10(math.Max(float64(d)/1e3, math.Pow(10, xMin)))
		return plotLeft + (v-xMin)/(xMax-xMin)*(plotRight-plotLeft)
	}
	y := func(tail float64) float64 {
		return plotBottom - math.Min(tail, yMax)/yMax*(plotBottom-plotTop)
	}

	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", svgWidth, svgHeight, svgWidth, svgHeight)
	p(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	p(`<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", plotLeft, escape("Latency CDF: "+scenario))
	// Grid and axes.
	for e := xMin; e <= xMax; e++ {
		xe := plotLeft + (e-xMin)/(xMax-xMin)*(plotRight-plotLeft)
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dddddd"/>`+"\n", xe, plotTop, xe, plotBottom)
		p(`<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", xe, plotBottom+16, escape(decadeLabel(e)))
	}
	for t := 0.0; t <= yMax; t++ {
		yt := y(t)
		p(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#dddddd"/>`+"\n", plotLeft, yt, plotRight, yt)
		p(`<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", plotLeft-6, yt+4, escape(tailLabel(t)))
	}
	p(`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333333"/>`+"\n", plotLeft, plotTop, plotRight-plotLeft, plotBottom-plotTop)
	p(`<text x="%d" y="%d" text-anchor="middle">latency per call (log scale)</text>`+"\n", (plotLeft+plotRight)/2, plotBottom+36)
	p(`<text x="16" y="%d" text-anchor="middle" transform="rotate(-90 16 %d)">fraction of calls at or below (tail scale)</text>`+"\n", (plotTop+plotBottom)/2, (plotTop+plotBottom)/2)
	// Curves.
	for _, c := range cells {
		width := 1.5
		if strings.HasPrefix(c.Client, "solroute") {
			width = 2.5
		}
		p(`<polyline fill="none" stroke="%s" stroke-width="%.1f" points="%s"/>`+"\n", clientColor(c.Client), width, curve(c.Latencies, x, y))
	}
	// Legend.
	for i, c := range cells {
		ly := plotTop + 10 + 20*i
		p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>`+"\n", plotRight+14, ly, plotRight+38, ly, clientColor(c.Client))
		p(`<text x="%d" y="%d">%s</text>`+"\n", plotRight+44, ly+4, escape(c.Client))
	}
	p("</svg>\n")
	return b.Flush()
}

// curve samples a sorted latency list into polyline points: the
// tail-scale value of rank i (0-based, of n) is -log10(1 - i/n), sampled
// evenly in that scale.
func curve(lat []time.Duration, x func(time.Duration) float64, y func(float64) float64) string {
	n := len(lat)
	top := math.Log10(float64(n))
	var sb strings.Builder
	last := -1
	for k := 0; k <= curvePoints; k++ {
		tail := top * float64(k) / curvePoints
		q := 1 - math.Pow(10, -tail) // fraction of calls at or below
		i := min(max(int(math.Ceil(q*float64(n)))-1, 0), n-1)
		if i == last {
			continue
		}
		last = i
		// Rank i+1 of n calls are at or below lat[i].
		frac := float64(i+1) / float64(n)
		t := top
		if frac < 1 {
			t = -math.Log10(1 - frac)
		}
		fmt.Fprintf(&sb, "%.1f,%.1f ", x(lat[i]), y(t))
	}
	return strings.TrimSpace(sb.String())
}

// tailLabel names a tail-scale gridline: 0, 90 %, 99 %, 99.9 %, ...
func tailLabel(t float64) string {
	if t == 0 {
		return "0"
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.*f", int(t), 100*(1-math.Pow(10, -t))), "0"), ".") + " %"
}

// decadeLabel names the latency 10^e microseconds: "1 µs" ... "100 ms",
// "1 s", "10 s".
func decadeLabel(e float64) string {
	us := math.Pow(10, e)
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%g s", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%g ms", us/1e3)
	}
	return fmt.Sprintf("%g µs", us)
}

func escape(s string) string {
	var sb strings.Builder
	_ = xml.EscapeText(&sb, []byte(s))
	return sb.String()
}
