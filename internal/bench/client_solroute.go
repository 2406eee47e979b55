package bench

import (
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// newSolrouteClient is solana-go over solroute's transport: the three
// endpoints in tier 0, read and send roles without rate or concurrency
// limits, each call bounded by the cell's CallTimeout, default retry
// policy.
func newSolrouteClient(urls []string, o *Options) (client, error) {
	return openSolroute(urls, o, transport.DefaultSettings())
}

// openSolroute is newSolrouteClient with transport settings s.
func openSolroute(urls []string, o *Options, s transport.Settings) (client, error) {
	limits := endpoint.Limits{RequestTimeout: o.CallTimeout}
	specs := make([]endpoint.Spec, len(urls))
	for i, u := range urls {
		specs[i] = endpoint.Spec{
			Name:  endpointName(i),
			URL:   endpoint.NewSecret(u),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: limits, endpoint.RoleSend: limits},
		}
	}
	p, err := pool.New(specs, pool.DefaultSettings(), pool.Options{})
	if err != nil {
		return nil, err
	}
	tc, err := transport.New(p, s, transport.Options{})
	if err != nil {
		return nil, err
	}
	return newSolanaClient(rpc.NewWithCustomRPCClient(tc), func() { _ = tc.Close() }), nil
}
