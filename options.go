package solroute

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/pubsub"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// Options describe a client in plain Go. Only Endpoints is required; every
// other zero value means the default.
type Options struct {
	// Endpoints are the endpoints to route across. At least one.
	Endpoints []Endpoint
	// Cluster is the cluster every endpoint must be on: "mainnet-beta",
	// "devnet", "testnet" or a base58 genesis hash. "" means not checked.
	Cluster string
	// Transport tunes retries, attempt timeouts, the response size limit
	// and hedging. Nil means transport.DefaultSettings(); a non-nil value
	// is taken as written (start from DefaultSettings).
	Transport *transport.Settings
	// Pool tunes ejection and the preference of sends for endpoints not in
	// doubt. Nil means pool.DefaultSettings(); a non-nil value is taken as
	// written.
	Pool *pool.Settings
	// Methods declares JSON-RPC methods the built-in registry does not
	// know (a provider's own), with their role, retry class and budget
	// (methods.Method; see methods.Registry.Declare). A built-in send
	// cannot be declared otherwise.
	Methods []methods.Method
	// SubscribeRedundancy is how many distinct endpoints (of those with a
	// Subscribe role) hold each subscription at once, best tier first:
	// their notifications are deduplicated, so one endpoint cut, stalled
	// or lagging loses nothing. 0 means 2, or 1 with a single subscribe
	// endpoint; otherwise 1 to 16 and at most the subscribe endpoints (a
	// redundancy they cannot meet is an error, not clamped). The
	// document's [subscribe] redundancy.
	SubscribeRedundancy int
	// Hooks are time, logging and Observers.
	Hooks Hooks `json:"-"`
}

// Hooks carry what a configuration document cannot: the one place for a
// client's clock, logger, Observers and shared limiter. The zero value is
// valid.
type Hooks struct {
	// Clock is the source of time for buckets, cooldowns, deadlines and
	// backoffs. Nil means the real clock.
	Clock clockwork.Clock
	// Logger receives the pool's and the transport's structured lines,
	// which name endpoints only by their Name. Nil discards.
	Logger *slog.Logger
	// Observers see every call and every attempt of it, from the first
	// call on (transport.Observer; see Client.Observe, and WithObserver
	// for the calls under one context).
	Observers []transport.Observer
	// Limits, when set, supplies every (endpoint, role)'s token bucket in
	// place of the in-process one: redislimit.New builds a limiter that
	// shares each endpoint's rate limit with every other process using
	// the same Redis, key prefix and endpoint names
	// (plans/013-shared-limits.md). The program that built it closes it,
	// after the clients that use it; Client.Close does not. A document
	// whose [limits] backend is "redis" needs one (build it from
	// doc.Limits); one whose backend is "local" refuses one. Nil means
	// each process its own buckets.
	Limits pool.Limiter
}

// Endpoint is one RPC endpoint, in plain Go. Printing an Endpoint (any fmt
// verb, log/slog, encoding/json) never shows its URL or a header value.
type Endpoint struct {
	// Name is a unique, non-secret label: the only way the endpoint is
	// ever named in errors, logs, snapshots and metrics. Required.
	Name string
	// URL is the endpoint's http(s) address; it may carry an API key in its
	// path, query or user info. Required.
	URL string
	// Headers are sent with every request (for example an Authorization
	// header). Nil means none.
	Headers map[string]string
	// Tier orders endpoints by preference: 0 is tried first, then 1, and
	// so on.
	Tier int
	// Capabilities are tags a call may require (WithCapabilities),
	// such as "archive". Nil means none.
	Capabilities []string
	// Read and Send are the endpoint's limits for reads and for sends; nil
	// means the endpoint does not serve that role. At least one is
	// required. A zero Limits is valid: no rate limit, no concurrency cap,
	// default timeouts.
	Read, Send *endpoint.Limits
	// WSURL is the endpoint's PubSub (WebSocket) address for its
	// subscribe role, a secret like URL. "" means URL with http turned
	// to ws and https to wss, the same host, path and query.
	WSURL string
	// Subscribe, when not nil, is the endpoint's subscribe role: it holds
	// subscriptions (Client.SlotSubscribe, AccountSubscribe, ...) at
	// WSURL, within these limits (a zero value takes every default). Nil
	// means it holds none. An endpoint needs Read, Send or Subscribe.
	Subscribe *endpoint.SubscribeLimits
	// SkipPreflight marks a sender that takes sendTransaction only with
	// skipPreflight true and maxRetries 0 (Helius Sender): every send
	// routed to it carries both. Needs Send.
	SkipPreflight bool
	// BlockEngine marks a Jito-style block engine: URL is its
	// …/api/v1/transactions URL, and its bundle methods go to
	// …/api/v1/bundles beside it. Needs Send and the capability
	// "bundles", which SendBundle requires.
	BlockEngine bool
}

