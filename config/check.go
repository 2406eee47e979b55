package config

import (
	"math"
	"net/url"
	"strconv"
	"time"

	"github.com/solroute/solroute/endpoint"
)

// checker turns a decoded document into a Config, recording every problem
// instead of stopping at the first.
type checker struct {
	problems
	lookup func(string) (string, bool)
}

// config checks the whole document.
func (c *checker) config(d *document) *Config {
	cfg := &Config{}
	if s, ok := c.str("cluster", d.Cluster); ok {
		if _, known := GenesisOf(s); !known {
			c.add("cluster", "is not a known cluster: want mainnet-beta, devnet, testnet or a cluster's genesis hash (32 bytes in base58)")
		} else {
			cfg.Cluster = s
		}
	}
	if d.Retry != nil {
		c.retry(d.Retry, cfg)
	}
	if d.Transport != nil {
		if n, ok := c.integer("transport.max_response_bytes", d.Transport.MaxResponseBytes); ok {
			if n <= 0 {
				c.add("transport.max_response_bytes", "must be positive")
			} else {
				cfg.MaxResponseBytes = n
			}
		}
		cfg.DoubtWindow = c.durationOffAtZero("transport.doubt_window", d.Transport.DoubtWindow, "turns it off")
		cfg.DoubtPatience = c.durationOffAtZero("transport.doubt_patience", d.Transport.DoubtPatience,
			"takes an endpoint in doubt at once")
		cfg.HedgeAfter = c.positiveDuration("transport.hedge_after", d.Transport.HedgeAfter)
	}
	if d.Ejection != nil {
		c.ejection(d.Ejection, cfg)
	}
	cfg.Methods = c.methods(d.Methods)
	if len(d.Endpoints) == 0 {
		c.add("endpoints", "at least one [[endpoints]] table is required")
	}
	for i := range d.Endpoints {
		cfg.Endpoints = append(cfg.Endpoints, c.endpoint("endpoints["+strconv.Itoa(i)+"]", &d.Endpoints[i]))
	}
	return cfg
}

// retry checks the [retry] table. The document's values mean what they
// say; retrypolicy.Settings gives its zeros the default meaning, so an
// explicit max_retries = 0 or retry_budget_min_retries = 0 becomes -1
// ("off") there.
func (c *checker) retry(r *retryDoc, cfg *Config) {
	s := &cfg.Retry
	s.MaxRetries = c.offAtZero("retry.max_retries", r.MaxRetries, "no retries")
	s.InitialBackoff = c.positiveDuration("retry.initial_backoff", r.InitialBackoff)
	s.MaxBackoff = c.positiveDuration("retry.max_backoff", r.MaxBackoff)
	if n := cfg.RetrySettings(); n.InitialBackoff > n.MaxBackoff {
		// Name the other key; quote its value only when it is the default,
		// not a value of the document.
		if s.InitialBackoff > 0 {
			c.add("retry.initial_backoff", "must not exceed retry.max_backoff"+defaultNote(s.MaxBackoff, n.MaxBackoff))
		} else {
			c.add("retry.max_backoff", "must not be below retry.initial_backoff"+defaultNote(s.InitialBackoff, n.InitialBackoff))
		}
	}
	s.MaxProviderDelay = c.positiveDuration("retry.max_provider_delay", r.MaxProviderDelay)
	if f, ok := c.number("retry.retry_budget_ratio", r.RetryBudgetRatio); ok {
		if f <= 0 || f > 1 {
			c.add("retry.retry_budget_ratio", "must be greater than 0 and at most 1")
		} else {
			s.BudgetRatio = f
		}
	}
	s.BudgetMinRetries = c.offAtZero("retry.retry_budget_min_retries", r.RetryBudgetMinRetries, "no floor")
}

// offAtZero reads an optional non-negative [retry] count whose explicit 0
// means zeroMeans: it returns retrypolicy's -1 ("off") for it, and 0 (the
// default) when the key is absent or wrong.
func (c *checker) offAtZero(path string, v any, zeroMeans string) int {
	n, ok := c.integer(path, v)
	switch {
	case !ok:
		return 0
	case n < 0:
		c.add(path, "must not be negative (0 means "+zeroMeans+")")
		return 0
	case n == 0:
		return -1
	}
	return int(min(n, math.MaxInt32))
}

