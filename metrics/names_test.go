package metrics_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/solroute/solroute/fixtures"
)

// seriesUnits is every series the collector exports, with the unit its
// value is in, as Prometheus's naming guide asks (base units, the unit as
// a plural suffix, then _total for a counter): "seconds", "slots" (a
// distance on the chain, in its unit of time: a lag could as well be in
// seconds, so the name says which), "ratio" (0 to 1), "info" (always 1),
// "bytes" (the response budget), or "" for a count of things (calls, attempts, tokens, requests: not
// units in the guide's narrow sense) or a 0/1 flag. endpoint_slot is a
// slot number, not an amount of slots: "slot" is what it is and its
// unit. docs/observability.md lists them; issue 21 renamed
// endpoint_slot_lag (endpoint_lag_slots) and endpoint_in_flight
// (endpoint_requests_in_flight).
var seriesUnits = map[string]string{
	"solroute_calls_total":                         "",
	"solroute_call_duration_seconds":               "seconds",
	"solroute_ambiguous_calls_total":               "",
	"solroute_attempts_total":                      "",
	"solroute_attempt_duration_seconds":            "seconds",
	"solroute_admission_wait_seconds":              "seconds",
	"solroute_retry_decisions_total":               "",
	"solroute_hedges_total":                        "",
	"solroute_provider_delay_seconds":              "seconds",
	"solroute_in_doubt_attempts_total":             "",
	"solroute_endpoint_info":                       "info",
	"solroute_endpoint_state":                      "",
	"solroute_endpoint_requests_in_flight":         "",
	"solroute_endpoint_tokens":                     "",
	"solroute_endpoint_cooldown_remaining_seconds": "seconds",
	"solroute_endpoint_in_doubt":                   "",
	"solroute_endpoint_admissions_total":           "",
	"solroute_endpoint_rate_limits_total":          "",
	"solroute_endpoint_refusals_total":             "",
	"solroute_endpoint_ejections_total":            "",
	"solroute_endpoint_error_ratio":                "ratio",
	"solroute_endpoint_slot":                       "",
	"solroute_endpoint_lag_slots":                  "slots",
	"solroute_endpoint_excluded":                   "",
	"solroute_retry_budget_tokens":                 "",
	"solroute_calls_in_flight":                     "",
	"solroute_retries_in_flight":                   "",
	"solroute_response_budget_used_bytes":          "bytes",
	"solroute_response_budget_limit_bytes":         "bytes",
	"solroute_response_budget_refusals_total":      "",
	"solroute_send_copies_total":                   "",
	"solroute_send_copies_accepted_total":          "",
	"solroute_send_copies_refused_total":           "",
	"solroute_send_first_accepted_landed_total":    "",
}

// fanoutSeries are exported once a fan-out sent a copy (fanout_test.go
// exercises them): the scenario here sends none.
var fanoutSeries = map[string]bool{
	"solroute_send_copies_total": true, "solroute_send_copies_accepted_total": true,
	"solroute_send_copies_refused_total": true, "solroute_send_first_accepted_landed_total": true,
}

// TestSeriesNamesSayTheirUnit: the collector exports exactly the series
// of seriesUnits (endpoint_tokens may be absent: no endpoint here has a
// rate limit), each named as the guide asks for its unit and type.
func TestSeriesNamesSayTheirUnit(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("failing", 0), member("limited", 0), member("resetting", 0), member("good", 1)})
	exercise(t, context.Background(), e, "failing", "limited", "resetting", "good")
	fams, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range fams {
		name := f.GetName()
		seen[name] = true
		unit, ok := seriesUnits[name]
		if !ok {
			t.Errorf("%s is exported but not in seriesUnits: decide its unit and name (docs/observability.md)", name)
			continue
		}
		checkName(t, f, unit)
	}
	for _, name := range slices.Sorted(maps.Keys(seriesUnits)) {
		if !seen[name] && name != "solroute_endpoint_tokens" && !fanoutSeries[name] {
			t.Errorf("%s is not exported", name)
		}
	}
}

// checkName checks f's name against the guide's rules for its unit and
// type: _total on counters only, the unit as the suffix, histograms of
// durations in seconds.
func checkName(t *testing.T, f *dto.MetricFamily, unit string) {
	t.Helper()
	name := f.GetName()
	base := strings.TrimSuffix(name, "_total")
	switch {
	case f.GetType() == dto.MetricType_COUNTER && base == name:
		t.Errorf("%s is a counter without _total", name)
	case f.GetType() != dto.MetricType_COUNTER && base != name:
		t.Errorf("%s ends in _total but is a %s", name, f.GetType())
	case unit != "" && !strings.HasSuffix(base, "_"+unit):
		t.Errorf("%s is in %s but does not say so: want the suffix _%s", name, unit, unit)
	case f.GetType() == dto.MetricType_HISTOGRAM && unit != "seconds":
		t.Errorf("%s: a histogram of durations is in seconds", name)
	}
}
