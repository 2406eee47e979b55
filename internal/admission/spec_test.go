package admission

import (
	"testing"

	"github.com/solroute/solroute/endpoint"
)

func TestCloneSpec(t *testing.T) {
	spec := endpoint.Spec{
		Name:         "primary-a",
		URL:          endpoint.NewSecret("https://rpc.example.com/"),
		Headers:      map[string]endpoint.Secret{"Authorization": endpoint.NewSecret("Bearer x")},
		Capabilities: []string{"archive"},
		Roles:        map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {RequestsPerSecond: 5}, endpoint.RoleSend: {}},
		Subscribe:    &endpoint.SubscribeLimits{MaxConnections: 2},
	}
	c := cloneSpec(spec)
	c.Headers["Authorization"] = endpoint.NewSecret("changed")
	c.Capabilities[0] = "changed"
	c.Roles[endpoint.RoleRead] = endpoint.Limits{}
	c.Subscribe.MaxConnections = 9
	if spec.Headers["Authorization"].Reveal() == "changed" || spec.Capabilities[0] == "changed" || spec.Roles[endpoint.RoleRead].RequestsPerSecond != 5 ||
		spec.Subscribe.MaxConnections != 2 {
		t.Error("cloneSpec shares maps or slices with the original")
	}
	if !Serves(&spec, endpoint.RoleSend) || Serves(&endpoint.Spec{}, endpoint.RoleRead) {
		t.Error("Serves")
	}
	if !hasCapabilities(&spec, nil) || !hasCapabilities(&spec, []string{"archive"}) || hasCapabilities(&spec, []string{"archive", "bundle"}) {
		t.Error("hasCapabilities")
	}
}
