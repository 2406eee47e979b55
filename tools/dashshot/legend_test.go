package dashshot

import (
	"reflect"
	"testing"
)

func TestLegendRows(t *testing.T) {
	for _, tc := range []struct {
		name   string
		widths []float64
		width  float64
		want   [][]int
	}{
		{"one row", []float64{30, 30, 30}, 200, [][]int{{0, 1, 2}}},
		{"wrapped", []float64{50, 50, 50}, 120, [][]int{{0, 1}, {2}}},
		{"the gap counts", []float64{55, 60}, 120, [][]int{{0}, {1}}},
		{"too wide alone", []float64{20, 300, 20}, 100, [][]int{{0}, {1}, {2}}},
		{"none", nil, 100, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LegendRows(tc.widths, tc.width, 10); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("LegendRows(%v, %v) = %v, want %v", tc.widths, tc.width, got, tc.want)
			}
		})
	}
}

func TestTextWidth(t *testing.T) {
	if TextWidth("", 11) != 0 {
		t.Error("empty text has a width")
	}
	if a, b := TextWidth("iiii", 11), TextWidth("mmmm", 11); a >= b {
		t.Errorf("iiii (%v) not narrower than mmmm (%v)", a, b)
	}
	if a, b := TextWidth("primary-a", 11), TextWidth("primary-a", 22); b != 2*a {
		t.Errorf("width at 22px %v, want twice that at 11px (%v)", b, a)
	}
}

func TestEllipsize(t *testing.T) {
	const px = 10
	s := "primary-a rate-limited"
	if got := Ellipsize(s, px, 1000); got != s {
		t.Errorf("Ellipsize with room = %q", got)
	}
	got := Ellipsize(s, px, TextWidth("primary-a …", px))
	if got != "primary-a…" {
		t.Errorf("Ellipsize = %q, want %q", got, "primary-a…")
	}
	if TextWidth(got, px) > TextWidth("primary-a …", px) {
		t.Errorf("%q is wider than asked", got)
	}
	if got := Ellipsize("µs and more", px, 1); got != "" {
		t.Errorf("Ellipsize in 1 pixel = %q, want \"\"", got)
	}
}

func TestPalette(t *testing.T) {
	var p Palette
	first := p.Colors([]string{"backup", "primary-a", "primary-b"}, nil)
	for i := range first {
		for j := range i {
			if similar(first[i], first[j]) {
				t.Errorf("%s and %s look alike in one panel", first[i], first[j])
			}
		}
	}
	// A later panel keeps each name's colour, whatever the order.
	again := p.Colors([]string{"primary-b", "other", "backup"}, nil)
	if again[0] != first[2] || again[2] != first[0] {
		t.Errorf("names changed colour: %v then %v", first, again)
	}
	if again[1] == first[0] || again[1] == first[2] {
		t.Errorf("a new name took a colour of the panel: %v", again)
	}
	// A fixed colour wins, and the others avoid it and its look-alikes.
	fixed := p.Colors([]string{"ok", "backup"}, map[string]string{"ok": "green"})
	if fixed[0] != NamedColor("green") {
		t.Errorf("ok = %s, want the fixed green", fixed[0])
	}
	if similar(fixed[0], fixed[1]) {
		t.Errorf("backup took %s, like the fixed %s", fixed[1], fixed[0])
	}
	// Past the palette's length colours repeat but every series has one.
	many := make([]string, 40)
	for i := range many {
		many[i] = string(rune('A' + i))
	}
	for i, c := range p.Colors(many, nil) {
		if c == "" {
			t.Errorf("series %d has no colour", i)
		}
	}
}

func TestNamedColor(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"green", "#73BF69"}, {"Red", "#F2495C"}, {"#123456", "#123456"}, {"rgb(1, 2, 3)", "rgb(1, 2, 3)"},
	} {
		if got := NamedColor(tc.in); got != tc.want {
			t.Errorf("NamedColor(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if !similar("#73BF69", "#7EB26D") || similar("#73BF69", "#F2495C") || similar("red", "#F2495C") {
		t.Error("similar tells the wrong colours apart")
	}
}
