package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// TestParseDurationValues runs one positive key (request_timeout: its 0
// would mean the default) and one key whose "0s" means off (doubt_window)
// through the duration rules.
func TestParseDurationValues(t *testing.T) {
	for _, tt := range []struct {
		value    string
		want     time.Duration // request_timeout; 0 when rejected
		positive string        // request_timeout's problem, "" when accepted
		offOK    bool          // doubt_window accepts it
	}{
		{`"5s"`, 5 * time.Second, "", true},
		{`"1m30s"`, 90 * time.Second, "", true},
		{`"1h"`, time.Hour, "", true},
		{`"60m"`, time.Hour, "", true},
		{`"3600s"`, time.Hour, "", true},
		{`"0.5h"`, 30 * time.Minute, "", true},
		{`".5s"`, 500 * time.Millisecond, "", true},
		{`"5.s"`, 5 * time.Second, "", true},
		{`"1µs"`, time.Microsecond, "", true},
		{`"1μs"`, time.Microsecond, "", true},
		{`"1us1ns"`, 1001, "", true},
		{`"0.000000001s"`, 1, "", true},
		{`"0.0000000001m"`, 6, "", true},
		{`"0.000000000001h"`, 3, "", true},
		{`"1h1ns"`, 0, "must be at most 1h", false},
		{`"59m61s"`, 0, "must be at most 1h", false},
		{`"3600.000000001s"`, 0, "must be at most 1h", false},
		{`"2562047h"`, 0, "must be at most 1h", false},
		{`"99999999999h"`, 0, "must be at most 1h", false},
		{`"99999999999999999999999ns"`, 0, "must be at most 1h", false},
		{`"0s"`, 0, "must be positive", true},
		{`"0h0m0.0s"`, 0, "must be positive", true},
		{`"-5s"`, 0, "must not be negative", false},
		{`"-0s"`, 0, "must not be negative", false},
		{`"-99999999999h"`, 0, "must not be negative", false},
		{`"0"`, 0, "is not a duration", false},
		{`"5"`, 0, "is not a duration", false},
		{`"+5s"`, 0, "is not a duration", false},
		{`""`, 0, "is not a duration", false},
		{`"5 s"`, 0, "is not a duration", false},
		{`"5S"`, 0, "is not a duration", false},
		{`"s"`, 0, "is not a duration", false},
		{`"."`, 0, "is not a duration", false},
		{`".s"`, 0, "is not a duration", false},
		{`"5s "`, 0, "is not a duration", false},
		{`"1.5ns"`, 0, "finer than a nanosecond", false},
		{`"0.5ns"`, 0, "finer than a nanosecond", false},
		{`"1.0001us"`, 0, "finer than a nanosecond", false},
		{`"1.0000001ms"`, 0, "finer than a nanosecond", false},
		{`"1.0000000001s"`, 0, "finer than a nanosecond", false},
		{`"0.00000000001m"`, 0, "finer than a nanosecond", false},
		{`"0.0000000000001h"`, 0, "finer than a nanosecond", false},
		{`5`, 0, "must be a duration string", false},
	} {
		t.Run(tt.value, func(t *testing.T) {
			doc := "[pool]\ndoubt_window = " + tt.value + "\n[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n" +
				"[endpoints.roles.read]\nrequest_timeout = " + tt.value + "\n"
			d, err := Parse([]byte(doc), ParseOptions{})
			var verr *ValidationError
			if err != nil && !errors.As(err, &verr) {
				t.Fatalf("err = %v", err)
			}
			var timeoutProblem, windowProblem string
			if verr != nil {
				for _, p := range verr.Problems {
					switch p.Path {
					case "endpoints[0].roles.read.request_timeout":
						timeoutProblem = p.Message
					case "pool.doubt_window":
						windowProblem = p.Message
					default:
						t.Errorf("unexpected problem %v", p)
					}
				}
			}
			if tt.positive == "" {
				if timeoutProblem != "" {
					t.Errorf("request_timeout: %s", timeoutProblem)
				} else if d != nil && d.Endpoints[0].Roles[endpoint.RoleRead].RequestTimeout != tt.want {
					t.Errorf("request_timeout = %v, want %v", d.Endpoints[0].Roles[endpoint.RoleRead].RequestTimeout, tt.want)
				}
			} else if !strings.Contains(timeoutProblem, tt.positive) {
				t.Errorf("request_timeout problem %q, want ...%s...", timeoutProblem, tt.positive)
			}
			if tt.offOK != (windowProblem == "") {
				t.Errorf("doubt_window problem %q, want accepted %v", windowProblem, tt.offOK)
			}
			if strings.HasPrefix(tt.value, `"-`) && !strings.Contains(windowProblem, "must not be negative") {
				t.Errorf("doubt_window problem %q, want 'must not be negative'", windowProblem)
			}
		})
	}
}

