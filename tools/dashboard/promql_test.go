package dashboard

import (
	"reflect"
	"testing"
)

func TestScan(t *testing.T) {
	for _, tc := range []struct {
		name, expr string
		want       Refs
	}{
		{
			name: "a bare metric",
			expr: "solroute_retry_budget_tokens",
			want: Refs{Selectors: []Selector{{Metric: "solroute_retry_budget_tokens"}}},
		},
		{
			name: "matchers, a variable range and grouping",
			expr: `sum by (endpoint) (rate(solroute_endpoint_rate_limits_total{endpoint=~"$endpoint", role!="send"}[$__rate_interval]))`,
			want: Refs{
				Selectors: []Selector{{Metric: "solroute_endpoint_rate_limits_total", Matchers: []Matcher{
					{Label: "endpoint", Op: "=~", Value: "$endpoint"}, {Label: "role", Op: "!=", Value: "send"}}}},
				Grouping: []string{"endpoint"}, Grouped: true, Aggregated: true,
			},
		},
		{
			name: "histogram_quantile over buckets",
			expr: `histogram_quantile(0.99, sum by (le, endpoint) (rate(x_bucket[5m])))`,
			want: Refs{Selectors: []Selector{{Metric: "x_bucket"}}, Grouping: []string{"le", "endpoint"},
				Grouped: true, Aggregated: true},
		},
		{
			name: "a join with on and group_left",
			expr: "sum by (tier) (rate(a[1m]) * on (endpoint, role) group_left (tier) b)",
			want: Refs{Selectors: []Selector{{Metric: "a"}, {Metric: "b"}},
				Grouping: []string{"tier", "endpoint", "role"}, Grouped: true, Aggregated: true},
		},
		{
			name: "empty on, group_left without labels, numbers and operators",
			expr: "2 * a / on () group_left b > bool 1e-3 and c offset 5m",
			want: Refs{Selectors: []Selector{{Metric: "a"}, {Metric: "b"}, {Metric: "c"}}},
		},
		{
			name: "a selector by __name__, strings with escapes",
			expr: `{__name__="x", a="q\"uote"} + ignoring(a) y{b=~'p|q'}`,
			want: Refs{Selectors: []Selector{
				{Metric: "x", Matchers: []Matcher{{"__name__", "=", "x"}, {"a", "=", `q"uote`}}},
				{Metric: "y", Matchers: []Matcher{{"b", "=~", "p|q"}}},
			}, Grouping: []string{"a"}},
		},
		{
			name: "a subquery and a comment",
			expr: "max_over_time(rate(a[1m])[${__range}:1s]) # a comment naming b",
			want: Refs{Selectors: []Selector{{Metric: "a"}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Scan(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Scan(%q)\n got %+v\nwant %+v", tc.expr, got, tc.want)
			}
		})
	}
}

func TestScanErrors(t *testing.T) {
	for _, expr := range []string{
		`a{b="c}`,
		`a{b}`,
		`a{b=c}`,
		`rate(a[5m)`,
		`a}`,
		`a{b="c"`,
		`sum by (a`,
		`$`,
	} {
		if _, err := Scan(expr); err == nil {
			t.Errorf("Scan(%q) = nil error", expr)
		}
	}
}

func TestMatcherAlternatives(t *testing.T) {
	for _, tc := range []struct {
		m    Matcher
		want []string
		ok   bool
	}{
		{Matcher{"a", "=", "x"}, []string{"x"}, true},
		{Matcher{"a", "=~", "retry|transparent-retry"}, []string{"retry", "transparent-retry"}, true},
		{Matcher{"a", "=~", ".*"}, nil, false},
		{Matcher{"a", "=~", "$endpoint"}, nil, false},
		{Matcher{"a", "!=", "x"}, nil, false},
		{Matcher{"a", "=", "$role"}, nil, false},
	} {
		got, ok := tc.m.Alternatives()
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v.Alternatives() = %q, %v; want %q, %v", tc.m, got, ok, tc.want, tc.ok)
		}
	}
}

func TestVariablesAndExpand(t *testing.T) {
	expr := `rate(x{e=~"$endpoint", r=~"${role}", f="${role:regex}"}[$__rate_interval])`
	if got, want := Variables(expr), []string{"endpoint", "role", "__rate_interval"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Variables = %q, want %q", got, want)
	}
	got, err := Expand(expr, map[string]string{"endpoint": ".*", "role": "read", "__rate_interval": "4s"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `rate(x{e=~".*", r=~"read", f="read"}[4s])`; got != want {
		t.Errorf("Expand = %q, want %q", got, want)
	}
	if _, err := Expand(expr, map[string]string{"endpoint": ".*"}); err == nil {
		t.Error("Expand with variables missing: nil error")
	}
}

func TestLegend(t *testing.T) {
	labels := map[string]string{"endpoint": "primary-a", "role": "read"}
	for _, tc := range []struct{ format, want string }{
		{"{{endpoint}}", "primary-a"},
		{"{{ endpoint }} ({{role}})", "primary-a (read)"},
		{"p99 {{method}}", "p99 "},
		{"calls", "calls"},
		{"", `{endpoint="primary-a", role="read"}`},
	} {
		if got := Legend(tc.format, labels); got != tc.want {
			t.Errorf("Legend(%q) = %q, want %q", tc.format, got, tc.want)
		}
	}
	if got, want := LegendLabels("{{a}} {{ b }} {{a}}"), []string{"a", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("LegendLabels = %q, want %q", got, want)
	}
}

func TestLabelValuesQuery(t *testing.T) {
	for _, tc := range []struct {
		q, sel, label string
		ok            bool
	}{
		{"label_values(solroute_endpoint_info, role)", "solroute_endpoint_info", "role", true},
		{`label_values(x{role=~"a,b"}, endpoint)`, `x{role=~"a,b"}`, "endpoint", true},
		{"label_values(job)", "", "job", true},
		{"query_result(up)", "", "", false},
	} {
		sel, label, ok := LabelValuesQuery(tc.q)
		if sel != tc.sel || label != tc.label || ok != tc.ok {
			t.Errorf("LabelValuesQuery(%q) = %q, %q, %v; want %q, %q, %v", tc.q, sel, label, ok, tc.sel, tc.label, tc.ok)
		}
	}
}
