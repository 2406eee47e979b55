package config

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// knownKeys lists the key paths of the document, without array indexes,
// read from the toml tags of the layout and the settings types the way the
// decoder reads them. A path maps to true when its value is a leaf (below
// it, any key is the value's business: a header name, say). The keys of a
// table the document names itself ([methods.NAME]) are spelt "*"; those of
// a table keyed by an enumeration (roles) by each of its names.
func knownKeys() map[string]bool {
	known := map[string]bool{}
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := range t.NumField() {
			key, ok := fieldKey(t.Field(i))
			if !ok {
				continue
			}
			path := join(prefix, key)
			ft := t.Field(i).Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch {
			case ft.Kind() == reflect.Slice && isTable(ft.Elem()):
				known[path] = false
				walk(path, ft.Elem())
			case ft.Kind() == reflect.Map && isTable(ft.Elem()):
				known[path] = false
				names := textChoices(ft.Key())
				if ft.Key().Kind() == reflect.String {
					names = []string{"*"}
				}
				for _, n := range names {
					known[path+"."+n] = false
					walk(path+"."+n, ft.Elem())
				}
			case isTable(ft):
				known[path] = false
				walk(path, ft)
			default:
				known[path] = true
			}
		}
	}
	walk("", reflect.TypeFor[layout]())
	return known
}

// wildcard spells stripped (a path without indexes) as knownKeys does:
// the key below a table of named tables becomes "*".
func wildcard(stripped string, known map[string]bool) string {
	out := ""
	for _, k := range pathKeys(stripped) {
		if out == "" {
			out = k
			continue
		}
		if _, named := known[out+".*"]; named {
			k = "*"
		}
		out += "." + k
	}
	return out
}

// TestKnownKeys pins the document's layout as the struct tags spell it.
func TestKnownKeys(t *testing.T) {
	want := []string{
		"cluster",
		"endpoints", "endpoints.block_engine", "endpoints.capabilities", "endpoints.headers", "endpoints.history", "endpoints.name", "endpoints.provider",
		"endpoints.roles", "endpoints.roles.read", "endpoints.roles.read.burst_capacity",
		"endpoints.roles.read.max_concurrent_requests", "endpoints.roles.read.pause_after_rate_limit",
		"endpoints.roles.read.request_timeout", "endpoints.roles.read.requests_per_second",
		"endpoints.roles.send", "endpoints.roles.send.burst_capacity",
		"endpoints.roles.send.max_concurrent_requests", "endpoints.roles.send.pause_after_rate_limit",
		"endpoints.roles.send.request_timeout", "endpoints.roles.send.requests_per_second", "endpoints.skip_preflight",
		"endpoints.subscribe", "endpoints.subscribe.burst_capacity", "endpoints.subscribe.max_connections",
		"endpoints.subscribe.subscribes_per_second", "endpoints.subscribe.subscriptions_per_connection",
		"endpoints.tier", "endpoints.url", "endpoints.ws_url",
		"limits", "limits.backend", "limits.fail_closed", "limits.key_prefix", "limits.replicas", "limits.url",
		"methods", "methods.*", "methods.*.class", "methods.*.history", "methods.*.role", "methods.*.timeout",
		"pool", "pool.doubt_patience", "pool.doubt_window",
		"pool.ejection", "pool.ejection.base_time", "pool.ejection.consecutive_failures", "pool.ejection.max_time",
		"pool.history_avoid", "pool.max_slot_lag",
		"retry", "retry.initial_backoff", "retry.max_backoff", "retry.max_provider_delay", "retry.max_retries",
		"retry.retry_budget_burst", "retry.retry_budget_min_retries", "retry.retry_budget_ratio", "retry.transparent_retries",
		"send", "send.fan_out",
		"subscribe", "subscribe.redundancy",
		"transport", "transport.attempt_timeout", "transport.coalesce", "transport.hedge_after", "transport.max_response_bytes",
		"transport.monotonic_reads", "transport.response_budget_bytes", "transport.slot_probe_interval",
	}
	known := knownKeys()
	var got []string
	for k := range known {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("known keys\n got %q\nwant %q", got, want)
	}
}

