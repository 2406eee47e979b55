package retrypolicy

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestSettingsNormalized(t *testing.T) {
	got := Settings{}.Normalized()
	if got.MaxRetries != DefaultMaxRetries || got.InitialBackoff != DefaultInitialBackoff ||
		got.MaxBackoff != DefaultMaxBackoff || got.MaxProviderDelay != DefaultMaxProviderDelay ||
		got.BudgetRatio != DefaultBudgetRatio || got.BudgetMinRetries != DefaultBudgetMinRetries ||
		got.BudgetBurst != DefaultBudgetBurst || got.Jitter == nil {
		t.Fatalf("zero settings normalised to %+v", got)
	}

	off := Settings{MaxRetries: -1, InitialBackoff: -1, MaxBackoff: -1, MaxProviderDelay: -1,
		BudgetRatio: -1, BudgetMinRetries: -1}
	n := off.Normalized()
	if n.MaxRetries != -1 || n.InitialBackoff != -1 || n.MaxBackoff != -1 || n.MaxProviderDelay != -1 ||
		n.BudgetRatio != -1 || n.BudgetMinRetries != -1 {
		t.Fatalf("negative settings changed: %+v", n)
	}
	// Normalising twice changes nothing: Decide normalises again.
	twice := n.Normalized()
	twice.Jitter, n.Jitter = nil, nil
	if !reflect.DeepEqual(twice, n) {
		t.Fatalf("not idempotent: %+v then %+v", n, twice)
	}

	if r := (Settings{BudgetRatio: math.NaN()}).Normalized().BudgetRatio; r != DefaultBudgetRatio {
		t.Fatalf("NaN ratio normalised to %v", r)
	}
	set := Settings{MaxRetries: 9, InitialBackoff: time.Second, MaxBackoff: time.Minute,
		MaxProviderDelay: time.Hour, BudgetRatio: 0.5, BudgetMinRetries: 1, BudgetBurst: 7}
	n = set.Normalized()
	n.Jitter = nil
	if !reflect.DeepEqual(n, set) {
		t.Fatalf("set fields changed: %+v", n)
	}
}
