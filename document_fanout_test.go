package solroute_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/endpoint"
)

// TestHandBuiltFanOutBoundIsParses: FromDocument refuses a [send]
// fan_out out of range as Parse does: past 16 whatever the endpoints
// (config's maxFanOut, the root's maxSendFanOut), and 16 with 17 send
// endpoints passes both. (A review of stop 33's diff found 17 accepted.)
func TestHandBuiltFanOutBoundIsParses(t *testing.T) {
	var b strings.Builder
	b.WriteString("[send]\nfan_out = 17\n")
	var specs []endpoint.Spec
	for i := range 17 {
		fmt.Fprintf(&b, "[[endpoints]]\nname = \"e%d\"\nurl = \"http://127.0.0.1:1/%d\"\n  [endpoints.roles.send]\n", i, i)
		specs = append(specs, endpoint.Spec{Name: fmt.Sprintf("e%d", i), URL: endpoint.NewSecret(fmt.Sprintf("http://127.0.0.1:1/%d", i)),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleSend: {}}})
	}
	if _, err := config.Parse([]byte(b.String()), config.ParseOptions{}); err == nil {
		t.Fatal("Parse accepted fan_out = 17")
	} else {
		t.Logf("Parse: %v", err)
	}
	c, err := solroute.FromDocument(&config.Document{Send: config.Send{FanOut: 17}, Endpoints: specs}, solroute.Hooks{})
	if err == nil {
		c.Close()
		t.Fatal("FromDocument accepted a hand-built [send] fan_out of 17, which Parse refuses (must be between 1 and 16)")
	}
	doc, err := config.Parse([]byte(strings.Replace(b.String(), "fan_out = 17", "fan_out = 16", 1)), config.ParseOptions{})
	if err != nil {
		t.Fatalf("Parse refused fan_out = 16 with 17 send endpoints: %v", err)
	}
	c, err = solroute.FromDocument(doc, solroute.Hooks{})
	if err != nil {
		t.Fatalf("FromDocument refused what Parse took: %v", err)
	}
	c.Close()
}
