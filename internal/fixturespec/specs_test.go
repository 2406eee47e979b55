package fixturespec_test

import (
	"testing"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/fixturespec"
)

func TestSpecs(t *testing.T) {
	c := fixtures.NewCluster([]fixtures.Member{
		{Name: "both"},
		{Name: "reader", Tier: 1, Read: &endpoint.Limits{RequestsPerSecond: 5}},
	})
	defer c.Close()
	s := fixturespec.Specs(c)
	if len(s) != 2 || s[0].Name != "both" || s[1].Name != "reader" || s[1].Tier != 1 {
		t.Fatalf("specs %+v", s)
	}
	if s[0].URL.Reveal() != c.Server("both").URL() || !admission.Serves(&s[0], endpoint.RoleRead) || !admission.Serves(&s[0], endpoint.RoleSend) {
		t.Errorf("both: %+v", s[0])
	}
	if admission.Serves(&s[1], endpoint.RoleSend) || s[1].Roles[endpoint.RoleRead].RequestsPerSecond != 5 {
		t.Errorf("reader: %+v", s[1])
	}
	if err := endpoint.Validate(s); err != nil {
		t.Error(err)
	}
}
