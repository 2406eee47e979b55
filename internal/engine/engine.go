package engine

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/redact"
	"github.com/solroute/solroute/internal/retry"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/internal/wire"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/transport"
)

// Connection pool sizing for one endpoint.
const (
	// unlimitedIdleConns is the idle keep-alive pool of an endpoint with no
	// concurrency limit on some role: large enough that 64 concurrent
	// callers reuse connections instead of dialing (net/http's default of
	// 2 idle connections per host would churn).
	unlimitedIdleConns = 256
	// idleConnTimeout closes keep-alive connections unused for this long.
	idleConnTimeout = 90 * time.Second
	// tcpKeepAlive is the TCP keep-alive probe period.
	tcpKeepAlive = 30 * time.Second
)

// Engine routes JSON-RPC calls through a pool. It implements solana-go's
// rpc.JSONRPCClient. It is safe for concurrent use.
type Engine struct {
	pool      *admission.Pool
	clock     clockwork.Clock
	policy    *retry.Policy
	registry  *methods.Registry
	maxBody   int64
	attemptTO time.Duration // Settings.AttemptTimeout; 0: adaptive, or half the call's budget
	logger    *slog.Logger  // nil discards
	// observers are the Observers added by Observe.
	observers observers
	endpoints map[string]*endpointClient // by Spec.Name; read-only after New
	// endpointList holds the same endpoints in configuration order.
	endpointList []*endpointClient
	// hedgeAfter is Settings.HedgeAfter: 0 means no hedging, HedgeAuto
	// the endpoint's recent p95.
	hedgeAfter time.Duration
	// maxRetries is the retry policy's MaxRetries: an attempt after that
	// many counted retries keeps the fixed attempt timeout.
	maxRetries int
	// cuts counts the attempts the adaptive rule bounded and cut, to
	// suspend it when its histories are stale (cuts.go).
	cuts    cutCounter
	nextID  atomic.Uint64
	buffers wire.Buffers
	// monotonic is Settings.MonotonicReads; session is the client's own
	// high-water marks (used when monotonic, or when a call asks).
	monotonic bool
	session   slots.Session
	// book is the pool's slot book: the floors reads are held to.
	book *slots.Book
	// bg runs the cluster guard and the slot probe (background.go).
	bg background
	// traceKey is httptrace's key for a ClientTrace (tracecontext.go);
	// nil: use httptrace.WithClientTrace.
	traceKey any
	// budget is the response byte budget every request path charges
	// (budget.go).
	budget budget
	// coalesce shares identical reads in flight (Settings.Coalesce).
	coalesce coalescer
}

// endpointClient is everything the transport needs to POST to one
// endpoint. It holds the endpoint's secrets (URL, headers): only name ever
// leaves it.
type endpointClient struct {
	name string
	tr   *http.Transport
	// template is the POST every attempt copies (newRequest); it is never
	// sent itself. Its URL and header map are shared by every copy and
	// never mutated after New.
	template *http.Request
	// secrets are the substrings redacted from every error text. A
	// pointer, so that fmt shows an address: a wrong verb (%s of a
	// *Client) makes fmt print an endpointClient's fields, never deeper.
	secrets *redact.Set
	// sendOnly adjusts requests to a send-only service (sendonly.go); nil
	// for a plain endpoint.
	sendOnly *sendOnly
}

// New builds an Engine over p with settings s (see Settings.Validate) and
// options o. It fails when p is nil, s is out of range, or an endpoint's
// URL is not an absolute http or https URL; the error names the endpoint,
// never its URL.
func New(p *admission.Pool, s transport.Settings, o Options) (*Engine, error) {
	if p == nil {
		return nil, errors.New("transport: nil pool")
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	c := &Engine{
		pool:      p,
		clock:     p.Clock(),
		book:      p.Slots(),
		policy:    retry.New(s.Retry),
		registry:  o.Registry,
		maxBody:   s.MaxResponseBytes,
		attemptTO: s.AttemptTimeout,
		logger:    o.Logger,
		traceKey:  traceKey(),
	}
	c.hedgeAfter = s.HedgeAfter
	c.maxRetries = s.Retry.MaxRetries
	c.monotonic = s.MonotonicReads
	if c.registry == nil {
		c.registry = methods.Default()
	}
	if err := c.coalesce.init(s.Coalesce, c.registry, &c.budget); err != nil {
		return nil, err
	}
	if c.maxBody <= 0 {
		c.maxBody = transport.DefaultSettings().MaxResponseBytes
	}
	c.budget.limit = budgetLimit(s.ResponseBudgetBytes, c.maxBody)
	if o.Logger != nil {
		c.observers.add(logObserver{o.Logger})
	}
	for _, ob := range o.Observers {
		c.Observe(ob)
	}
	specs := p.Specs()
	c.endpoints = make(map[string]*endpointClient, len(specs))
	for i := range specs {
		ep, err := newEndpointClient(&specs[i])
		if err != nil {
			c.closeIdle()
			return nil, err
		}
		c.endpoints[ep.name] = ep
		c.endpointList = append(c.endpointList, ep)
	}
	if err := c.startBackground(o.Genesis, s.SlotProbeInterval); err != nil {
		c.closeIdle()
		return nil, err
	}
	return c, nil
}

// newEndpointClient builds the tuned HTTP client of one endpoint.
func newEndpointClient(spec *endpoint.Spec) (*endpointClient, error) {
	rawURL := spec.URL.Reveal()
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Never wrap url.Parse's error: it quotes the URL.
		return nil, fmt.Errorf("transport: endpoint %q: URL is not an absolute http(s) URL", spec.Name)
	}
	header, secretValues := endpointHeader(spec, u)
	target := u
	if u.User != nil {
		target = new(url.URL)
		*target = *u
		target.User = nil
	}
	ep := &endpointClient{
		name: spec.Name,
		tr:   newHTTPTransport(spec),
		template: &http.Request{
			Method:     http.MethodPost,
			URL:        target,
			Proto:      "HTTP/1.1",
			ProtoMajor: 1,
			ProtoMinor: 1,
			Header:     header,
			Host:       u.Host,
		},
		secrets:  redact.Secrets(rawURL, u, secretValues),
		sendOnly: newSendOnly(spec, target),
	}
	// Attempts go to tr.RoundTrip, not through an http.Client: a JSON-RPC
	// POST is never redirected (a 3xx is classified Request; following it
	// would send the body a second time), and http.Client's redirect
	// bookkeeping costs a header clone per request.
	return ep, nil
}

