package admission_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/methods"
)

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
		if got := admission.ReadsHistory(e, rec.params); got != search {
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
		if got := admission.ReadsHistory(e, []any{[]string{"sig"}, tc.config}); got != tc.want {
			t.Errorf("config %#v: %v, want %v", tc.config, got, tc.want)
		}
	}
}

// TestHistoryReadsOfDefault: the reads of the ledger's past are history
// reads, the reads of the present are not.
func TestHistoryReadsOfDefault(t *testing.T) {
	r := methods.Default()
	for name, want := range map[string]bool{"getTransaction": true, "getBlock": true, "getSignaturesForAddress": true,
		"getBlockTime": true, "getInflationReward": true, "getConfirmedTransaction": true,
		"getSignatureStatuses": false, "getBalance": false, "getFirstAvailableBlock": false, "getWidget": false} {
		if e, _ := r.Lookup(name); admission.ReadsHistory(e, nil) != want {
			t.Errorf("%s: ReadsHistory %v, want %v", name, !want, want)
		}
	}
}
