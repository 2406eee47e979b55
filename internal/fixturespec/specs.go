// Package fixturespec gives the module's own tests that build a pool or an
// engine below the root (admission.New, engine.New) a fake cluster's
// endpoints as endpoint.Specs. Users plug a cluster into solroute.New with
// fixtures.Cluster.Endpoints instead.
package fixturespec

import (
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
)

// Specs returns c's endpoints as endpoint.Specs, in member order: each
// member's name, tier and limits per role, at its server's URL.
func Specs(c *fixtures.Cluster) []endpoint.Spec {
	eps := c.Endpoints()
	specs := make([]endpoint.Spec, len(eps))
	for i, e := range eps {
		s := endpoint.Spec{Name: e.Name, URL: endpoint.NewSecret(e.URL), Tier: e.Tier,
			Roles: make(map[endpoint.Role]endpoint.Limits, 2)}
		if e.Read != nil {
			s.Roles[endpoint.RoleRead] = *e.Read
		}
		if e.Send != nil {
			s.Roles[endpoint.RoleSend] = *e.Send
		}
		specs[i] = s
	}
	return specs
}
