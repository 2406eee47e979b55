package methods_test

import (
	"slices"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/retrypolicy"
)

// TestHeavyMethodsHaveTheirOwnBudget: each heavy method is a read Default
// holds, with DefaultHeavyTimeout; every other method has none (the
// endpoints' request_timeout), sends included.
func TestHeavyMethodsHaveTheirOwnBudget(t *testing.T) {
	r := methods.Default()
	heavy := methods.HeavyMethods()
	for _, name := range heavy {
		e, ok := r.Lookup(name)
		if !ok || e.Role != endpoint.RoleRead || e.Class != retrypolicy.Idempotent || e.Timeout != methods.HeavyTimeout {
			t.Errorf("%s: %+v (known %v), want a read with %v", name, e, ok, methods.HeavyTimeout)
		}
	}
	for _, name := range methods.Default().Names() {
		if e, _ := r.Lookup(name); !slices.Contains(heavy, name) && e.Timeout != 0 {
			t.Errorf("%s: timeout %v, want none", name, e.Timeout)
		}
	}
	for _, name := range []string{"getProgramAccounts", "getBlock", "getSignaturesForAddress", "getTransaction",
		"getMultipleAccounts", "getBlocks", "getTokenAccountsByOwner", "getTokenAccountsByDelegate", "getLargestAccounts"} {
		if !slices.Contains(heavy, name) {
			t.Errorf("%s is not heavy", name)
		}
	}
	if unknown, _ := r.Lookup("getNothing"); unknown.Timeout != 0 {
		t.Errorf("an unknown method has timeout %v", unknown.Timeout)
	}
}

// TestDeclareTimeout: a declaration may set a method's timeout, a
// built-in send's too (only its role and class are fixed), within
// [0, 1h].
func TestDeclareTimeout(t *testing.T) {
	r := methods.Default()
	send := methods.Method{Role: endpoint.RoleSend, Class: retrypolicy.NeverAfterDispatch, Timeout: 30 * time.Second}
	got, err := r.Declare(named("sendTransaction", send))
	if e, _ := got.Lookup("sendTransaction"); err != nil || e != named("sendTransaction", send) {
		t.Fatalf("Declare(sendTransaction with a timeout) = %+v, %v", e, err)
	}
	for _, d := range []time.Duration{-time.Second, time.Hour + 1} {
		if _, err := r.Declare(methods.Method{Name: "getAsset", Class: retrypolicy.Idempotent, Timeout: d}); err == nil {
			t.Errorf("timeout %v accepted", d)
		}
	}
}

// TestDeclareKeepsTheHeavyBudget: declaring a heavy method without a
// timeout (to change its class) keeps its budget.
func TestDeclareKeepsTheHeavyBudget(t *testing.T) {
	got, err := methods.Default().Declare(methods.Method{Name: "getProgramAccounts", Role: endpoint.RoleRead, Class: retrypolicy.NotApplicable})
	if e, _ := got.Lookup("getProgramAccounts"); err != nil || e.Timeout != methods.HeavyTimeout || e.Class != retrypolicy.NotApplicable {
		t.Fatalf("Declare = %+v, %v", e, err)
	}
}
