package bench

import (
	"context"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
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
	c, _, err := openSolrouteClient(urls, o, ps, s, w)
	return c, err
}

// openSolrouteClient is openSolroute, also returning the solroute.Client
// (a metrics and tracing Source), to instrument. It builds the client as
// a user does, through solroute.New: the benchmark measures the public
// front door, not the machinery beneath it.
func openSolrouteClient(urls []string, o *Options, ps pool.Settings, s transport.Settings, w *answerWatch) (client, *solroute.Client, error) {
	limits := endpoint.Limits{RequestTimeout: o.CallTimeout}
	eps := make([]solroute.Endpoint, len(urls))
	for i, u := range urls {
		eps[i] = solroute.Endpoint{Name: endpointName(i), URL: u, Read: &limits, Send: &limits}
	}
	a := endpointName(0)
	seen := attemptSeen(func(at transport.Attempt) {
		if at.Endpoint == a && at.HTTPStatus != 0 {
			w.saw()
		}
	})
	sc, err := solroute.New(solroute.Options{Endpoints: eps, Pool: &ps, Transport: &s,
		Hooks: solroute.Hooks{Observers: []transport.Observer{seen}}})
	if err != nil {
		return nil, nil, err
	}
	return newSolanaClient(sc.RPC(), func() { _ = sc.Close() }), sc, nil
}

// attemptSeen is a transport.Observer that calls its function with every
// attempt as it ends, and sees nothing else.
type attemptSeen func(transport.Attempt)

func (attemptSeen) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context {
	return ctx
}

func (attemptSeen) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}

func (f attemptSeen) AttemptEnded(_ context.Context, _ transport.CallInfo, a transport.Attempt) { f(a) }

func (attemptSeen) CallEnded(context.Context, transport.CallInfo, transport.CallResult) {}
