package methods

import (
	"maps"
	"slices"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// Method is a JSON-RPC method's declaration: what the registry knows of
// it, and what Options.Methods (or a configuration document's
// [methods.NAME] table, whose key is the Name) declares. The toml tags
// name each field in that table.
type Method struct {
	// Name is the method's name on the wire ("getAsset"); case-sensitive.
	Name string `toml:"-"`
	// Role is the role an endpoint must serve to answer the method.
	Role endpoint.Role `toml:"role"`
	// Class is how a call of the method may be retried.
	Class retrypolicy.Class `toml:"class"`
	// Timeout, when positive, is one call's budget instead of the
	// endpoints' request_timeout: Default gives the heavy methods
	// (getProgramAccounts, getBlock, ...) two minutes. 0: the endpoints' request_timeout.
	Timeout time.Duration `toml:"timeout"`
	// History marks a read of the ledger's history (getTransaction,
	// getBlock, ...; see ReadsHistory): it tries the endpoints that
	// declare history first, and avoids for a while an endpoint that
	// answered it lacks the history asked for. Reads only.
	History bool `toml:"history"`
}

// unknownMethod is the entry reported for a method the registry does not
// hold: read role (every endpoint can try it) and class
// NeverAfterDispatch. Nothing is known of its effects, so it is treated as
// a send: retried only when an attempt proves no server acted on it, and
// reported ambiguous otherwise. Declare it (With, or a config document's
// [methods] table) to have it retried and hedged like a read.
func unknownMethod(name string) Method {
	return Method{Name: name, Role: endpoint.RoleRead, Class: retrypolicy.NeverAfterDispatch}
}

// Registry is an immutable method table; safe for concurrent use. The zero
// value and a nil *Registry are empty: every lookup reports an unknown
// method.
type Registry struct{ m map[string]Method }

// Default returns a registry of every Solana HTTP RPC method (see
// [Registry.Names]). Each call builds a fresh table.
func Default() *Registry {
	reads, sends := slices.Concat(readMethods(), deprecatedReads(), providerReadMethods()), sendMethods()
	m := make(map[string]Method, len(reads)+len(sends))
	for _, name := range reads {
		m[name] = Method{Name: name, Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}
	}
	for _, name := range sends {
		m[name] = Method{Name: name, Role: endpoint.RoleSend, Class: retrypolicy.NeverAfterDispatch}
	}
	for _, name := range sendSideReads() {
		m[name] = Method{Name: name, Role: endpoint.RoleSend, Class: retrypolicy.Idempotent}
	}
	return &Registry{m: withHistory(withHeavyTimeouts(m))}
}

// Lookup returns the declaration of method. An unknown method reports
// false and Method{Name: method, Role: endpoint.RoleRead, Class:
// retrypolicy.NeverAfterDispatch}.
// Method names are case-sensitive, as on the wire.
func (r *Registry) Lookup(method string) (Method, bool) {
	if r == nil {
		return unknownMethod(method), false
	}
	e, ok := r.m[method]
	if !ok {
		return unknownMethod(method), false
	}
	return e, true
}

// with returns a copy of r that also holds m, replacing any method of the
// same name. r itself is unchanged. (Declare is the checked door.)
func (r *Registry) with(m Method) *Registry {
	var t map[string]Method
	if r == nil || r.m == nil {
		t = make(map[string]Method, 1)
	} else {
		t = maps.Clone(r.m)
	}
	t[m.Name] = m
	return &Registry{m: t}
}

// Names returns the name of every method r holds, sorted.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(r.m))
}