// ejection checks the [ejection] table. An explicit consecutive_failures
// = 0 becomes endpoint.Ejection's -1 (never eject).
func (c *checker) ejection(e *ejectionDoc, cfg *Config) {
	cfg.Ejection.After = c.offAtZero("ejection.consecutive_failures", e.ConsecutiveFailures, "never eject")
	cfg.Ejection.Base = c.positiveDuration("ejection.base_time", e.BaseTime)
	cfg.Ejection.Max = c.positiveDuration("ejection.max_time", e.MaxTime)
	if n := cfg.PoolSettings().Ejection; cfg.Ejection.Max > 0 && cfg.Ejection.Max < n.Base {
		c.add("ejection.max_time", "must not be below ejection.base_time"+defaultNote(cfg.Ejection.Base, n.Base))
	}
}

// defaultNote is " (its default, D)" when set is zero, that is when the key
// it belongs to is absent and def applies; "" when the document set it,
// since messages never quote a value of the document.
func defaultNote(set, def time.Duration) string {
	if set != 0 {
		return ""
	}
	return " (its default, " + shortDuration(def) + ")"
}

// endpoint checks one [[endpoints]] table.
func (c *checker) endpoint(path string, d *endpointDoc) Endpoint {
	var e Endpoint
	if s, ok := c.str(path+".name", d.Name); ok {
		e.Name = s
	}
	if s, ok := c.str(path+".url", d.URL); ok {
		if v, ok := c.expand(path+".url", s); ok {
			if checkURL(v) {
				e.URL = endpoint.NewSecret(v)
			} else {
				c.add(path+".url", "must be an absolute http or https URL with a host")
			}
		}
	}
	if n, ok := c.integer(path+".tier", d.Tier); ok {
		if n < 0 {
			c.add(path+".tier", "must not be negative")
		} else {
			e.Tier = int(n)
		}
	}
	e.Capabilities = c.capabilities(path+".capabilities", d.Capabilities)
	e.Headers = c.headers(path+".headers", d.Headers)
	e.Roles = map[endpoint.Role]endpoint.Limits{}
	if d.Roles != nil {
		if d.Roles.Read != nil {
			e.Roles[endpoint.RoleRead] = c.limits(path+".roles.read", d.Roles.Read)
		}
		if d.Roles.Send != nil {
			e.Roles[endpoint.RoleSend] = c.limits(path+".roles.send", d.Roles.Send)
		}
	}
	if len(e.Roles) == 0 {
		c.add(path+".roles", "at least one role is required: [endpoints.roles.read] or [endpoints.roles.send]")
	}
	return e
}

// capabilities checks an array of non-empty strings.
func (c *checker) capabilities(path string, v any) []string {
	if v == nil {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		c.add(path, "must be an array of strings, not "+tomlType(v))
		return nil
	}
	out := make([]string, 0, len(arr))
	for i, x := range arr {
		p := path + "[" + strconv.Itoa(i) + "]"
		if s, ok := c.str(p, x); ok {
			if s == "" {
				c.add(p, "must not be empty")
				continue
			}
			out = append(out, s)
		}
	}
	return out
}

// headers checks a table of header names to ${VAR}-expanded strings.
func (c *checker) headers(path string, v any) map[string]endpoint.Secret {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		c.add(path, "must be a table of strings, not "+tomlType(v))
		return nil
	}
	out := make(map[string]endpoint.Secret, len(m))
	for name, x := range m {
		p := join(path, name)
		if !endpoint.ValidHeaderName(name) {
			c.add(p, "is not a valid HTTP header name")
			continue
		}
		s, ok := c.str(p, x)
		if !ok {
			continue
		}
		if s, ok = c.expand(p, s); !ok {
			continue
		}
		if !endpoint.ValidHeaderValue(s) {
			c.add(p, "value must not contain control characters such as a newline")
			continue
		}
		out[name] = endpoint.NewSecret(s)
	}
	return out
}

