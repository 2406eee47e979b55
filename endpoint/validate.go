package endpoint

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/solroute/solroute/internal/httpheader"
)

// Problem is one wrong settings field: the one shape every Validate of the
// module's settings reports (endpoint.Validate, Ejection.Validate,
// pool.Settings, retrypolicy.Settings, transport.Settings, config.Limits,
// metrics.Options). Those return nil or the problems joined with
// errors.Join, each a *Problem: errors.As finds the first, and the joined
// error's Unwrap() []error lists them all. A parsed document's problems
// carry their line too: config.Problem.
type Problem struct {
	// Path names the field the way a configuration document spells it,
	// within the table of the settings type that reports it: for example
	// "endpoints[2].roles.send.burst_capacity", "ejection.base_time",
	// "retry.max_backoff" (transport.Settings.Retry, the document's [retry]
	// table). metrics.Options, which no document sets, names its Go field
	// ("Namespace").
	Path string
	// Message says what is wrong and what is expected. It never quotes a
	// value of the spec (a URL, a header value, a capability, a number),
	// only the endpoint's name, its non-secret label.
	Message string
}

// Error returns "invalid setting path: message".
func (p *Problem) Error() string { return "invalid setting " + p.Path + ": " + p.Message }

// Validate checks every spec and returns every problem (each a *Problem)
// joined with errors.Join, in order, or nil. Paths are "endpoints[i]...." where i is the index in specs.
//
// It checks: at least one endpoint; name required, unique, valid UTF-8,
// without control characters or surrounding spaces; url required, parseable, http or https,
// with a host; header names are HTTP tokens and values hold no control
// character; tier >= 0; capabilities non-empty and not repeated; at least
// one known role; per role, every number >= 0 and finite,
// requests_per_second 0 (unlimited) or between one request an hour
// (1/3600) and 1e9, burst_capacity only with requests_per_second,
// request_timeout and pause_after_rate_limit at most 1h; a ws_url ws or wss
// with a host, set only with a subscribe role, whose limits are in their
// bounds (see SubscribeLimits; an endpoint with only a subscribe role is
// valid). Messages never quote a value of the spec but
// its name: not a URL, a header value, a capability or a number; the path
// says where the problem is, the message what was expected.
func Validate(specs []Spec) error {
	var v validator
	if len(specs) == 0 {
		v.add("endpoints", "at least one endpoint is required")
	}
	firstUse := make(map[string]int, len(specs))
	for i := range specs {
		v.spec(i, &specs[i], firstUse)
	}
	errs := make([]error, len(v.problems))
	for i := range v.problems {
		errs[i] = &v.problems[i]
	}
	return errors.Join(errs...)
}

// validator collects problems in document order.
type validator struct {
	problems []Problem
}

func (v *validator) add(path, format string, args ...any) {
	v.problems = append(v.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) spec(i int, s *Spec, firstUse map[string]int) {
	base := fmt.Sprintf("endpoints[%d]", i)
	switch {
	case s.Name == "":
		v.add(base+".name", "is required")
	case !v.label(base+".name", s.Name):
	default:
		if j, dup := firstUse[s.Name]; dup {
			v.add(base+".name", "%q is already the name of endpoints[%d]", s.Name, j)
		} else {
			firstUse[s.Name] = i
		}
	}
	if s.Provider != "" {
		v.label(base+".provider", s.Provider)
	}
	v.url(base+".url", s.URL.Reveal())
	v.headers(base+".headers", s.Headers)
	if s.Tier < 0 {
		v.add(base+".tier", "must be 0 or more")
	}
	v.capabilities(base+".capabilities", s.Capabilities)
	v.roles(base+".roles", s.Roles, s.Subscribe != nil)
	v.subscribe(base, s)
	v.sendOnly(base, s)
}

// label checks a non-empty label (Name, Provider) and reports whether it
// passed: printed in errors, logs, results and witness lines, it must print
// as written, so that two labels never print alike.
func (v *validator) label(path, l string) bool {
	switch {
	case hasControl(l):
		v.add(path, "must not contain control characters")
	case !utf8.ValidString(l):
		// A label, a log line and a JSON field carry it: two labels that
		// differ only in invalid bytes would print alike.
		v.add(path, "must be valid UTF-8")
	case strings.TrimSpace(l) != l:
		v.add(path, "must not start or end with spaces")
	default:
		return true
	}
	return false
}

// url checks the address without ever quoting it: url.Parse errors embed
// the whole URL, so only their kind is reported.
func (v *validator) url(path, raw string) {
	if raw == "" {
		v.add(path, "is required")
		return
	}
	u, err := url.Parse(raw)
	if err != nil {
		v.add(path, "is not a valid URL")
		return
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		v.add(path, "must use the http or https scheme")
	}
	if u.Host == "" || u.Hostname() == "" {
		v.add(path, "must name a host")
	}
}

func (v *validator) headers(path string, h map[string]Secret) {
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if !httpheader.ValidName(k) {
			v.add(path, "header name %q is not a valid HTTP header name (a name only, its value apart)", httpheader.ShownName(k))
		}
		if !httpheader.ValidValue(h[k].Reveal()) {
			v.add(path, "the value of header %q contains control characters", httpheader.ShownName(k))
		}
	}
}