// redacted is what a secret prints as.
const redacted = "[redacted]"

// String names the endpoint without its URL or headers.
func (e Endpoint) String() string {
	return fmt.Sprintf("endpoint %q (tier %d)", e.Name, e.Tier)
}

// Format writes String for every verb, so that no verb, flag or width
// prints the URL or a header value.
func (e Endpoint) Format(f fmt.State, _ rune) { _, _ = fmt.Fprint(f, e.String()) }

// LogValue names the endpoint in structured logs without its secrets.
func (e Endpoint) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", e.Name), slog.Int("tier", e.Tier))
}

// MarshalJSON encodes the endpoint with its URL and header values
// redacted.
func (e Endpoint) MarshalJSON() ([]byte, error) {
	type shown struct {
		Name         string                    `json:"name"`
		URL          string                    `json:"url"`
		Headers      map[string]string         `json:"headers,omitempty"`
		Tier         int                       `json:"tier"`
		Capabilities []string                  `json:"capabilities,omitempty"`
		Read         *endpoint.Limits          `json:"read,omitempty"`
		Send         *endpoint.Limits          `json:"send,omitempty"`
		WSURL        string                    `json:"ws_url,omitempty"`
		Subscribe    *endpoint.SubscribeLimits `json:"subscribe,omitempty"`
	}
	s := shown{Name: e.Name, URL: redacted, Tier: e.Tier, Capabilities: e.Capabilities, Read: e.Read, Send: e.Send, Subscribe: e.Subscribe}
	if e.WSURL != "" {
		s.WSURL = redacted
	}
	if len(e.Headers) > 0 {
		s.Headers = make(map[string]string, len(e.Headers))
		for k := range e.Headers {
			s.Headers[k] = redacted
		}
	}
	return json.Marshal(s)
}

// spec converts e to an endpoint.Spec, copying its maps and slices.
func (e *Endpoint) spec() endpoint.Spec {
	s := endpoint.Spec{
		Name:         e.Name,
		URL:          endpoint.NewSecret(e.URL),
		Tier:         e.Tier,
		Capabilities: slices.Clone(e.Capabilities),
		Roles:        make(map[endpoint.Role]endpoint.Limits, 2),
		// Send-only services (plans/017).
		SkipPreflight: e.SkipPreflight,
		BlockEngine:   e.BlockEngine,
	}
	if e.Headers != nil {
		s.Headers = make(map[string]endpoint.Secret, len(e.Headers))
		for _, k := range slices.Sorted(maps.Keys(e.Headers)) {
			s.Headers[k] = endpoint.NewSecret(e.Headers[k])
		}
	}
	if e.Read != nil {
		s.Roles[endpoint.RoleRead] = *e.Read
	}
	if e.Send != nil {
		s.Roles[endpoint.RoleSend] = *e.Send
	}
	if e.WSURL != "" {
		s.WSURL = endpoint.NewSecret(e.WSURL)
	}
	if e.Subscribe != nil {
		l := *e.Subscribe
		s.Subscribe = &l
	}
	return s
}

// maxSubscribeRedundancy bounds Options.SubscribeRedundancy, as the
// document bounds [subscribe] redundancy.
const maxSubscribeRedundancy = 16

// subscribeRedundancy checks a redundancy asked for (named by where)
// against the specs that serve the subscribe role and returns the
// engine's: 0 is the default, 2, or 1 with one such endpoint. One the
// endpoints cannot meet is an error: a user who asked for 3 expects a
// subscription to survive two endpoints failing at once.
func subscribeRedundancy(r int, specs []endpoint.Spec, where string) (int, error) {
	n := 0
	for i := range specs {
		if specs[i].Subscribe != nil {
			n++
		}
	}
	switch {
	case r == 0:
		return min(defaultSubscribeRedundancy, max(n, 1)), nil
	case r < 0 || r > maxSubscribeRedundancy:
		return 0, fmt.Errorf("solroute: %s must be between 1 and %d (0: the default, %d)", where, maxSubscribeRedundancy, defaultSubscribeRedundancy)
	case r > n:
		return 0, fmt.Errorf("solroute: %s is %d but %d endpoint(s) serve subscribe: each subscription is held on that many distinct endpoints", where, r, n)
	}
	return r, nil
}

// defaultSubscribeRedundancy is the engine's default redundancy.
const defaultSubscribeRedundancy = pubsub.DefaultRedundancy

// declare returns the built-in registry with ms declared.
func declare(ms []methods.Method) (*methods.Registry, error) {
	r := methods.Default()
	for _, m := range ms {
		var err error
		if r, err = r.Declare(m); err != nil {
			return nil, err
		}
	}
	return r, nil
}