// TestEveryKnobHasAKey: every exported field of the settings a document
// fills has a toml key, but the three the document cannot hold (a function)
// or holds elsewhere (transport.Settings.Retry is the [retry] table, a
// declared method's Name the key of its [methods.NAME] table): a new field
// is reachable from TOML or fails here.
func TestEveryKnobHasAKey(tt *testing.T) {
	elsewhere := map[string]bool{"retrypolicy.Settings.Jitter": true, "transport.Settings.Retry": true, "methods.Method.Name": true}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if !isTable(t) || seen[t] {
			return
		}
		seen[t] = true
		for _, f := range reflect.VisibleFields(t) {
			if !f.IsExported() {
				continue
			}
			if _, ok := fieldKey(f); !ok && !elsewhere[t.String()+"."+f.Name] {
				tt.Errorf("%s.%s has no toml key: a document cannot set it", t, f.Name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[layout]())
	for _, want := range []reflect.Type{reflect.TypeFor[retrypolicy.Settings](), reflect.TypeFor[transport.Settings](),
		reflect.TypeFor[pool.Settings](), reflect.TypeFor[endpoint.Ejection](), reflect.TypeFor[endpoint.Spec](),
		reflect.TypeFor[endpoint.Limits](), reflect.TypeFor[Limits]()} {
		if !seen[want] {
			tt.Errorf("the layout does not reach %s", want)
		}
	}
}

// TestZeroMeansDefaultFieldsExist keeps zeroMeansDefaultFields honest.
func TestZeroMeansDefaultFieldsExist(t *testing.T) {
	for _, f := range zeroMeansDefaultFields() {
		sf, ok := f.t.FieldByName(f.name)
		if !ok {
			t.Errorf("%s has no field %s", f.t, f.name)
			continue
		}
		if _, ok := fieldKey(sf); !ok {
			t.Errorf("%s.%s has no toml key", f.t, f.name)
		}
	}
}

// TestAutoFieldsExist keeps autoFields honest: each names a duration
// field with a toml key, whose automatic value its settings type accepts.
func TestAutoFieldsExist(t *testing.T) {
	for _, f := range autoFields() {
		sf, ok := f.t.FieldByName(f.name)
		if !ok {
			t.Errorf("%s has no field %s", f.t, f.name)
			continue
		}
		if _, ok := fieldKey(sf); !ok || sf.Type != reflect.TypeFor[time.Duration]() {
			t.Errorf("%s.%s is not a duration with a toml key", f.t, f.name)
		}
	}
	s := transport.DefaultSettings()
	s.HedgeAfter = transport.HedgeAuto
	if err := s.Validate(); err != nil {
		t.Errorf("transport.HedgeAuto is refused: %v", err)
	}
}

// TestMaxDurationIsEverySettingsBound: the duration parser's bound is the
// bound of every duration the settings types validate, so that the
// parser's "must be at most 1h" is never looser or stricter than theirs:
// each settings type's Validate (and methods' Declare) takes maxDuration
// in each of its durations and refuses one nanosecond more, naming the
// field. The bounds are unexported: their behaviour at the bound is what
// is held.
func TestMaxDurationIsEverySettingsBound(t *testing.T) {
	spec := func(l endpoint.Limits) error {
		return endpoint.Validate([]endpoint.Spec{{Name: "a", URL: endpoint.NewSecret("https://a.example"),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l}}})
	}
	retry := func(f func(*retrypolicy.Settings, time.Duration)) func(time.Duration) error {
		return func(d time.Duration) error {
			s := retrypolicy.DefaultSettings()
			s.MaxBackoff = maxDuration // initial_backoff may not exceed it
			f(&s, d)
			return s.Validate()
		}
	}
	tr := func(f func(*transport.Settings, time.Duration)) func(time.Duration) error {
		return func(d time.Duration) error { s := transport.DefaultSettings(); f(&s, d); return s.Validate() }
	}
	pl := func(f func(*pool.Settings, time.Duration)) func(time.Duration) error {
		return func(d time.Duration) error { s := pool.DefaultSettings(); f(&s, d); return s.Validate() }
	}
	for _, tt := range []struct {
		path     string
		validate func(time.Duration) error
	}{
		{"initial_backoff", retry(func(s *retrypolicy.Settings, d time.Duration) { s.InitialBackoff = d })},
		{"max_backoff", retry(func(s *retrypolicy.Settings, d time.Duration) { s.MaxBackoff = d })},
		{"max_provider_delay", retry(func(s *retrypolicy.Settings, d time.Duration) { s.MaxProviderDelay = d })},
		{"attempt_timeout", tr(func(s *transport.Settings, d time.Duration) { s.AttemptTimeout = d })},
		{"hedge_after", tr(func(s *transport.Settings, d time.Duration) { s.HedgeAfter = d })},
		{"slot_probe_interval", tr(func(s *transport.Settings, d time.Duration) { s.SlotProbeInterval = d })},
		{"doubt_window", pl(func(s *pool.Settings, d time.Duration) { s.DoubtWindow = d })},
		{"doubt_patience", pl(func(s *pool.Settings, d time.Duration) { s.DoubtPatience = d })},
		{"history_avoid", pl(func(s *pool.Settings, d time.Duration) { s.HistoryAvoid = d })},
		{"ejection.base_time", pl(func(s *pool.Settings, d time.Duration) { s.Ejection.Base = d })},
		{"ejection.max_time", pl(func(s *pool.Settings, d time.Duration) { s.Ejection.Max = d })},
		{"endpoints[0].roles.read.request_timeout", func(d time.Duration) error { return spec(endpoint.Limits{RequestTimeout: d}) }},
		{"endpoints[0].roles.read.pause_after_rate_limit", func(d time.Duration) error { return spec(endpoint.Limits{PauseAfterRateLimit: d}) }},
		{"methods.timeout", func(d time.Duration) error {
			_, err := methods.Default().Declare(methods.Method{Name: "getAsset", Role: endpoint.RoleRead, Class: retrypolicy.Idempotent, Timeout: d})
			return err
		}},
	} {
		if err := tt.validate(maxDuration); err != nil {
			t.Errorf("%s = maxDuration: %v", tt.path, err)
		}
		err := tt.validate(maxDuration + 1)
		var p *endpoint.Problem
		switch {
		case err == nil:
			t.Errorf("%s = maxDuration + 1ns is accepted", tt.path)
		case tt.path == "methods.timeout":
			// A declaration's problem is a *methods.DeclareError.
		case !errors.As(err, &p) || p.Path != tt.path && p.Path != "retry."+tt.path:
			t.Errorf("%s = maxDuration + 1ns: %v, want a problem at %s", tt.path, err, tt.path)
		}
	}
}

// TestPathOf: the tables the checks name are found in the layout.
func TestPathOf(t *testing.T) {
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[string]():               "cluster",
		reflect.TypeFor[retrypolicy.Settings](): "retry",
		reflect.TypeFor[transport.Settings]():   "transport",
		reflect.TypeFor[pool.Settings]():        "pool",
		reflect.TypeFor[endpoint.Ejection]():    "pool.ejection",
		reflect.TypeFor[[]endpoint.Spec]():      "endpoints",
		reflect.TypeFor[Limits]():               "limits",
		reflect.TypeFor[map[string]struct{}]():  "",
		reflect.TypeFor[engine.Options]():       "",
	} {
		if got := pathOf(typ); got != want {
			t.Errorf("pathOf(%s) = %q, want %q", typ, got, want)
		}
	}
}
