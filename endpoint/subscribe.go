package endpoint

import "net/url"

// Defaults and bounds of SubscribeLimits (the bounds are stated in
// Validate's message and docs/config.md).
const (
	// defaultSubscriptionsPerConnection is what a public endpoint allows on
	// one WebSocket (about 100; large providers allow 1 450 to 4 500). The
	// slot heartbeat every connection carries takes one.
	defaultSubscriptionsPerConnection = 100
	// maxSubscriptionsPerConnection is the largest valid
	// SubscribeLimits.SubscriptionsPerConnection: above the largest cap a
	// provider publishes, by a margin.
	maxSubscriptionsPerConnection = 100_000
	// defaultMaxConnections is SubscribeLimits.MaxConnections' default.
	defaultMaxConnections = 8
	// maxMaxConnections is the largest valid SubscribeLimits.MaxConnections.
	maxMaxConnections = 1024
)

// SubscribeLimits are the limits of an endpoint's subscribe role: its
// PubSub (WebSocket JSON-RPC) side, which holds subscriptions on long-lived
// connections rather than answering requests. The toml tags name each
// field in a configuration document's [endpoints.subscribe] table. The zero
// value takes every default.
type SubscribeLimits struct {
	// SubscriptionsPerConnection is how many subscriptions one connection
	// holds at most, the slot heartbeat included. 0 means
	// 100 (what a public endpoint allows on one WebSocket; large providers
	// allow 1 450 to 4 500); otherwise 2 (the heartbeat and
	// one more) to maxSubscriptionsPerConnection. A refusal that names a
	// limit lowers it for that connection.
	SubscriptionsPerConnection int `toml:"subscriptions_per_connection"`
	// MaxConnections is how many connections are opened to the endpoint
	// at most. 0 means 8.
	MaxConnections int `toml:"max_connections"`
	// SubscribesPerSecond is the rate of subscribe requests (a token
	// bucket). 0 means unlimited; the bounds are Limits.RequestsPerSecond's.
	SubscribesPerSecond float64 `toml:"subscribes_per_second"`
	// BurstCapacity is the bucket's size. 0 means one second of
	// SubscribesPerSecond, at least 1. Only with a rate.
	BurstCapacity int `toml:"burst_capacity"`
}

// validWebSocketURL reports what is wrong with a ws_url ("" when nothing),
// without quoting it.
func validWebSocketURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "is not a valid URL"
	case u.Scheme != "ws" && u.Scheme != "wss":
		return "must use the ws or wss scheme"
	case u.Host == "" || u.Hostname() == "":
		return "must name a host"
	}
	return ""
}

// subscribe checks the subscribe role: its ws_url (when set) and limits.
func (v *validator) subscribe(base string, s *Spec) {
	if !s.WSURL.IsZero() {
		if msg := validWebSocketURL(s.WSURL.Reveal()); msg != "" {
			v.add(base+".ws_url", "%s", msg)
		}
		if s.Subscribe == nil {
			v.add(base+".ws_url", "is set but the endpoint has no subscribe role: add its [endpoints.subscribe] table (empty for the defaults)")
		}
	}
	l := s.Subscribe
	if l == nil {
		return
	}
	path := base + ".subscribe"
	switch n := l.SubscriptionsPerConnection; {
	case n < 0 || n == 1:
		v.add(path+".subscriptions_per_connection", "must be 0 (default %d) or at least 2: the slot heartbeat takes one", defaultSubscriptionsPerConnection)
	case n > maxSubscriptionsPerConnection:
		v.add(path+".subscriptions_per_connection", "must be at most %d", maxSubscriptionsPerConnection)
	}
	switch n := l.MaxConnections; {
	case n < 0:
		v.add(path+".max_connections", "must be 0 (default %d) or more", defaultMaxConnections)
	case n > maxMaxConnections:
		v.add(path+".max_connections", "must be at most %d", maxMaxConnections)
	}
	v.rate(path, "subscribes_per_second", l.SubscribesPerSecond, l.BurstCapacity)
}
