package solroute_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/transport"
)

// attempts counts the attempts of a client's calls (one at a time).
type attempts struct{ n int }

func (a *attempts) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context { return ctx }
func (a *attempts) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}
func (a *attempts) AttemptEnded(context.Context, transport.CallInfo, transport.Attempt) { a.n++ }
func (a *attempts) CallEnded(context.Context, transport.CallInfo, transport.CallResult) {}

// TestHandBuiltDocumentGetsTheDefaults: a config.Document written as a Go
// literal with endpoints only runs on the same defaults as a parsed
// document with the same endpoints, not on zero settings. The tier-0
// endpoint refuses connections, so the call needs a transparent retry
// (default 8; zero settings: none) to reach the tier-1 one.
func TestHandBuiltDocumentGetsTheDefaults(t *testing.T) {
	dead := httptest.NewServer(nil)
	deadURL := dead.URL
	dead.Close() // connections to it are refused: nothing was sent
	good := fakeEndpoint("backup")
	defer good.Close()
	specs := func() []endpoint.Spec {
		read := map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}
		return []endpoint.Spec{
			{Name: "primary", URL: endpoint.NewSecret(deadURL), Roles: read},
			{Name: "backup", URL: endpoint.NewSecret(good.URL()), Tier: 1, Roles: read},
		}
	}
	parsed, err := config.Parse([]byte(`[[endpoints]]
name = "primary"
url = "`+deadURL+`"
  [endpoints.roles.read]
[[endpoints]]
name = "backup"
url = "`+good.URL()+`"
tier = 1
  [endpoints.roles.read]
`), config.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]*config.Document{"parsed": parsed, "hand-built": {Endpoints: specs()}} {
		var seen attempts
		c, err := solroute.FromDocument(doc, solroute.Hooks{Observers: []transport.Observer{&seen}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_, err = c.RPC().GetSlot(context.Background(), rpc.CommitmentConfirmed)
		budget := c.RetryBudget()
		_ = c.Close()
		if err != nil || seen.n != 2 {
			t.Errorf("%s document: GetSlot after %d attempts: %v; want the default transparent retry to the tier-1 endpoint (2 attempts)", name, seen.n, err)
		}
		if budget.Tokens != 100 {
			t.Errorf("%s document: retry budget holds %v tokens, want the default burst of 100", name, budget.Tokens)
		}
	}
}
