package pubsub

import (
	"net/url"

	"github.com/solroute/solroute/endpoint"
)

// FromSpecs returns the endpoints of specs that serve the subscribe role
// (Spec.Subscribe set), in order, as New takes them: each at its WSURL or,
// when none, its URL with http turned to ws and https to wss, the same
// host, path and query; its headers and tier; its limits. specs should be
// valid (endpoint.Validate); a URL that does not parse is given as it is,
// for New to refuse by the endpoint's name.
func FromSpecs(specs []endpoint.Spec) []Endpoint {
	var out []Endpoint
	for i := range specs {
		s := &specs[i]
		if s.Subscribe == nil {
			continue
		}
		ws, httpURL := s.WSURL, s.URL
		if ws.IsZero() {
			ws, httpURL = webSocketOf(s.URL), endpoint.Secret{} // the same path and query: in the set already
		}
		l := s.Subscribe
		out = append(out, Endpoint{Name: s.Name, URL: ws, HTTPURL: httpURL, Headers: s.Headers, Tier: s.Tier, Limits: Limits{
			SubscriptionsPerConn: l.SubscriptionsPerConnection,
			ConnsPerEndpoint:     l.MaxConnections,
			SubscribesPerSecond:  l.SubscribesPerSecond,
			SubscribeBurst:       l.BurstCapacity,
		}})
	}
	return out
}

// webSocketOf is the PubSub address of an HTTP one: ws for http, wss for
// https, all else kept (providers serve both at one address).
func webSocketOf(u endpoint.Secret) endpoint.Secret {
	p, err := url.Parse(u.Reveal())
	if err != nil {
		return u
	}
	switch p.Scheme {
	case "http":
		p.Scheme = "ws"
	case "https":
		p.Scheme = "wss"
	}
	return endpoint.NewSecret(p.String())
}
