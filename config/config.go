package config

import (
	"maps"
	"slices"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/registry"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// Config is a loaded configuration document, with ${VAR} references
// already expanded. It is plain data: Parse and Load fill it, code may build
// or change one, and the adapter methods (EndpointSpecs, RetrySettings,
// TransportSettings) turn it into what the other packages take. Printing a
// Config with any fmt verb, encoding/json or log/slog never shows a URL or
// a header value: those are endpoint.Secrets.
type Config struct {
	// Cluster is the document's cluster key: "" (not checked),
	// "mainnet-beta", "devnet", "testnet" or a base58 genesis hash. See
	// ExpectedGenesisHash.
	Cluster string
	// Retry holds the [retry] table in retrypolicy's terms.
	Retry Retry
	// MaxResponseBytes is [transport] max_response_bytes. 0 means
	// transport.DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// DoubtWindow is [transport] doubt_window, with
	// pool.Options.DoubtWindow's meaning: 0 means pool.DefaultDoubtWindow
	// and a negative value turns the preference off. Parse maps the
	// document's explicit "0s" to -1.
	DoubtWindow time.Duration
	// DoubtPatience is [transport] doubt_patience, with
	// pool.Options.DoubtPatience's meaning: 0 means
	// pool.DefaultDoubtPatience and a negative value means at once.
	// Parse maps the document's explicit "0s" to -1.
	DoubtPatience time.Duration
	// HedgeAfter is [transport] hedge_after (transport.Settings.HedgeAfter):
	// 0, the default, means no hedging.
	HedgeAfter time.Duration
	// Ejection is the [ejection] table, with endpoint.Ejection's meaning:
	// zero fields mean the defaults, After -1 never ejects. Parse maps the
	// document's explicit consecutive_failures = 0 to -1.
	Ejection endpoint.Ejection
	// Methods are the [methods.NAME] tables: JSON-RPC methods declared
	// with their role and retry class, added to the registry a client
	// routes by (see MethodRegistry; NewClient and NewSolanaClient use
	// it). Nil means none: the client routes by ClientOptions.Registry, or
	// registry.Default().
	Methods map[string]registry.Entry
	// Endpoints are the [[endpoints]] tables, in document order.
	Endpoints []Endpoint
}

// Retry is the [retry] table with retrypolicy.Settings' meaning of each
// field: 0 means the policy's default and a negative value means "off".
// Parse maps the document's explicit max_retries = 0 and
// retry_budget_min_retries = 0 to -1.
type Retry struct {
	// MaxRetries bounds retries of answered or maybe-dispatched attempts.
	// 0 means retrypolicy.DefaultMaxRetries; negative means none.
	MaxRetries int
	// InitialBackoff is the first backoff's ceiling. 0 means
	// retrypolicy.DefaultInitialBackoff.
	InitialBackoff time.Duration
	// MaxBackoff caps every backoff ceiling. 0 means
	// retrypolicy.DefaultMaxBackoff.
	MaxBackoff time.Duration
	// MaxProviderDelay caps a provider's Retry-After. 0 means
	// retrypolicy.DefaultMaxProviderDelay.
	MaxProviderDelay time.Duration
	// BudgetRatio is the retries allowed per call made, over recent calls
	// (see retrypolicy.Policy). 0 means retrypolicy.DefaultBudgetRatio;
	// negative disables the budget.
	BudgetRatio float64
	// BudgetMinRetries is the budget's floor: retries in flight allowed
	// without spending a token. 0 means
	// retrypolicy.DefaultBudgetMinRetries; negative means no floor.
	BudgetMinRetries int
}

// Endpoint is one [[endpoints]] table. Its fields mean what the
// endpoint.Spec fields of the same names mean.
type Endpoint struct {
	// Name is the unique, non-secret label; the only name ever printed.
	Name string
	// URL is the endpoint's address, ${VAR} references expanded.
	URL endpoint.Secret
	// Headers are sent with every request, values ${VAR}-expanded. Nil
	// means none.
	Headers map[string]endpoint.Secret
	// Tier orders endpoints by preference; 0 is tried first.
	Tier int
	// Capabilities are tags such as "archive". Nil means none.
	Capabilities []string
	// Roles holds the limits of each role the endpoint serves
	// ([endpoints.roles.read], [endpoints.roles.send]); a role is served
	// exactly when present, even with every limit at its zero.
	Roles map[endpoint.Role]endpoint.Limits
}

// Spec converts e to an endpoint.Spec, copying its maps and slices. It does
// not validate.
func (e *Endpoint) Spec() endpoint.Spec {
	return endpoint.Spec{
		Name:         e.Name,
		URL:          e.URL,
		Headers:      maps.Clone(e.Headers),
		Tier:         e.Tier,
		Capabilities: slices.Clone(e.Capabilities),
		Roles:        maps.Clone(e.Roles),
	}
}

// EndpointSpecs converts every endpoint to an endpoint.Spec, in document
// order, and validates them with endpoint.Validate. The error, when not
// nil, is that *endpoint.ValidationError. A Config returned by Parse or Load
// always converts without error.
func (c *Config) EndpointSpecs() ([]endpoint.Spec, error) {
	specs := make([]endpoint.Spec, len(c.Endpoints))
	for i := range c.Endpoints {
		specs[i] = c.Endpoints[i].Spec()
	}
	if err := endpoint.Validate(specs); err != nil {
		return nil, err
	}
	return specs, nil
}

// RetrySettings returns the retry policy's settings: the defaults, with
// each field the document sets (0 for "off"). Jitter is left nil (a
// uniform draw).
func (c *Config) RetrySettings() retrypolicy.Settings {
	r, s := c.Retry, retrypolicy.DefaultSettings()
	overlayInt(&s.MaxRetries, r.MaxRetries)
	overlayDuration(&s.InitialBackoff, r.InitialBackoff)
	overlayDuration(&s.MaxBackoff, r.MaxBackoff)
	overlayDuration(&s.MaxProviderDelay, r.MaxProviderDelay)
	if r.BudgetRatio > 0 {
		s.BudgetRatio = r.BudgetRatio
	}
	overlayInt(&s.BudgetMinRetries, r.BudgetMinRetries)
	return s
}

// PoolSettings returns the pool's settings: the defaults, with each field
// the document sets (0 for "off").
func (c *Config) PoolSettings() pool.Settings {
	s := pool.DefaultSettings()
	overlayInt(&s.Ejection.After, c.Ejection.After)
	overlayDuration(&s.Ejection.Base, c.Ejection.Base)
	overlayDuration(&s.Ejection.Max, c.Ejection.Max)
	overlayDuration(&s.DoubtWindow, c.DoubtWindow)
	overlayDuration(&s.DoubtPatience, c.DoubtPatience)
	return s
}

// overlayInt sets *dst to v when v is set: -1 (the document's explicit 0)
// becomes 0, 0 (absent) keeps the default.
func overlayInt(dst *int, v int) {
	switch {
	case v < 0:
		*dst = 0
	case v > 0:
		*dst = v
	}
}

// overlayDuration is overlayInt for durations.
func overlayDuration(dst *time.Duration, v time.Duration) {
	switch {
	case v < 0:
		*dst = 0
	case v > 0:
		*dst = v
	}
}

// TransportSettings returns the transport's settings: the retry settings,
// the response size limit and hedging. Logger,
// Registry and OnAttempt are left nil for the caller (see ClientOptions,
// and MethodRegistry for the declared methods).
func (c *Config) TransportSettings() transport.Settings {
	s := transport.DefaultSettings()
	s.Retry = c.RetrySettings()
	if c.MaxResponseBytes > 0 {
		s.MaxResponseBytes = c.MaxResponseBytes
	}
	s.HedgeAfter = c.HedgeAfter
	return s
}

// ExpectedGenesisHash resolves Cluster to the genesis hash every endpoint
// must report. It reports false when Cluster is "" or not understood (Parse
// rejects the latter).
func (c *Config) ExpectedGenesisHash() (solana.Hash, bool) {
	return GenesisOf(c.Cluster)
}