// TestEveryDurationKeyIsBounded: each duration key of the document refuses
// a value above maxDuration and takes maxDuration itself.
func TestEveryDurationKeyIsBounded(t *testing.T) {
	keys := []struct{ table, key, path string }{
		{"[retry]\nmax_backoff = \"1h\"", "initial_backoff", "retry.initial_backoff"},
		{"[retry]", "max_backoff", "retry.max_backoff"},
		{"[retry]", "max_provider_delay", "retry.max_provider_delay"},
		{"[transport]", "attempt_timeout", "transport.attempt_timeout"},
		{"[transport]", "hedge_after", "transport.hedge_after"},
		{"[pool]", "doubt_window", "pool.doubt_window"},
		{"[pool]", "doubt_patience", "pool.doubt_patience"},
		{"[pool]", "history_avoid", "pool.history_avoid"},
		{"[pool.ejection]\nmax_time = \"1h\"", "base_time", "pool.ejection.base_time"},
		{"[pool.ejection]", "max_time", "pool.ejection.max_time"},
		{"[endpoints.roles.read]", "request_timeout", "endpoints[0].roles.read.request_timeout"},
		{"[endpoints.roles.read]", "pause_after_rate_limit", "endpoints[0].roles.read.pause_after_rate_limit"},
	}
	for _, k := range keys {
		for value, ok := range map[string]bool{`"1h"`: true, `"1h0.000000001s"`: false, `"2562047h"`: false} {
			doc := "[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n[endpoints.roles.read]\n"
			if strings.HasPrefix(k.table, "[endpoints") {
				doc += k.key + " = " + value + "\n"
			} else {
				doc = k.table + "\n" + k.key + " = " + value + "\n" + doc
			}
			_, err := Parse([]byte(doc), ParseOptions{})
			if ok && err != nil {
				t.Errorf("%s = %s: %v", k.path, value, err)
			}
			if !ok {
				var verr *ValidationError
				if !errors.As(err, &verr) || len(verr.Problems) != 1 || verr.Problems[0].Path != k.path ||
					verr.Problems[0].Message != "must be at most 1h" {
					t.Errorf("%s = %s: err = %v, want one 'must be at most 1h'", k.path, value, err)
				}
			}
		}
	}
}

// TestParseRateAndCountBounds: requests_per_second is 0 or between one an
// hour and 1e9; the counts fit an int32.
func TestParseRateAndCountBounds(t *testing.T) {
	for _, tt := range []struct {
		line, path, msg string // msg "" when valid
	}{
		{"requests_per_second = 0", "", ""},
		{"requests_per_second = 0.0002777777777777778", "", ""}, // 1/3600
		{"requests_per_second = 0.0002777777777777777", "requests_per_second", "at least one request an hour"},
		{"requests_per_second = 1e-11", "requests_per_second", "at least one request an hour"},
		{"requests_per_second = 1e9", "", ""},
		{"requests_per_second = 1000000001", "requests_per_second", "at most 1e+09"},
		{"requests_per_second = inf", "requests_per_second", "finite"},
		{"requests_per_second = 1\nburst_capacity = 2147483647", "", ""},
		{"requests_per_second = 1\nburst_capacity = 2147483648", "burst_capacity", "must be at most 2147483647"},
		{"max_concurrent_requests = 2147483648", "max_concurrent_requests", "must be at most 2147483647"},
		{"burst_capacity = 5", "burst_capacity", "a burst needs a rate"},
	} {
		doc := "[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n[endpoints.roles.read]\n" + tt.line + "\n"
		_, err := Parse([]byte(doc), ParseOptions{})
		if tt.msg == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.line, err)
			}
			continue
		}
		var verr *ValidationError
		if !errors.As(err, &verr) || len(verr.Problems) != 1 || verr.Problems[0].Path != "endpoints[0].roles.read."+tt.path ||
			!strings.Contains(verr.Problems[0].Message, tt.msg) {
			t.Errorf("%s: err = %v, want one %s problem: ...%s...", tt.line, err, tt.path, tt.msg)
		}
	}
}
