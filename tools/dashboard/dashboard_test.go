package dashboard_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/solroute/solroute/tools/dashboard"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// load reads the shipped dashboard; the test runs in tools/dashboard.
func load(t *testing.T) *dashboard.Dashboard {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", dashboard.File))
	if err != nil {
		t.Fatal(err)
	}
	d, err := dashboard.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// builtins are the variables Grafana defines itself.
var builtins = []string{"__rate_interval", "__interval", "__range", "__range_s", "__interval_ms"}

// panelName names a panel in a failure.
func panelName(p dashboard.Panel) string { return fmt.Sprintf("panel %d %q", p.ID, p.Title) }

// TestDashboardShape: the JSON is valid and importable as Grafana's
// "export for sharing externally" format: a DS_PROMETHEUS input, a data
// source variable, endpoint and role variables over label_values; every
// panel has a title, a unit and queries on that data source, and sits on
// the grid without overlapping another.
func TestDashboardShape(t *testing.T) {
	d := load(t)
	if d.Title == "" || d.UID == "" {
		t.Errorf("title %q, uid %q: want both", d.Title, d.UID)
	}
	if d.SchemaVersion < 36 || d.SchemaVersion > 41 {
		t.Errorf("schemaVersion %d, want about 39 (Grafana 10 and 11)", d.SchemaVersion)
	}
	if !slices.ContainsFunc(d.Inputs, func(in dashboard.Input) bool {
		return in.Name == "DS_PROMETHEUS" && in.Type == "datasource" && in.PluginID == "prometheus"
	}) {
		t.Errorf("no DS_PROMETHEUS data source input: %+v", d.Inputs)
	}
	if v, ok := d.Variable("datasource"); !ok || v.Type != "datasource" || v.Query() != "prometheus" {
		t.Errorf("datasource variable %+v, want a Prometheus data source variable", v)
	}
	for _, name := range []string{"endpoint", "role"} {
		v, ok := d.Variable(name)
		if !ok {
			t.Errorf("no %s variable", name)
			continue
		}
		if _, label, ok := dashboard.LabelValuesQuery(v.Query()); v.Type != "query" || !ok || label != name {
			t.Errorf("%s variable: type %q, query %q; want label_values(..., %s)", name, v.Type, v.Query(), name)
		}
		if !v.IncludeAll || v.AllValue != ".*" {
			t.Errorf("%s variable: includeAll %v, allValue %q; want All as .*", name, v.IncludeAll, v.AllValue)
		}
		if v.Datasource == nil || v.Datasource.UID != "${datasource}" {
			t.Errorf("%s variable's data source %+v, want ${datasource}", name, v.Datasource)
		}
	}

	ids := map[int]bool{}
	cells := map[[2]int]string{}
	panels := 0
	for _, p := range d.AllPanels() {
		name := panelName(p)
		if ids[p.ID] {
			t.Errorf("%s: id taken", name)
		}
		ids[p.ID] = true
		g := p.GridPos
		if g.X < 0 || g.Y < 0 || g.W <= 0 || g.H <= 0 || g.X+g.W > dashboard.GridColumns {
			t.Errorf("%s: gridPos %+v off the 24-column grid", name, g)
		}
		for x := g.X; x < g.X+g.W; x++ {
			for y := g.Y; y < g.Y+g.H; y++ {
				if other := cells[[2]int{x, y}]; other != "" {
					t.Errorf("%s overlaps %s at column %d, row %d", name, other, x, y)
				}
				cells[[2]int{x, y}] = name
			}
		}
		if strings.TrimSpace(p.Title) == "" {
			t.Errorf("%s: no title", name)
		}
		if p.IsRow() {
			continue
		}
		panels++
		if p.FieldConfig.Defaults.Unit == "" {
			t.Errorf("%s: no unit", name)
		}
		if p.Description == "" {
			t.Errorf("%s: no description", name)
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
			t.Errorf("%s: data source %+v, want ${datasource}", name, p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("%s: no query", name)
		}
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			if strings.TrimSpace(tg.Expr) == "" || tg.RefID == "" || refs[tg.RefID] {
				t.Errorf("%s: query %q with refId %q: want an expression and a refId of its own", name, tg.Expr, tg.RefID)
			}
			refs[tg.RefID] = true
			if tg.Datasource == nil || tg.Datasource.UID != "${datasource}" {
				t.Errorf("%s, query %s: data source %+v, want ${datasource}", name, tg.RefID, tg.Datasource)
			}
			for _, v := range dashboard.Variables(tg.Expr) {
				if _, ok := d.Variable(v); !ok && !slices.Contains(builtins, v) {
					t.Errorf("%s, query %s: variable $%s is not defined", name, tg.RefID, v)
				}
			}
		}
	}
	if panels == 0 {
		t.Error("no panels")
	}
}

// query is one PromQL expression of the dashboard and what to call it in
// a failure.
type query struct {
	where, expr, legend string
}

// queries returns every PromQL expression of d: the panels' and the
// variables' selectors (a label_values query's label is returned apart).
func queries(t *testing.T, d *dashboard.Dashboard) (qs []query, varLabels map[string]query) {
	t.Helper()
	varLabels = map[string]query{}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		sel, label, ok := dashboard.LabelValuesQuery(v.Query())
		if !ok || sel == "" {
			t.Errorf("variable %s: query %q, want label_values(selector, label)", v.Name, v.Query())
			continue
		}
		q := query{where: "variable " + v.Name, expr: sel}
		qs = append(qs, q)
		varLabels[label] = q
	}
	for _, p := range d.AllPanels() {
		for _, tg := range p.Targets {
			qs = append(qs, query{where: panelName(p) + " query " + tg.RefID, expr: tg.Expr, legend: tg.LegendFormat})
		}
	}
	return qs, varLabels
}