func (v *validator) capabilities(path string, caps []string) {
	seen := make(map[string]int, len(caps))
	for j, c := range caps {
		p := fmt.Sprintf("%s[%d]", path, j)
		switch {
		case strings.TrimSpace(c) == "":
			v.add(p, "must not be empty")
		default:
			if first, dup := seen[c]; dup {
				v.add(p, "repeats %s[%d]", path, first)
			} else {
				seen[c] = j
			}
		}
	}
}

func (v *validator) roles(path string, roles map[Role]Limits, subscribes bool) {
	if len(roles) == 0 && !subscribes {
		v.add(path, "at least one role (read, send or subscribe) is required")
		return
	}
	for r := range roles {
		if r != RoleRead && r != RoleSend {
			v.add(path, "unknown role %s (want read or send)", r)
		}
	}
	for _, r := range AllRoles() {
		if l, ok := roles[r]; ok {
			v.limits(path+"."+r.String(), l)
		}
	}
}

func (v *validator) limits(path string, l Limits) {
	v.rate(path, "requests_per_second", l.RequestsPerSecond, l.BurstCapacity)
	if l.MaxConcurrentRequests < 0 {
		v.add(path+".max_concurrent_requests", "must be 0 (unlimited) or more")
	}
	v.duration(path+".request_timeout", l.RequestTimeout, defaultRequestTimeout, maxRequestTimeout)
	v.duration(path+".pause_after_rate_limit", l.PauseAfterRateLimit, defaultPauseAfterRateLimit, maxPauseAfterRateLimit)
}

// rate checks a token bucket's rate (the key rateKey of the table at
// path) and its burst_capacity.
func (v *validator) rate(path, rateKey string, rps float64, burst int) {
	switch {
	case math.IsNaN(rps) || math.IsInf(rps, 0):
		v.add(path+"."+rateKey, "must be a finite number")
	case rps < 0:
		v.add(path+"."+rateKey, "must be 0 (unlimited) or more")
	case rps > 0 && rps < minRequestsPerSecond:
		v.add(path+"."+rateKey, "must be 0 (unlimited) or at least one request an hour (%g)", minRequestsPerSecond)
	case rps > maxRequestsPerSecond:
		v.add(path+"."+rateKey, "must be at most %g", float64(maxRequestsPerSecond))
	}
	switch {
	case burst < 0:
		v.add(path+".burst_capacity", "must be 0 (one second of %s) or more", rateKey)
	case burst > 0 && rps == 0:
		v.add(path+".burst_capacity", "is set but %s is not: a burst needs a rate", rateKey)
	}
}

// duration checks a duration whose 0 means def and whose valid values end
// at limit.
func (v *validator) duration(path string, d, def, limit time.Duration) {
	switch {
	case d < 0:
		v.add(path, "must be 0 (default %s) or more", shortDuration(def))
	case d > limit:
		v.add(path, "must be at most %s", shortDuration(limit))
	}
}

// shortDuration prints d without trailing zero units: "1h", not "1h0m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// hasControl reports whether s holds an ASCII control character.
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}
