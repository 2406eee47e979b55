package registry

import (
	"maps"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// Entry is what the registry knows of one method. The toml tags name each
// field in a configuration document's [methods.NAME] table.
type Entry struct {
	// Role is the role an endpoint must serve to answer the method.
	Role endpoint.Role `toml:"role"`
	// Class is how a call of the method may be retried.
	Class retrypolicy.Class `toml:"class"`
	// Timeout, when positive, is one call's budget instead of the
	// endpoints' request_timeout: Default gives [HeavyMethods]
	// [DefaultHeavyTimeout]. 0: the endpoints' request_timeout.
	Timeout time.Duration `toml:"timeout"`
}

// unknownEntry is the entry reported for a method the registry does not
// hold: read role (every endpoint can try it) and class
// NeverAfterDispatch. Nothing is known of its effects, so it is treated as
// a send: retried only when an attempt proves no server acted on it, and
// reported ambiguous otherwise. Declare it (With, or a config document's
// [methods] table) to have it retried and hedged like a read.
func unknownEntry() Entry {
	return Entry{Role: endpoint.RoleRead, Class: retrypolicy.NeverAfterDispatch}
}

// Registry is an immutable method table; safe for concurrent use. The zero
// value and a nil *Registry are empty: every lookup reports an unknown
// method.
type Registry struct{ m map[string]Entry }

// Default returns a registry of every Solana HTTP RPC method (see
// [Methods]). Each call builds a fresh table.
func Default() *Registry {
	reads, sends := append(readMethods(), providerReadMethods()...), sendMethods()
	m := make(map[string]Entry, len(reads)+len(sends))
	for _, name := range reads {
		m[name] = Entry{Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}
	}
	for _, name := range sends {
		m[name] = Entry{Role: endpoint.RoleSend, Class: retrypolicy.NeverAfterDispatch}
	}
	return &Registry{m: withHeavyTimeouts(m)}
}

// Lookup returns the method's entry. An unknown method reports false and
// Entry{Role: endpoint.RoleRead, Class: retrypolicy.NeverAfterDispatch}.
// Method names are case-sensitive, as on the wire.
func (r *Registry) Lookup(method string) (Entry, bool) {
	if r == nil {
		return unknownEntry(), false
	}
	e, ok := r.m[method]
	if !ok {
		return unknownEntry(), false
	}
	return e, true
}

// With returns a copy of r that also maps method to e, replacing any entry
// of the same name. r itself is unchanged.
func (r *Registry) With(method string, e Entry) *Registry {
	var m map[string]Entry
	if r == nil || r.m == nil {
		m = make(map[string]Entry, 1)
	} else {
		m = maps.Clone(r.m)
	}
	m[method] = e
	return &Registry{m: m}
}

// Len returns the number of methods in r.
func (r *Registry) Len() int {
	if r == nil {
		return 0
	}
	return len(r.m)
}
