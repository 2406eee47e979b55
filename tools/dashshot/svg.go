package dashshot

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/solroute/solroute/tools/dashboard"
)

// Shot is what Render draws: a dashboard, the span its queries were
// evaluated over, and what each query returned.
type Shot struct {
	// Dashboard is the dashboard drawn.
	Dashboard *dashboard.Dashboard
	// Start and End bound the time axis; Step is the queries' step.
	Start, End time.Time
	Step       time.Duration
	// Results maps a panel's ID to its queries' results, in the order of
	// its targets.
	Results map[int][]Result
	// Variables are shown in the bar under the title, in order: each a
	// variable's label and the value the queries used.
	Variables [][2]string
	// Notes are lines printed under the title: how the picture was made.
	Notes []string
	// Width is the picture's width in pixels; 0 means DefaultWidth.
	Width float64
}

// boldWidth is how much wider than TextWidth's estimate bold text runs.
const boldWidth = 1.12

// DefaultWidth is a Shot's width when it sets none.
const DefaultWidth = 1440

// Result is what one query of a panel returned.
type Result struct {
	// RefID is the query's refId.
	RefID string
	// Legend is the query's legend format.
	Legend string
	// Series are the series it returned.
	Series []Series
	// Err is why the query failed, if it did.
	Err error
}

// named is a series with its legend name and colour.
type named struct {
	name, color string
	points      []Point
}

// The picture's colours: Grafana's dark theme.
const (
	colorBackground = "#111217"
	colorPanel      = "#181B1F"
	colorBorder     = "#2C3235"
	colorText       = "#CCCCDC"
	colorDim        = "#8E8E8E"
	colorGrid       = "#26292E"
)

// svgStyle holds the classes the elements use, so that each carries a
// short class name rather than its attributes.
const svgStyle = `text{fill:` + colorText + `;font-size:11px}` +
	`.h1{font-size:20px;font-weight:600}.note{fill:` + colorDim + `;font-size:12px}` +
	`.row{font-size:15px;font-weight:600}.pt{font-size:13px;font-weight:600}` +
	`.tick{fill:` + colorDim + `;font-size:10px}.grid{stroke:` + colorGrid + `;stroke-width:1}` +
	`.line{fill:none;stroke-width:1.5;stroke-linejoin:round}` +
	`.panel{fill:` + colorPanel + `;stroke:` + colorBorder + `}` +
	`.empty{fill:` + colorDim + `;font-size:13px}`

