package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/solroute/solroute/transport"
)

// budgetSource is a Source that also has a response byte budget
// (*solroute.Client does): its series are exported when it has one.
type budgetSource interface {
	ResponseBudget() transport.ResponseBudget
}

// budgetDescs describe the response byte budget's series, read at each
// scrape (issue 25, plans/018-reads-at-scale.md).
type budgetDescs struct {
	used, limit, refusals *prometheus.Desc
}

func newBudgetDescs(ns string) budgetDescs {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(ns, "", name), help, nil, nil)
	}
	return budgetDescs{
		used: desc("response_budget_used_bytes",
			"Bytes of response bodies the client holds now, charged against its response byte budget."),
		limit: desc("response_budget_limit_bytes",
			"The client's response byte budget (response_budget_bytes, or its default)."),
		refusals: desc("response_budget_refusals_total",
			"Answers refused because they did not fit the response byte budget at once; each failed its call with ErrBusy."),
	}
}

func (d *budgetDescs) describe(ch chan<- *prometheus.Desc) {
	ch <- d.used
	ch <- d.limit
	ch <- d.refusals
}

// collect sends the budget's series when src has a budget.
func (d *budgetDescs) collect(ch chan<- prometheus.Metric, src Source) {
	bs, ok := src.(budgetSource)
	if !ok {
		return
	}
	u := bs.ResponseBudget()
	ch <- prometheus.MustNewConstMetric(d.used, prometheus.GaugeValue, float64(u.Used))
	ch <- prometheus.MustNewConstMetric(d.limit, prometheus.GaugeValue, float64(u.Limit))
	ch <- prometheus.MustNewConstMetric(d.refusals, prometheus.CounterValue, float64(u.Refused))
}