// endpointHeader is the header every POST to spec's endpoint at u
// carries, and the secret values in it (spec's header values, and the
// Basic credentials of u's user info). The engine's own is Content-Type
// alone, what agave's RPC client and the curl examples of Solana's RPC
// documentation send: an Accept header is one more header for every
// server to parse on every call, and no RPC node or provider needs it (a
// configured one is sent like any other).
func endpointHeader(spec *endpoint.Spec, u *url.URL) (http.Header, []string) {
	header := make(http.Header, 2+len(spec.Headers))
	header.Set("Content-Type", "application/json")
	secretValues := make([]string, 0, 1+len(spec.Headers))
	for k, v := range spec.Headers {
		header.Set(k, v.Reveal())
		secretValues = append(secretValues, v.Reveal())
	}
	// Attempts call RoundTrip, which ignores user info: only http.Client
	// turns it into Basic authentication. Do what it does, including
	// letting a configured Authorization header win, and keep the user
	// info off the request (newEndpointClient: a callback sees req.URL).
	if u.User != nil && header.Get("Authorization") == "" {
		basic := "Basic " + basicAuth(u.User)
		header.Set("Authorization", basic)
		secretValues = append(secretValues, basic)
	}
	return header, secretValues
}

// newHTTPTransport is the connection pool of spec's endpoint.
func newHTTPTransport(spec *endpoint.Spec) *http.Transport {
	idle, maxConns := connLimits(spec)
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			KeepAlive: tcpKeepAlive,
		}).DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        0, // no global cap: one Transport per endpoint
		MaxIdleConnsPerHost: idle,
		MaxConnsPerHost:     maxConns,
		IdleConnTimeout:     idleConnTimeout,
		// Timeouts are the attempt's context, driven by the pool's clock;
		// none here runs on the real clock.
	}
}

// basicAuth is the credentials of a Basic Authorization header for user
// info, as net/http's Client builds them.
func basicAuth(ui *url.Userinfo) string {
	pass, _ := ui.Password()
	return base64.StdEncoding.EncodeToString([]byte(ui.Username() + ":" + pass))
}

// connLimits sizes one endpoint's connection pool from its roles' limits:
// the sum of MaxConcurrentRequests when every role has one (the pool never
// has more requests in flight), otherwise unlimitedIdleConns idle and no
// cap (the pool owns concurrency; a cap here would only queue requests
// inside net/http).
func connLimits(spec *endpoint.Spec) (idle, maxConns int) {
	sum := 0
	for _, l := range spec.Roles {
		if l.MaxConcurrentRequests <= 0 {
			return unlimitedIdleConns, 0
		}
		sum += l.MaxConcurrentRequests
	}
	if sum == 0 {
		return unlimitedIdleConns, 0
	}
	return sum, sum
}

// Close stops the transport's own requests (the cluster guard, the slot
// probe) and waits for them, and releases every idle connection. Calls
// still work after it (they dial again), but an endpoint the guard had
// not verified stays unusable, and slots are learnt from answers only.
func (c *Engine) Close() error {
	c.stopBackground()
	c.closeIdle()
	return nil
}

func (c *Engine) closeIdle() {
	for _, ep := range c.endpoints {
		ep.tr.CloseIdleConnections()
	}
}

// Registry returns the method registry the Engine routes by.
func (c *Engine) Registry() *methods.Registry { return c.registry }

// Pool returns the pool the Engine acquires from.
func (c *Engine) Pool() *admission.Pool { return c.pool }