// Render writes s as a standalone SVG: a header (the dashboard's title,
// the notes and the variables), then every row and panel where Grafana
// would place it, each drawn from its queries' results: time series as
// lines (stacked when the panel stacks) with thresholds and a legend,
// stats as their last value over a sparkline, state timelines as
// coloured bands by value mapping.
func Render(w io.Writer, s Shot) error {
	width := s.Width
	if width <= 0 {
		width = DefaultWidth
	}
	const margin = 16
	bw := bufio.NewWriter(w)
	r := &renderer{w: bw, shot: s}

	// The header: title, notes, variables.
	var head strings.Builder
	y := margin + 20.0
	fmt.Fprintf(&head, `<text class="h1" x="%d" y="%.0f">%s</text>`+"\n", margin, y, esc(s.Dashboard.Title))
	for _, n := range s.Notes {
		y += 18
		fmt.Fprintf(&head, `<text class="note" x="%d" y="%.0f">%s</text>`+"\n", margin, y, esc(n))
	}
	if len(s.Variables) > 0 {
		y += 12
		x := float64(margin)
		for _, v := range s.Variables {
			label, value := v[0], v[1]
			lw, vw := TextWidth(label, 12)+16, TextWidth(value, 12)+16
			fmt.Fprintf(&head, `<rect x="%.0f" y="%.0f" width="%.0f" height="24" fill="%s" stroke="%s"/>`+
				`<text x="%.0f" y="%.0f" style="font-size:12px">%s</text>`+
				`<rect x="%.0f" y="%.0f" width="%.0f" height="24" fill="%s" stroke="%s"/>`+
				`<text x="%.0f" y="%.0f" style="font-size:12px">%s</text>`+"\n",
				x, y, lw, colorPanel, colorBorder, x+8, y+16, esc(label),
				x+lw, y, vw, colorBackground, colorBorder, x+lw+8, y+16, esc(value))
			x += lw + vw + 8
		}
		y += 24
	}
	boxes, bottom := Layout(s.Dashboard.Panels, width-2*margin, y+12)
	height := bottom + margin

	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" `+
		`font-family="Inter, Helvetica, Arial, sans-serif">`+"\n", width, height, width, height)
	fmt.Fprintf(bw, "<style>%s</style>\n", svgStyle)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="%s"/>`+"\n", colorBackground)
	bw.WriteString(head.String())
	for _, b := range boxes {
		b.X += margin
		r.box(b)
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// renderer draws the boxes of one Shot.
type renderer struct {
	w       *bufio.Writer
	shot    Shot
	palette Palette
}

func (r *renderer) printf(format string, args ...any) { fmt.Fprintf(r.w, format, args...) }

// box draws one row or panel.
func (r *renderer) box(b Box) {
	p := b.Panel
	if p.IsRow() {
		r.printf(`<text class="row" x="%.1f" y="%.1f">%s</text>`+"\n", b.X, b.Y+b.H-8, esc(p.Title))
		return
	}
	r.printf(`<g><rect class="panel" x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="2"/>`+"\n", b.X, b.Y, b.W, b.H)
	r.printf(`<text class="pt" x="%.1f" y="%.1f">%s</text>`+"\n", b.X+8, b.Y+20, esc(Ellipsize(p.Title, 13*boldWidth, b.W-16)))
	series, errs := r.series(p)
	inner := Box{Panel: p, X: b.X + 8, Y: b.Y + 30, W: b.W - 16, H: b.H - 38}
	switch {
	case len(errs) > 0:
		r.message(inner, "query failed: "+errs[0].Error())
	case len(series) == 0:
		r.message(inner, "No data")
	case p.Type == "stat":
		r.stat(inner, series)
	case p.Type == "state-timeline":
		r.stateTimeline(inner, series)
	default:
		r.timeSeries(inner, series)
	}
	r.printf("</g>\n")
}

// series names and colours the series of p's results, sorted by name
// within each query; a query's errors are returned apart.
func (r *renderer) series(p dashboard.Panel) ([]named, []error) {
	var out []named
	var errs []error
	for _, res := range r.shot.Results[p.ID] {
		if res.Err != nil {
			errs = append(errs, res.Err)
			continue
		}
		var part []named
		for _, s := range res.Series {
			part = append(part, named{name: dashboard.Legend(res.Legend, s.Labels), points: s.Points})
		}
		slices.SortStableFunc(part, func(a, b named) int { return cmp.Compare(a.name, b.name) })
		out = append(out, part...)
	}
	fixed := map[string]string{}
	for _, o := range p.FieldConfig.Overrides {
		if name, c, ok := o.FixedColor(); ok {
			fixed[name] = c
		}
	}
	names := make([]string, len(out))
	for i := range out {
		names[i] = out[i].name
	}
	for i, c := range r.palette.Colors(names, fixed) {
		out[i].color = c
	}
	return out, errs
}

// message writes text in the middle of b.
func (r *renderer) message(b Box, text string) {
	r.printf(`<text class="empty" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n",
		b.X+b.W/2, b.Y+b.H/2, esc(Ellipsize(text, 13, b.W-8)))
}

// xOf returns the x of time t on a time axis from left to right.
func (r *renderer) xOf(t time.Time, left, right float64) float64 {
	span := r.shot.End.Sub(r.shot.Start)
	if span <= 0 {
		return left
	}
	return left + float64(t.Sub(r.shot.Start))/float64(span)*(right-left)
}

