package endpoint_test

import (
	"strings"
	"testing"

	"github.com/solroute/solroute/endpoint"
)

// TestPastedHeaderLineNotQuotedWhole: a header given as a pasted curl line
// ("Authorization: Bearer KEY" as the name) is not a valid name; Validate
// says so naming only "Authorization…", never the key. (A review found it
// quoted whole.)
func TestPastedHeaderLineNotQuotedWhole(t *testing.T) {
	const marker = "SECRETKEY123"
	specs := []endpoint.Spec{{Name: "a", URL: endpoint.NewSecret("https://x.example/"),
		Headers: map[string]endpoint.Secret{"Authorization: Bearer " + marker: endpoint.NewSecret("")},
		Roles:   map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: {}}}}
	err := endpoint.Validate(specs)
	if err == nil || strings.Contains(err.Error(), marker) || !strings.Contains(err.Error(), `"Authorization…"`) {
		t.Errorf("want the name's token only, never the key: %v", err)
	}
}
