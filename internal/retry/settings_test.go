package retry

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

func TestDefaultSettings(t *testing.T) {
	got := retrypolicy.DefaultSettings()
	want := retrypolicy.Settings{MaxRetries: 3, TransparentRetries: 8, InitialBackoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second,
		MaxProviderDelay: time.Minute, BudgetRatio: 0.2, BudgetMinRetries: 3, BudgetBurst: 100}
	got.Jitter = nil
	if got.MaxRetries != want.MaxRetries || got.TransparentRetries != want.TransparentRetries || got.InitialBackoff != want.InitialBackoff || got.MaxBackoff != want.MaxBackoff ||
		got.MaxProviderDelay != want.MaxProviderDelay || got.BudgetRatio != want.BudgetRatio ||
		got.BudgetMinRetries != want.BudgetMinRetries || got.BudgetBurst != want.BudgetBurst {
		t.Fatalf("DefaultSettings() = %+v, want %+v", got, want)
	}
	if err := retrypolicy.DefaultSettings().Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (retrypolicy.Settings{}).Validate(); err != nil {
		t.Fatalf("zero settings: %v", err)
	}
}

// TestZeroSettingsRetryNothing: every value is taken as written.
func TestZeroSettingsRetryNothing(t *testing.T) {
	a := Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.TemporaryHTTP, Dispatch: retrypolicy.Answered}, Class: retrypolicy.Idempotent, TimeLeft: noDeadline}
	if d := Decide(retrypolicy.Settings{}, a, Retries{}); d.Retry || d.Rule != retrypolicy.RuleMaxRetries {
		t.Fatalf("zero settings: %+v", d)
	}
	never := Input{Outcome: retrypolicy.Outcome{Cause: retrypolicy.Connection, Dispatch: retrypolicy.NotDispatched}, Class: retrypolicy.Idempotent, TimeLeft: noDeadline}
	if d := Decide(retrypolicy.Settings{}, never, Retries{}); d.Retry {
		t.Fatalf("zero settings, never sent: %+v", d)
	}
	s := retrypolicy.Settings{MaxRetries: 1}
	if d := Decide(s, a, Retries{}); !d.Retry || d.Delay != 0 {
		t.Fatalf("one retry, no backoff: %+v", d)
	}
	// A budget that holds nothing and has no floor refuses every
	// counted retry.
	c := New(s).Begin()
	defer c.End()
	if d := c.Next(a); d.Retry || d.Rule != retrypolicy.RuleBudget {
		t.Fatalf("empty budget: %+v", d)
	}
}

func TestSettingsValidate(t *testing.T) {
	bad := retrypolicy.Settings{MaxRetries: -1, InitialBackoff: 2 * time.Hour, MaxBackoff: time.Second, MaxProviderDelay: -1,
		BudgetRatio: math.NaN(), BudgetMinRetries: 1<<20 + 1, BudgetBurst: -3}
	err := bad.Validate()
	var keys []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *endpoint.Problem
		if !errors.As(e, &fe) {
			t.Fatalf("%T %v", e, e)
		}
		keys = append(keys, fe.Path)
	}
	want := []string{"max_retries", "retry_budget_min_retries", "retry_budget_burst", "initial_backoff",
		"max_provider_delay", "retry_budget_ratio", "initial_backoff"}
	if len(keys) != len(want) {
		t.Fatalf("keys %q, want %q", keys, want)
	}
	for i := range want {
		if keys[i] != want[i] {
			t.Fatalf("keys %q, want %q", keys, want)
		}
	}
	if r := (retrypolicy.Settings{BudgetRatio: 1.5}).Validate(); r == nil {
		t.Fatal("ratio 1.5 accepted")
	}
}
