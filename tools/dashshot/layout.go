package dashshot

import (
	"github.com/solroute/solroute/tools/dashboard"
)

// Grafana's grid, in pixels: each height unit is cellHeight tall, and
// panels are gutter apart both ways.
const (
	cellHeight = 30
	gutter     = 8
)

// Box is a panel's or a row's place in the picture, in pixels.
type Box struct {
	// Panel is the panel or row drawn there.
	Panel dashboard.Panel
	// X and Y are the top-left corner; W and H the size.
	X, Y, W, H float64
}

// Layout places panels as Grafana does on a dashboard width pixels wide,
// top pixels down: 24 columns gutter apart, height units of 30 pixels
// plus the gutter. Rows and panels keep their order; a collapsed row's
// panels are not drawn. It returns the boxes and the bottom of the
// lowest.
func Layout(panels []dashboard.Panel, width, top float64) (boxes []Box, bottom float64) {
	col := (width - gutter*(dashboard.GridColumns-1)) / dashboard.GridColumns
	bottom = top
	for _, p := range panels {
		g := p.GridPos
		b := Box{
			Panel: p,
			X:     float64(g.X) * (col + gutter),
			Y:     top + float64(g.Y)*(cellHeight+gutter),
			W:     float64(g.W)*col + float64(g.W-1)*gutter,
			H:     float64(g.H)*cellHeight + float64(g.H-1)*gutter,
		}
		boxes = append(boxes, b)
		bottom = max(bottom, b.Y+b.H)
	}
	return boxes, bottom
}