// limits checks one role's table.
func (c *checker) limits(path string, d *limitsDoc) endpoint.Limits {
	var l endpoint.Limits
	if f, ok := c.number(path+".requests_per_second", d.RequestsPerSecond); ok {
		if f < 0 {
			c.add(path+".requests_per_second", "must not be negative (0 means unlimited)")
		} else {
			l.RequestsPerSecond = f
		}
	}
	l.BurstCapacity = c.count(path+".burst_capacity", d.BurstCapacity)
	l.MaxConcurrentRequests = c.count(path+".max_concurrent_requests", d.MaxConcurrentRequests)
	l.RequestTimeout = c.positiveDuration(path+".request_timeout", d.RequestTimeout)
	l.PauseAfterRateLimit = c.positiveDuration(path+".pause_after_rate_limit", d.PauseAfterRateLimit)
	return l
}

// count checks a non-negative integer that fits an int.
func (c *checker) count(path string, v any) int {
	n, ok := c.integer(path, v)
	if !ok {
		return 0
	}
	if n < 0 {
		c.add(path, "must not be negative")
		return 0
	}
	if n > math.MaxInt32 {
		c.add(path, "must be at most "+strconv.Itoa(math.MaxInt32))
		return 0
	}
	return int(n)
}

// expand expands ${VAR} references in a url or header value, recording
// every problem under path.
func (c *checker) expand(path, s string) (string, bool) {
	v, errs := expand(s, c.lookup)
	for _, e := range errs {
		c.add(path, e.message())
	}
	return v, len(errs) == 0
}

// str reads an optional string. It reports false when v is absent or not a
// string (recording the latter).
func (c *checker) str(path string, v any) (string, bool) {
	if v == nil {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		c.add(path, "must be a string, not "+tomlType(v))
	}
	return s, ok
}

// integer reads an optional TOML integer.
func (c *checker) integer(path string, v any) (int64, bool) {
	if v == nil {
		return 0, false
	}
	n, ok := v.(int64)
	if !ok {
		c.add(path, "must be an integer, not "+tomlType(v))
	}
	return n, ok
}

// number reads an optional finite TOML integer or float.
func (c *checker) number(path string, v any) (float64, bool) {
	switch x := v.(type) {
	case nil:
		return 0, false
	case int64:
		return float64(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			c.add(path, "must be a finite number")
			return 0, false
		}
		return x, true
	}
	c.add(path, "must be a number, not "+tomlType(v))
	return 0, false
}

// duration reads an optional duration string ("500ms", "5s", "1m30s"; see
// parseDuration), at most MaxDuration. ok is false when the key is absent
// or wrong (reported). A negative duration is returned as -1, for the
// caller to report in its own words.
func (c *checker) duration(path string, v any) (d time.Duration, ok bool) {
	if v == nil {
		return 0, false
	}
	s, ok := v.(string)
	if !ok {
		c.add(path, `must be a duration string such as "5s", not `+tomlType(v))
		return 0, false
	}
	d, negative, problem := parseDuration(s)
	switch {
	case negative:
		return -1, true
	case problem != "":
		c.add(path, problem)
		return 0, false
	}
	return d, true
}

// durationOffAtZero reads an optional duration string where an explicit
// "0s" zeroMeans: it returns the settings' -1 ("off") for it, and 0 (the
// default) when the key is absent or wrong.
func (c *checker) durationOffAtZero(path string, v any, zeroMeans string) time.Duration {
	d, ok := c.duration(path, v)
	switch {
	case !ok:
		return 0
	case d < 0:
		c.add(path, `must not be negative ("0s" `+zeroMeans+")")
		return 0
	case d == 0:
		return -1
	}
	return d
}

// positiveDuration reads an optional Go duration string that must be
// above zero. It returns 0 (the default) when the key is absent or wrong.
func (c *checker) positiveDuration(path string, v any) time.Duration {
	d, ok := c.duration(path, v)
	if !ok {
		return 0
	}
	if d <= 0 {
		c.add(path, "must be positive (leave the key out for the default)")
		return 0
	}
	return d
}

// tomlType names the TOML type of a decoded value, for messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}

// checkURL reports whether s is an absolute http(s) URL with a host. It
// never returns url.Parse's error, which quotes the URL.
func checkURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	return (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
