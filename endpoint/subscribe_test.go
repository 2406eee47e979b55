package endpoint

import (
	"strings"
	"testing"
)

// TestValidateSubscribeRole: a ws_url and the subscribe role's limits are
// checked before any connection, each problem at its own path, no message
// quoting the URL; an endpoint with only the subscribe role is valid.
func TestValidateSubscribeRole(t *testing.T) {
	const secret = "s3cr3t-key"
	only := Spec{Name: "ws", URL: NewSecret("https://h.example/?k=" + secret), Subscribe: &SubscribeLimits{}}
	if err := Validate([]Spec{only}); err != nil {
		t.Fatalf("a subscribe-only endpoint: %v", err)
	}
	cases := []struct {
		name string
		edit func(*Spec)
		path string
	}{
		{"http ws_url", func(s *Spec) { s.WSURL = NewSecret("https://h.example/" + secret) }, "endpoints[0].ws_url"},
		{"ws_url without a host", func(s *Spec) { s.WSURL = NewSecret("wss:///" + secret) }, "endpoints[0].ws_url"},
		{"ws_url without the role", func(s *Spec) {
			s.WSURL, s.Subscribe, s.Roles = NewSecret("wss://h.example/"+secret), nil, map[Role]Limits{RoleRead: {}}
		}, "endpoints[0].ws_url"},
		{"one a connection", func(s *Spec) { s.Subscribe.SubscriptionsPerConnection = 1 }, "endpoints[0].subscribe.subscriptions_per_connection"},
		{"too many a connection", func(s *Spec) { s.Subscribe.SubscriptionsPerConnection = maxSubscriptionsPerConnection + 1 }, "endpoints[0].subscribe.subscriptions_per_connection"},
		{"negative connections", func(s *Spec) { s.Subscribe.MaxConnections = -1 }, "endpoints[0].subscribe.max_connections"},
		{"too many connections", func(s *Spec) { s.Subscribe.MaxConnections = maxMaxConnections + 1 }, "endpoints[0].subscribe.max_connections"},
		{"negative rate", func(s *Spec) { s.Subscribe.SubscribesPerSecond = -1 }, "endpoints[0].subscribe.subscribes_per_second"},
		{"burst without rate", func(s *Spec) { s.Subscribe.BurstCapacity = 3 }, "endpoints[0].subscribe.burst_capacity"},
		{"no role at all", func(s *Spec) { s.Subscribe = nil }, "endpoints[0].roles"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := only
			sub := *only.Subscribe
			s.Subscribe = &sub
			c.edit(&s)
			err := Validate([]Spec{s})
			if err == nil {
				t.Fatalf("Validate = nil, want one problem at %s", c.path)
			}
			if v := problemsOf(t, err); len(v.Problems) != 1 || v.Problems[0].Path != c.path {
				t.Fatalf("Validate = %v, want one problem at %s", err, c.path)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "h.example") {
				t.Errorf("the message quotes the URL: %v", err)
			}
		})
	}
}
