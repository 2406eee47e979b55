package config

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// shapeMarker is planted in every value below that may be printed; no
// problem may quote it.
const shapeMarker = "ShApEmArKeR"

// TestOneShapeOfASettingsProblem: every settings type's Validate (and
// endpoint.Validate) reports each wrong field as an *endpoint.Problem, found
// with errors.As on every leaf of the joined error, whose Path is the key
// (the TOML key; metrics.Options, which no document sets, is held to the
// same shape in metrics' TestOptionsValidate, since metrics imports the
// root and the root imports config)
// and whose text names it and quotes no value.
func TestOneShapeOfASettingsProblem(t *testing.T) {
	badRetry := retrypolicy.DefaultSettings()
	badRetry.MaxBackoff = -time.Second
	badTransport := transport.DefaultSettings()
	badTransport.Retry.BudgetRatio = math.NaN()
	badTransport.HedgeAfter = -2
	badPool := pool.DefaultSettings()
	badPool.DoubtWindow = 2 * time.Hour
	badPool.Ejection.After = -1
	badLimits := DefaultLimits()
	badLimits.URL = endpoint.NewSecret("redis://:" + shapeMarker + "@127.0.0.1/0")
	for _, tt := range []struct {
		name  string
		err   error
		paths []string
	}{
		{"endpoint.Validate", endpoint.Validate([]endpoint.Spec{{Name: "a", URL: endpoint.NewSecret("ftp://h/" + shapeMarker),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {BurstCapacity: 5}}}}),
			[]string{"endpoints[0].url", "endpoints[0].roles.read.burst_capacity"}},
		{"endpoint.Ejection", endpoint.Ejection{After: 1}.Validate(), []string{"base_time"}},
		{"retrypolicy.Settings", badRetry.Validate(), []string{"max_backoff", "initial_backoff"}},
		{"transport.Settings", badTransport.Validate(), []string{"retry.retry_budget_ratio", "hedge_after"}},
		{"pool.Settings", badPool.Validate(), []string{"ejection.consecutive_failures", "doubt_window"}},
		{"config.Limits", badLimits.Validate(), []string{"url"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, leaf := range leaves(tt.err) {
				var p *endpoint.Problem
				if !errors.As(leaf, &p) {
					t.Fatalf("%T %v: not an *endpoint.Problem", leaf, leaf)
				}
				if !strings.Contains(leaf.Error(), p.Path) || !strings.Contains(leaf.Error(), p.Message) {
					t.Errorf("%q does not name its path and message", leaf)
				}
				got = append(got, p.Path)
			}
			if strings.Join(got, ",") != strings.Join(tt.paths, ",") {
				t.Errorf("paths %q, want %q", got, tt.paths)
			}
			if tt.err != nil && strings.Contains(tt.err.Error(), shapeMarker) {
				t.Errorf("a problem quotes a value: %v", tt.err)
			}
		})
	}
}