// timeAxis draws the time ticks under a plot from left to right whose
// bottom is at y, with vertical grid lines up to top: offsets from the
// start of the run.
func (r *renderer) timeAxis(left, right, top, y float64, grid bool) {
	span := r.shot.End.Sub(r.shot.Start)
	n := max(2, int((right-left)/70))
	for _, off := range TimeTicks(span, n) {
		x := r.xOf(r.shot.Start.Add(off), left, right)
		if grid {
			r.printf(`<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x, top, x, y)
		}
		r.printf(`<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, y+12, FormatOffset(off))
	}
}

// legend draws the legend items (a swatch and a name) in rows from the
// top of b, and returns the height it took. Past maxRows rows it says
// how many more there are.
func (r *renderer) legend(b Box, items []named, maxRows int) float64 {
	const px, rowH, swatch = 11, 16, 14
	widths := make([]float64, len(items))
	for i, it := range items {
		widths[i] = swatch + min(TextWidth(it.name, px), b.W-swatch)
	}
	rows := LegendRows(widths, b.W, 14)
	hidden := 0
	if len(rows) > maxRows {
		for _, row := range rows[maxRows:] {
			hidden += len(row)
		}
		rows = rows[:maxRows]
	}
	for ri, row := range rows {
		x, y := b.X, b.Y+float64(ri)*rowH+11
		for _, i := range row {
			it := items[i]
			r.printf(`<rect x="%.1f" y="%.1f" width="10" height="4" rx="1" fill="%s"/>`, x, y-5, it.color)
			name := Ellipsize(it.name, px, b.W-swatch)
			r.printf(`<text x="%.1f" y="%.1f">%s</text>`+"\n", x+swatch, y, esc(name))
			x += widths[i] + 14
		}
		if ri == len(rows)-1 && hidden > 0 {
			r.printf(`<text class="tick" x="%.1f" y="%.1f">+%d more</text>`+"\n", x, y, hidden)
		}
	}
	return float64(len(rows)) * rowH
}

// finite reports whether v can be drawn.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// timeSeries draws a time series panel: a value axis, a time axis, one
// line per series (stacked when the panel stacks), threshold lines and
// the legend.
func (r *renderer) timeSeries(b Box, series []named) {
	p := b.Panel
	def := p.FieldConfig.Defaults
	decimals := -1
	if def.Decimals != nil {
		decimals = *def.Decimals
	}
	maxRows := max(1, int(b.H*0.3/16))
	legendH := r.legendHeight(b.W, series, maxRows)
	plotTop, plotBottom := b.Y+6, b.Y+b.H-legendH-18
	stacked := def.Custom.Stacking.Mode == "normal"
	if stacked {
		series = stack(series)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, pt := range s.points {
			if finite(pt.V) {
				lo, hi = min(lo, pt.V), max(hi, pt.V)
			}
		}
	}
	if def.Custom.ThresholdsStyle.Mode != "off" && def.Custom.ThresholdsStyle.Mode != "" && lo <= hi {
		for _, st := range def.Thresholds.Steps {
			if st.Value != nil && *st.Value <= hi*1.5 { // show a threshold near the data
				lo, hi = min(lo, *st.Value), max(hi, *st.Value)
			}
		}
	}
	minStep := 0.0
	if decimals >= 0 {
		minStep = math.Pow(10, -float64(decimals))
	}
	axis := ValueAxis(lo, hi, def.Min, def.Max, max(2, int((plotBottom-plotTop)/35)), minStep)
	labels := FormatTicks(def.Unit, axis.Ticks, decimals)
	labelW := 0.0
	for _, l := range labels {
		labelW = max(labelW, TextWidth(l, 10))
	}
	left, right := b.X+labelW+6, b.X+b.W-4
	for i, t := range axis.Ticks {
		y := axis.Pos(t, plotBottom, plotTop)
		r.printf(`<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, left, y, right, y)
		r.printf(`<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-4, y+3, esc(labels[i]))
	}
	r.timeAxis(left, right, plotTop, plotBottom, true)
	if st := def.Custom.ThresholdsStyle.Mode; st != "off" && st != "" {
		for _, step := range def.Thresholds.Steps {
			if step.Value == nil || *step.Value < axis.Min || *step.Value > axis.Max {
				continue
			}
			y := axis.Pos(*step.Value, plotBottom, plotTop)
			r.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="6 4"/>`+"\n",
				left, y, right, y, NamedColor(step.Color))
		}
	}
	maxGap := time.Duration(float64(r.shot.Step) * 1.5)
	if stacked {
		base := make([]named, len(series))
		for i := range series {
			if i > 0 {
				base[i] = series[i-1]
			}
			opacity := min(max(def.Custom.FillOpacity, 10), 100) / 100
			d := areaPath(series[i].points, base[i].points, maxGap, func(pt Point) (float64, float64) {
				return r.xOf(pt.T, left, right), axis.Pos(pt.V, plotBottom, plotTop)
			}, axis.Pos(0, plotBottom, plotTop))
			if d != "" {
				r.printf(`<path d="%s" fill="%s" fill-opacity="%.2f"/>`+"\n", d, series[i].color, opacity)
			}
		}
	}
	for _, s := range series {
		d := linePath(s.points, maxGap, func(pt Point) (float64, float64) {
			return r.xOf(pt.T, left, right), axis.Pos(pt.V, plotBottom, plotTop)
		})
		if d != "" {
			r.printf(`<path class="line" d="%s" stroke="%s"/>`+"\n", d, s.color)
		}
	}
	r.legend(Box{X: b.X, Y: plotBottom + 18, W: b.W}, series, maxRows)
}

// legendHeight is the height the legend of series takes in a width w.
func (r *renderer) legendHeight(w float64, series []named, maxRows int) float64 {
	widths := make([]float64, len(series))
	for i, s := range series {
		widths[i] = 14 + min(TextWidth(s.name, 11), w-14)
	}
	return float64(min(len(LegendRows(widths, w, 14)), maxRows)) * 16
}

// stack returns series with each point raised by the points of the
// series before it at the same time (Grafana's "normal" stacking).
func stack(series []named) []named {
	sum := map[int64]float64{}
	out := make([]named, len(series))
	for i, s := range series {
		out[i] = named{name: s.name, color: s.color, points: make([]Point, len(s.points))}
		for j, pt := range s.points {
			k := pt.T.UnixMilli()
			if finite(pt.V) {
				sum[k] += pt.V
			}
			out[i].points[j] = Point{T: pt.T, V: sum[k]}
		}
	}
	return out
}

// linePath returns the SVG path of points, broken where a point cannot
// be drawn or two points are more than maxGap apart (the series was
// absent), each point placed by xy.
func linePath(points []Point, maxGap time.Duration, xy func(Point) (float64, float64)) string {
	var b strings.Builder
	var last time.Time
	open := false
	for _, pt := range points {
		if !finite(pt.V) {
			open = false
			continue
		}
		x, y := xy(pt)
		cmd := 'L'
		if !open || pt.T.Sub(last) > maxGap {
			cmd = 'M'
		}
		fmt.Fprintf(&b, "%c%.1f %.1f", cmd, x, y)
		open, last = true, pt.T
	}
	return b.String()
}

// areaPath returns the SVG path of the area between points and base
// (the series stacked under it; nil: the axis at zeroY), one closed
// shape per unbroken run of points.
func areaPath(points, base []Point, maxGap time.Duration, xy func(Point) (float64, float64), zeroY float64) string {
	under := map[int64]Point{}
	for _, pt := range base {
		under[pt.T.UnixMilli()] = pt
	}
	var b strings.Builder
	var run []Point
	flush := func() {
		if len(run) < 2 {
			run = run[:0]
			return
		}
		for i, pt := range run {
			x, y := xy(pt)
			fmt.Fprintf(&b, "%c%.1f %.1f", "LM"[btoi(i == 0)], x, y)
		}
		for i := len(run) - 1; i >= 0; i-- {
			x, _ := xy(run[i])
			y := zeroY
			if u, ok := under[run[i].T.UnixMilli()]; ok && finite(u.V) {
				_, y = xy(u)
			}
			fmt.Fprintf(&b, "L%.1f %.1f", x, y)
		}
		b.WriteByte('Z')
		run = run[:0]
	}
	for _, pt := range points {
		if !finite(pt.V) || len(run) > 0 && pt.T.Sub(run[len(run)-1].T) > maxGap {
			flush()
		}
		if finite(pt.V) {
			run = append(run, pt)
		}
	}
	flush()
	return b.String()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// thresholdColor returns the colour thresholds give v: the colour of the
// last step whose value is at most v.
func thresholdColor(t dashboard.Thresholds, v float64) string {
	c := ""
	for _, s := range t.Steps {
		if s.Value == nil || v >= *s.Value {
			c = s.Color
		}
	}
	if c == "" {
		return colorText
	}
	return NamedColor(c)
}

// lastValue returns the last value of points that can be drawn.
func lastValue(points []Point) (float64, bool) {
	for i := len(points) - 1; i >= 0; i-- {
		if finite(points[i].V) {
			return points[i].V, true
		}
	}
	return 0, false
}

// stat draws a stat panel: each series' last value, coloured by the
// thresholds, over a sparkline of the series, side by side.
func (r *renderer) stat(b Box, series []named) {
	def := b.Panel.FieldConfig.Defaults
	decimals := -1
	if def.Decimals != nil {
		decimals = *def.Decimals
	}
	w := b.W / float64(len(series))
	for i, s := range series {
		x := b.X + float64(i)*w
		v, ok := lastValue(s.points)
		if !ok {
			r.message(Box{X: x, Y: b.Y, W: w, H: b.H}, "No data")
			continue
		}
		color := thresholdColor(def.Thresholds, v)
		// The sparkline fills the lower half.
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, pt := range s.points {
			if finite(pt.V) {
				lo, hi = min(lo, pt.V), max(hi, pt.V)
			}
		}
		if hi == lo {
			lo, hi = lo-1, hi+1
		}
		bottom, top := b.Y+b.H, b.Y+b.H*0.55
		xy := func(pt Point) (float64, float64) {
			return r.xOf(pt.T, x, x+w), bottom + (pt.V-lo)/(hi-lo)*(top-bottom)
		}
		maxGap := time.Duration(float64(r.shot.Step) * 1.5)
		if d := areaPath(s.points, nil, maxGap, xy, bottom); d != "" {
			r.printf(`<path d="%s" fill="%s" fill-opacity="0.15"/>`+"\n", d, color)
		}
		if d := linePath(s.points, maxGap, xy); d != "" {
			r.printf(`<path class="line" d="%s" stroke="%s" stroke-opacity="0.6"/>`+"\n", d, color)
		}
		text := FormatValue(def.Unit, v, decimals)
		px := min(b.H*0.3, (w-24)/max(TextWidth(text, boldWidth), 1))
		r.printf(`<text x="%.1f" y="%.1f" text-anchor="middle" style="font-size:%.0fpx;font-weight:600;fill:%s">%s</text>`+"\n",
			x+w/2, b.Y+b.H*0.42, px, color, esc(text))
	}
}

// stateTimeline draws a state timeline: one lane per series, named on
// the left, coloured over time by the value mappings (or thresholds),
// and a legend of the mapped states.
func (r *renderer) stateTimeline(b Box, series []named) {
	def := b.Panel.FieldConfig.Defaults
	type state struct {
		text, color string
		index       int
	}
	var states []state
	for _, m := range def.Mappings {
		for _, res := range m.Options {
			states = append(states, state{res.Text, NamedColor(res.Color), res.Index})
		}
	}
	slices.SortFunc(states, func(a, c state) int { return cmp.Compare(a.index, c.index) })
	nameW := 0.0
	for _, s := range series {
		nameW = max(nameW, TextWidth(s.name, 11))
	}
	nameW = min(nameW+10, b.W*0.35)
	left, right := b.X+nameW, b.X+b.W-4
	legendTop := b.Y + b.H - 16
	lanesBottom := legendTop - 18
	laneH := min(48, (lanesBottom-b.Y)/float64(len(series)))
	step := r.shot.Step
	for i, s := range series {
		y := b.Y + float64(i)*laneH
		r.printf(`<text x="%.1f" y="%.1f">%s</text>`+"\n", b.X, y+laneH/2+4, esc(Ellipsize(s.name, 11, nameW-8)))
		// One rectangle per run of equal values.
		for j := 0; j < len(s.points); {
			pt := s.points[j]
			k := j + 1
			for k < len(s.points) && s.points[k].V == pt.V && s.points[k].T.Sub(s.points[k-1].T) <= step*3/2 {
				k++
			}
			end := s.points[k-1].T.Add(step)
			if k < len(s.points) && s.points[k].T.Sub(s.points[k-1].T) <= step*3/2 {
				end = s.points[k].T
			}
			if end.After(r.shot.End) {
				end = r.shot.End
			}
			if finite(pt.V) {
				color := thresholdColor(def.Thresholds, pt.V)
				if _, c, ok := def.MappingText(pt.V); ok {
					color = NamedColor(c)
				}
				x0, x1 := r.xOf(pt.T, left, right), r.xOf(end, left, right)
				r.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`,
					x0, y+laneH*0.05, max(x1-x0, 0.5), laneH*0.9, color)
			}
			j = k
		}
		r.printf("\n")
	}
	r.timeAxis(left, right, b.Y, b.Y+float64(len(series))*laneH, false)
	items := make([]named, len(states))
	for i, st := range states {
		items[i] = named{name: st.text, color: st.color}
	}
	r.legend(Box{X: b.X, Y: legendTop, W: b.W}, items, 1)
}

// esc escapes s for SVG text and attributes.
func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
