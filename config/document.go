package config

// The document as go-toml decodes it. Tables are structs, so that
// DisallowUnknownFields reports every unknown key with its line; every leaf
// is an any, so that a value of the wrong type is reported by the checks
// in check.go together with every other problem instead of stopping the
// decoder at the first one.

// document is the whole file.
type document struct {
	Cluster   any                   `toml:"cluster"`
	Retry     *retryDoc             `toml:"retry"`
	Transport *transportDoc         `toml:"transport"`
	Ejection  *ejectionDoc          `toml:"ejection"`
	Methods   map[string]*methodDoc `toml:"methods"`
	Endpoints []endpointDoc         `toml:"endpoints"`
}

// methodDoc is one [methods.NAME] table.
type methodDoc struct {
	Role  any `toml:"role"`
	Class any `toml:"class"`
}

// retryDoc is the [retry] table.
type retryDoc struct {
	MaxRetries            any `toml:"max_retries"`
	InitialBackoff        any `toml:"initial_backoff"`
	MaxBackoff            any `toml:"max_backoff"`
	MaxProviderDelay      any `toml:"max_provider_delay"`
	RetryBudgetRatio      any `toml:"retry_budget_ratio"`
	RetryBudgetMinRetries any `toml:"retry_budget_min_retries"`
}

// transportDoc is the [transport] table.
type transportDoc struct {
	MaxResponseBytes any `toml:"max_response_bytes"`
	DoubtWindow      any `toml:"doubt_window"`
	DoubtPatience    any `toml:"doubt_patience"`
	HedgeAfter       any `toml:"hedge_after"`
}

// ejectionDoc is the [ejection] table.
type ejectionDoc struct {
	ConsecutiveFailures any `toml:"consecutive_failures"`
	BaseTime            any `toml:"base_time"`
	MaxTime             any `toml:"max_time"`
}

// endpointDoc is one [[endpoints]] table.
type endpointDoc struct {
	Name         any       `toml:"name"`
	URL          any       `toml:"url"`
	Tier         any       `toml:"tier"`
	Capabilities any       `toml:"capabilities"`
	Headers      any       `toml:"headers"`
	Roles        *rolesDoc `toml:"roles"`
}

// rolesDoc is the [endpoints.roles] table.
type rolesDoc struct {
	Read *limitsDoc `toml:"read"`
	Send *limitsDoc `toml:"send"`
}

// limitsDoc is one [endpoints.roles.ROLE] table.
type limitsDoc struct {
	RequestsPerSecond     any `toml:"requests_per_second"`
	BurstCapacity         any `toml:"burst_capacity"`
	MaxConcurrentRequests any `toml:"max_concurrent_requests"`
	RequestTimeout        any `toml:"request_timeout"`
	PauseAfterRateLimit   any `toml:"pause_after_rate_limit"`
}
