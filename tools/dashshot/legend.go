package dashshot

import (
	"strings"
	"unicode/utf8"
)

// TextWidth estimates the width of s set in a sans-serif font of size
// px: enough to lay a legend out without a font at hand.
func TextWidth(s string, px float64) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("il.,:;|!'()[] ", r):
			w += 0.3
		case strings.ContainsRune("mwMW%", r):
			w += 0.85
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			w += 0.62
		default:
			w += 0.55
		}
	}
	return w * px
}

// Ellipsize shortens s with "…" until its estimated width at size px is
// at most width; it returns "" when not even "…" fits.
func Ellipsize(s string, px, width float64) string {
	if TextWidth(s, px) <= width {
		return s
	}
	for s != "" {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
		if t := strings.TrimRight(s, " ") + "…"; TextWidth(t, px) <= width {
			return t
		}
	}
	return ""
}

// LegendRows lays legend items of the given widths out left to right in
// rows at most width wide, gap apart, as Grafana's list legend does: it
// returns the indexes of the items of each row. An item wider than width
// has a row of its own.
func LegendRows(widths []float64, width, gap float64) [][]int {
	var rows [][]int
	x := 0.0
	for i, w := range widths {
		if len(rows) == 0 || x > 0 && x+gap+w > width {
			rows = append(rows, nil)
			x = 0
		} else if x > 0 {
			x += gap
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], i)
		x += w
	}
	return rows
}
