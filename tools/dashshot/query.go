package dashshot

import (
	"context"
	"time"

	"github.com/solroute/solroute/tools/dashboard"
)

// RangeQuerier evaluates a PromQL expression over a span of time;
// Prometheus is one.
type RangeQuerier interface {
	// QueryRange evaluates expr at every step from start to end.
	QueryRange(ctx context.Context, expr string, start, end time.Time, step time.Duration) ([]Series, error)
}

var _ RangeQuerier = Prometheus{}

// Evaluate runs every query of d's panels through q from start to end,
// each with its template variables replaced by vars (which must hold
// every variable the queries use, Grafana's own such as __rate_interval
// included), and returns the results by panel ID, for Shot.Results. A
// query that fails keeps its error in its Result; Evaluate fails only
// when ctx ends or a variable has no value.
func Evaluate(ctx context.Context, q RangeQuerier, d *dashboard.Dashboard, vars map[string]string,
	start, end time.Time, step time.Duration) (map[int][]Result, error) {
	out := map[int][]Result{}
	for _, p := range d.AllPanels() {
		for _, t := range p.Targets {
			expr, err := dashboard.Expand(t.Expr, vars)
			if err != nil {
				return nil, err
			}
			series, err := q.QueryRange(ctx, expr, start, end, step)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out[p.ID] = append(out[p.ID], Result{RefID: t.RefID, Legend: t.LegendFormat, Series: series, Err: err})
		}
	}
	return out, nil
}
