package bench

import (
	"context"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// newSolrouteClient is solana-go over solroute's transport: the three
// endpoints in tier 0, read and send roles without rate or concurrency
// limits, each call bounded by the cell's CallTimeout, default pool and
// transport settings (retry policy, slot tracking).
func newSolrouteClient(urls []string, o *Options, w *answerWatch) (client, error) {
	return openSolroute(urls, o, pool.DefaultSettings(), transport.DefaultSettings(), w)
}

// openSolroute is newSolrouteClient with pool settings ps and transport
// settings s. Every attempt that endpoint "a" answered (any HTTP answer:
// a result, or a refusal such as -32016) is reported to w, so the cell
// knows when the client could first have learnt where "a" is.
func openSolroute(urls []string, o *Options, ps pool.Settings, s transport.Settings, w *answerWatch) (client, error) {
	c, _, err := openSolrouteTransport(urls, o, ps, s, w)
	return c, err
}

// openSolrouteTransport is openSolroute, also returning the transport
// client and its pool, to instrument.
func openSolrouteTransport(urls []string, o *Options, ps pool.Settings, s transport.Settings, w *answerWatch) (client, *observable, error) {
	limits := endpoint.Limits{RequestTimeout: o.CallTimeout}
	specs := make([]endpoint.Spec, len(urls))
	for i, u := range urls {
		specs[i] = endpoint.Spec{
			Name:  endpointName(i),
			URL:   endpoint.NewSecret(u),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: limits, endpoint.RoleSend: limits},
		}
	}
	p, err := admission.New(specs, ps, admission.Options{})
	if err != nil {
		return nil, nil, err
	}
	a := endpointName(0)
	tc, err := engine.New(p, s, engine.Options{Observers: []transport.Observer{engine.AttemptFunc(func(_ context.Context, _ string, at transport.Attempt) {
		if at.Endpoint == a && at.HTTPStatus != 0 {
			w.saw()
		}
	})}})
	if err != nil {
		return nil, nil, err
	}
	return newSolanaClient(rpc.NewWithCustomRPCClient(tc), func() { _ = tc.Close() }), &observable{tc, p}, nil
}

// observable is a transport client and its pool as package metrics's
// Source.
type observable struct {
	tc *engine.Engine
	p  *admission.Pool
}

func (o *observable) Observe(ob transport.Observer)  { o.tc.Observe(ob) }
func (o *observable) Snapshot() []endpoint.Snapshot  { return o.p.Snapshot() }
func (o *observable) RetryBudget() retrypolicy.Usage { return o.tc.RetryBudget() }
