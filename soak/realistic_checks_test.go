package soak

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// The checks over the provider mix must be able to fail too.

// hasViolation reports whether some violation says want.
func hasViolation(v *violations, want string) bool {
	for _, m := range v.first {
		if strings.Contains(m, want) {
			return true
		}
	}
	return false
}

// TestCheckFloorsCatchesFloorPastTheTip posts reads with a minContextSlot
// at the tip plus the liar's lead, and one past it: only the second is
// reported; with no minContextSlot at all the check says it proved
// nothing.
func TestCheckFloorsCatchesFloorPastTheTip(t *testing.T) {
	clock := clockwork.NewFakeClock()
	c := fixtures.NewCluster([]fixtures.Member{{Name: "x", Options: fixtures.Options{Clock: clock, Slots: &fixtures.SlotOptions{Start: 5000}}}})
	t.Cleanup(c.Close)
	s := &soak{t: t, cluster: c}
	s.checkFloors()
	if !hasViolation(&s.bad, "proves nothing") {
		t.Errorf("no minContextSlot at all: %q", s.bad.first)
	}
	post := func(min uint64) {
		body := `{"jsonrpc":"2.0","id":1,"method":"getSlot","params":[{"commitment":"confirmed","minContextSlot":` + strconv.FormatUint(min, 10) + `}]}`
		resp, err := http.Post(c.Server("x").URL(), "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	confirmed := 5000 - fixturedata.ConfirmedDepth
	post(uint64(confirmed) + liarSlotAhead)
	post(uint64(confirmed) + liarSlotAhead + 1)
	http.DefaultClient.CloseIdleConnections()
	s = &soak{t: t, cluster: c}
	s.checkFloors()
	if s.bad.n != 1 || !strings.Contains(s.bad.first[0], "1 past the highest slot any endpoint could report") {
		t.Errorf("checkFloors: %d violations %q, want the one floor past the tip", s.bad.n, s.bad.first)
	}
}

// TestCheckEndpointErrorCatchesNoFailover feeds read errors: a node's
// own error judged final (the same anywhere) is reported, at any attempt;
// one retried, or stopped by a bound (the retry budget), or a caller's
// error, is not.
func TestCheckEndpointErrorCatchesNoFailover(t *testing.T) {
	answered := func(code int, retry bool, rule retrypolicy.Rule) transport.Attempt {
		return transport.Attempt{Endpoint: flakyName, Outcome: retrypolicy.Outcome{Cause: retrypolicy.RPCApplication, Dispatch: retrypolicy.Answered, RPCCode: code},
			Decision: retrypolicy.Decision{Retry: retry, Rule: rule}}
	}
	final, retried, budget := retrypolicy.RuleRPCApplication, retrypolicy.RuleRetry, retrypolicy.RuleBudget
	for _, tt := range []struct {
		attempts []transport.Attempt
		bad      bool
	}{
		{[]transport.Attempt{answered(-32603, false, final)}, true},
		{[]transport.Attempt{answered(-32011, false, final)}, true},
		{[]transport.Attempt{answered(-32603, true, retried), answered(-32010, false, final)}, true},
		{[]transport.Attempt{answered(-32603, true, retried)}, false},
		{[]transport.Attempt{answered(-32603, false, budget)}, false},
		{[]transport.Attempt{answered(-32602, false, final)}, false},
	} {
		s := &soak{t: t}
		s.checkEndpointError(1, "getBalance", &transport.CallError{Method: "getBalance", Attempts: tt.attempts})
		if got := s.bad.n > 0; got != tt.bad {
			t.Errorf("attempts %s: reported %v, want %v", describe(tt.attempts), got, tt.bad)
		}
	}
}

// TestJudgeTimingCatchesEarlyExpiry: an expiry concluded before the
// cluster's finalized height passed lastValidBlockHeight is reported,
// one at or after it is not, nor a landing.
func TestJudgeTimingCatchesEarlyExpiry(t *testing.T) {
	clock := clockwork.NewFakeClock()
	l := fixtures.NewLedger()
	c := fixtures.NewCluster([]fixtures.Member{{Name: "x", Options: fixtures.Options{Clock: clock, Ledger: l, Slots: &fixtures.SlotOptions{Start: 5000}}}})
	t.Cleanup(c.Close)
	r := &resolveSoak{t: t, ledger: l}
	_, height := l.Tip()
	lvbh := height + 10
	past := l.FinalizedPast(lvbh)
	for _, tt := range []struct {
		status confirm.Status
		at     time.Time
		bad    bool
	}{
		{confirm.Expired, past.Add(-time.Millisecond), true},
		{confirm.Expired, past, false},
		{confirm.Landed, past.Add(-time.Minute), false},
	} {
		s := &resolveSend{lvbh: lvbh, at: tt.at, res: confirm.Result{Status: tt.status}}
		if got := r.judgeTiming(s); (got != "") != tt.bad {
			t.Errorf("%s at %v (finalized past at %v): %q, want reported %v", tt.status, tt.at, past, got, tt.bad)
		}
	}
}

// TestCheckMixCatchesVacuousMix: a resolve soak whose mix endpoints never
// served and whose chain never stalled is reported.
func TestCheckMixCatchesVacuousMix(t *testing.T) {
	l := fixtures.NewLedger()
	var ms []fixtures.Member
	for _, name := range []string{"r0-liar", "r0-flaky", "r1-dead", "r1-garble"} {
		ms = append(ms, fixtures.Member{Name: name, Options: fixtures.Options{Ledger: l, Slots: &fixtures.SlotOptions{}}})
	}
	c := fixtures.NewCluster(ms)
	t.Cleanup(c.Close)
	r := &resolveSoak{t: t, ledger: l, cluster: c}
	r.checkMix()
	for _, want := range []string{"before the chain's first stall", "r0-liar received no request", "never applied result-and-error"} {
		if !hasViolation(&r.bad, want) {
			t.Errorf("no violation says %q: %q", want, r.bad.first)
		}
	}
}
