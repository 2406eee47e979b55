package dashshot

import (
	"slices"
	"strconv"
	"strings"
)

// classicPalette is the colours series take in turn: those of Grafana's
// "palette-classic" in its dark theme, the dark ones left out.
const classicPalette = "#73BF69 #F2CC0C #8AB8FF #FF780A #F2495C #5794F2 #B877D9 #70DBED " +
	"#FFB357 #96D98D #CA95E5 #FFF899 #FF7383 #C0D8FF #FADE2A #E0B400"

// NamedColor returns the CSS colour of a Grafana colour name ("green",
// "semi-dark-red", ...), or c itself when it is not one (a CSS colour).
func NamedColor(c string) string {
	switch strings.ToLower(c) {
	case "green":
		return "#73BF69"
	case "semi-dark-green":
		return "#56A64B"
	case "yellow":
		return "#FADE2A"
	case "orange":
		return "#FF9830"
	case "red":
		return "#F2495C"
	case "semi-dark-red":
		return "#E02F44"
	case "blue":
		return "#5794F2"
	case "purple":
		return "#B877D9"
	case "text":
		return "#CCCCDC"
	case "transparent":
		return "none"
	}
	return c
}

// Palette gives series colours so that a name keeps its colour from one
// panel to the next (primary-a is the same colour on every panel that
// names a series after it) while no two series of one panel share a
// colour, or two colours hard to tell apart, as long as the palette
// lasts. The zero value is ready to use; it is not safe for concurrent
// use.
type Palette struct {
	colors   []string
	assigned map[string]string // name → the colour it took first
}

// Colors returns the colours of the series of one panel, named names;
// fixed maps the names a panel override colours to their colour.
func (p *Palette) Colors(names []string, fixed map[string]string) []string {
	if p.colors == nil {
		p.colors = strings.Fields(classicPalette)
		p.assigned = map[string]string{}
	}
	out := make([]string, len(names))
	var used []string
	free := func(c string) bool {
		return !slices.ContainsFunc(used, func(u string) bool { return similar(u, c) })
	}
	for i, n := range names { // fixed colours first: the others avoid them
		if c, ok := fixed[n]; ok {
			out[i] = NamedColor(c)
			used = append(used, out[i])
		}
	}
	for i, n := range names { // then the colours names took on earlier panels
		if c, ok := p.assigned[n]; ok && out[i] == "" && free(c) {
			out[i] = c
			used = append(used, c)
		}
	}
	for i, n := range names {
		if out[i] != "" {
			continue
		}
		pick := p.colors[i%len(p.colors)] // the palette wraps when it runs out
		if j := slices.IndexFunc(p.colors, free); j >= 0 {
			pick = p.colors[j]
		}
		if _, ok := p.assigned[n]; !ok {
			p.assigned[n] = pick
		}
		out[i] = pick
		used = append(used, pick)
	}
	return out
}

// similar reports whether two "#RRGGBB" colours are hard to tell apart
// in a thin line; colours in another form are similar only when equal.
func similar(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	ra, ga, ba, okA := rgb(a)
	rb, gb, bb, okB := rgb(b)
	if !okA || !okB {
		return false
	}
	dr, dg, db := ra-rb, ga-gb, ba-bb
	return dr*dr+dg*dg+db*db < 64*64
}

// rgb reads "#RRGGBB".
func rgb(c string) (r, g, b int, ok bool) {
	if len(c) != 7 || c[0] != '#' {
		return 0, 0, 0, false
	}
	v, err := strconv.ParseUint(c[1:], 16, 32)
	if err != nil {
		return 0, 0, 0, false
	}
	return int(v >> 16), int(v >> 8 & 0xFF), int(v & 0xFF), true
}
