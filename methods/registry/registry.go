// Package registry maps every Solana HTTP JSON-RPC method name to the role
// that serves it and the retry class that governs it. It is a leaf package
// so that transport/ can read it without an import cycle.
package registry

// CONTRACT FILE written by the lead (see transport/api.go): implement.

import (
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// Entry is what the registry knows of one method.
type Entry struct {
	Role  endpoint.Role
	Class retrypolicy.Class
}

// Registry is an immutable method table; safe for concurrent use.
type Registry struct{ m map[string]Entry }

// Default returns a registry of every Solana HTTP RPC method.
func Default() *Registry { panic("TODO") }

// Lookup returns the method's entry. An unknown method reports false and
// Entry{Role: endpoint.RoleRead, Class: retrypolicy.NotApplicable}.
func (r *Registry) Lookup(method string) (Entry, bool) { panic("TODO") }

// With returns a copy of r that also maps method to e.
func (r *Registry) With(method string, e Entry) *Registry { panic("TODO") }