// TestQueriesReadExportedSeries: every metric a query reads is one a
// real collector exports after a run like the demo's, scraped over
// loopback; every label a query matches, groups by or names in its
// legend is one of those series' labels; every literal value it matches
// is one the label takes.
func TestQueriesReadExportedSeries(t *testing.T) {
	d := load(t)
	exp := demoLikeScrape(t)
	known := knownValues()
	qs, varLabels := queries(t, d)
	for _, q := range qs {
		refs, err := dashboard.Scan(q.expr)
		if err != nil {
			t.Errorf("%s: %v\n%s", q.where, err, q.expr)
			continue
		}
		if len(refs.Selectors) == 0 {
			t.Errorf("%s reads no series: %s", q.where, q.expr)
		}
		read := map[string]bool{} // every label of every series the query reads
		for _, sel := range refs.Selectors {
			if !exp.has(sel.Metric) {
				t.Errorf("%s reads %q, which the collector does not export (it exports %s)", q.where, sel.Metric, strings.Join(exp.families, ", "))
				continue
			}
			labels := exp.labels[sel.Metric]
			for l := range labels {
				read[l] = true
			}
			for _, m := range sel.Matchers {
				values, ok := labels[m.Label]
				if !ok {
					t.Errorf("%s matches %s{%s}, which has no such label", q.where, sel.Metric, m.Label)
					continue
				}
				alts, literal := m.Alternatives()
				if !literal {
					continue
				}
				for _, a := range alts {
					if !slices.Contains(values, a) && !slices.Contains(known[m.Label], a) {
						t.Errorf("%s matches %s{%s=%q}, a value the label never takes (seen: %q)", q.where, sel.Metric, m.Label, a, values)
					}
				}
			}
		}
		for _, l := range refs.Grouping {
			if !read[l] {
				t.Errorf("%s groups or matches on %q, a label of none of the series it reads", q.where, l)
			}
		}
		for _, l := range dashboard.LegendLabels(q.legend) {
			switch {
			case refs.Grouped && !slices.Contains(refs.Grouping, l):
				t.Errorf("%s names %q in its legend, which its grouping drops", q.where, l)
			case !refs.Grouped && refs.Aggregated:
				t.Errorf("%s names %q in its legend, but aggregates every label away", q.where, l)
			case !read[l]:
				t.Errorf("%s names %q in its legend, a label of none of the series it reads", q.where, l)
			}
		}
	}
	for label, q := range varLabels {
		refs, err := dashboard.Scan(q.expr)
		if err != nil {
			continue // reported above
		}
		for _, sel := range refs.Selectors {
			if _, ok := exp.labels[sel.Metric][label]; exp.has(sel.Metric) && !ok {
				t.Errorf("%s lists the values of %q, which %s does not have", q.where, label, sel.Metric)
			}
		}
	}
}

// TestEverySeriesIsOnTheDashboard: every series the collector exports is
// read by at least one panel, and the run made every series the
// collector describes (so that a series added to package metrics fails
// here until the dashboard shows it, or the run makes it).
func TestEverySeriesIsOnTheDashboard(t *testing.T) {
	d := load(t)
	exp := demoLikeScrape(t)
	if len(exp.families) != exp.described {
		t.Errorf("the run exported %d series (%s), the collector describes %d: make the run produce the others",
			len(exp.families), strings.Join(exp.families, ", "), exp.described)
	}
	used := map[string]bool{}
	for _, p := range d.AllPanels() {
		for _, tg := range p.Targets {
			refs, err := dashboard.Scan(tg.Expr)
			if err != nil {
				t.Fatalf("%s: %v", panelName(p), err)
			}
			for _, m := range refs.Metrics() {
				used[exp.family(m)] = true
			}
		}
	}
	for _, f := range exp.families {
		if !used[f] {
			t.Errorf("no panel reads %s", f)
		}
	}
}
