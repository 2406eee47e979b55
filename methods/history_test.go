package methods_test

import (
	"testing"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/retrypolicy"
)

// TestHistoryMethods: the reads of the ledger's past are history reads,
// the reads of the present are not.
func TestHistoryMethods(t *testing.T) {
	r := methods.Default()
	for _, name := range []string{"getTransaction", "getSignaturesForAddress", "getBlock", "getBlocks",
		"getBlocksWithLimit", "getBlockTime", "getInflationReward", "getConfirmedBlock",
		"getConfirmedTransaction", "getConfirmedSignaturesForAddress2"} {
		if e, _ := r.Lookup(name); !e.History {
			t.Errorf("%s is not a history read", name)
		}
	}
	for _, name := range []string{"getBalance", "getAccountInfo", "getLatestBlockhash", "getSlot",
		"getSignatureStatuses", "getFirstAvailableBlock", "minimumLedgerSlot", "sendTransaction", "getWidget"} {
		if e, _ := r.Lookup(name); e.History {
			t.Errorf("%s is a history read", name)
		}
	}
}

// TestDeclareHistory: a declared read may be a history read, a send may
// not; redeclaring a built-in history read keeps it one.
func TestDeclareHistory(t *testing.T) {
	base := methods.Default()
	r, err := base.Declare(methods.Method{Name: "getTransactionsForAddress", Role: endpoint.RoleRead,
		Class: retrypolicy.Idempotent, History: true})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := r.Lookup("getTransactionsForAddress"); !e.History {
		t.Fatal("declared history read lost its mark")
	}
	if _, err := base.Declare(methods.Method{Name: "sendWidget", Role: endpoint.RoleSend,
		Class: retrypolicy.NeverAfterDispatch, History: true}); err == nil {
		t.Fatal("a send declared as a history read")
	}
	r, err = base.Declare(methods.Method{Name: "getTransaction", Role: endpoint.RoleRead, Class: retrypolicy.Idempotent})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := r.Lookup("getTransaction"); !e.History {
		t.Fatal("redeclaring getTransaction dropped its history mark")
	}
}
