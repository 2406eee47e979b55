package methods_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
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
		if e, _ := r.Lookup(name); !methods.ReadsHistory(e, nil) {
			t.Errorf("%s is not a history read", name)
		}
	}
	for _, name := range []string{"getBalance", "getAccountInfo", "getLatestBlockhash", "getSlot",
		"getSignatureStatuses", "getFirstAvailableBlock", "minimumLedgerSlot", "sendTransaction", "getWidget"} {
		if e, _ := r.Lookup(name); methods.ReadsHistory(e, nil) {
			t.Errorf("%s is a history read", name)
		}
	}
	names := r.HistoryNames()
	if !slices.IsSorted(names) || !slices.Contains(names, "getSignatureStatuses") || !slices.Contains(names, "getTransaction") {
		t.Fatalf("HistoryNames = %v", names)
	}
}

// paramsOf is a JSONRPCClient that keeps the params of the last call.
type paramsOf struct{ params []any }

func (p *paramsOf) CallForInto(_ context.Context, _ any, _ string, params []any) error {
	p.params = params
	return nil
}

func (p *paramsOf) CallWithCallback(context.Context, string, []any, func(*http.Request, *http.Response) error) error {
	return nil
}

func (p *paramsOf) CallBatch(context.Context, jsonrpc.RPCRequests) (jsonrpc.RPCResponses, error) {
	return nil, nil
}

// TestSignatureStatusesReadHistoryWhenTheyAsk: solana-go's own
// GetSignatureStatuses, with searchTransactionHistory and without; and a
// config as a plain map.
func TestSignatureStatusesReadHistoryWhenTheyAsk(t *testing.T) {
	e, _ := methods.Default().Lookup("getSignatureStatuses")
	rec := &paramsOf{}
	c := rpc.NewWithCustomRPCClient(rec)
	for _, search := range []bool{true, false} {
		_, _ = c.GetSignatureStatuses(context.Background(), search, solana.Signature{1})
		if got := methods.ReadsHistory(e, rec.params); got != search {
			t.Errorf("searchTransactionHistory %v: ReadsHistory %v (params %v)", search, got, rec.params)
		}
	}
	for _, tc := range []struct {
		config any
		want   bool
	}{
		{map[string]any{"searchTransactionHistory": true}, true},
		{map[string]any{"searchTransactionHistory": false}, false},
		{map[string]any{"searchTransactionHistory": "yes"}, false},
		{map[string]bool{"searchTransactionHistory": true}, true},
		{struct{ SearchTransactionHistory bool }{true}, false},
		{nil, false},
	} {
		if got := methods.ReadsHistory(e, []any{[]string{"sig"}, tc.config}); got != tc.want {
			t.Errorf("config %#v: %v, want %v", tc.config, got, tc.want)
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
	if !slices.Contains(r.HistoryNames(), "getTransactionsForAddress") {
		t.Fatalf("declared history read missing from %v", r.HistoryNames())
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
