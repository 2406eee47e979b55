package solroute_test

import (
	"testing"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
)

// TestHandBuiltDocumentIsChecked: FromDocument takes "one built by
// hand" (its doc comment), and solroute.New refuses an unknown
// Options.Cluster. A hand-built (or parsed, then changed) Document with a
// value Parse would refuse must be refused by FromDocument too, not run
// with the check silently off.
func TestHandBuiltDocumentIsChecked(t *testing.T) {
	specs := func() []endpoint.Spec {
		return []endpoint.Spec{{Name: "a", URL: endpoint.NewSecret("http://127.0.0.1:1/"),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}, endpoint.RoleSend: {}}}}
	}
	// The same mistake through the other door is refused:
	if _, err := solroute.New(solroute.Options{Cluster: "mainnet",
		Endpoints: []solroute.Endpoint{{Name: "a", URL: "http://127.0.0.1:1/", Read: &endpoint.Limits{}}}}); err == nil {
		t.Fatal("New accepted Cluster \"mainnet\"")
	}
	for name, doc := range map[string]*config.Document{
		"cluster typo":    {Cluster: "mainnet", Endpoints: specs()},
		"unknown backend": {Limits: config.Limits{Backend: config.Backend(7)}, Endpoints: specs()},
		"negative fanout": {Send: config.Send{FanOut: -2}, Endpoints: specs()},
		"fanout too big":  {Send: config.Send{FanOut: 99}, Endpoints: specs()},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := solroute.FromDocument(doc, solroute.Hooks{})
			if err == nil {
				c.Close()
				t.Errorf("FromDocument accepted a document Parse would refuse (%s); the client runs without the check", name)
				if name == "cluster typo" {
					n, _, ok := c.Cluster()
					t.Logf("Cluster() = %q, verified=%v", n, ok)
				}
			}
		})
	}
}
