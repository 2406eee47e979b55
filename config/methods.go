package config

import (
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/registry"
	"github.com/solroute/solroute/retrypolicy"
)

// Declared methods: the [methods.NAME] tables. Each names a JSON-RPC
// method with the role an endpoint must serve to answer it and how a call
// may be retried (retrypolicy.Class), so that a provider's own reads
// (getAsset and the other DAS methods) are retried and hedged like any
// read, and its own sends (sendBundle) are never resent after they may
// have been dispatched. A declared method replaces an entry of the same
// name in the base registry, with one exception: a method the base holds
// as NeverAfterDispatch (sendTransaction and requestAirdrop in
// registry.Default) cannot be declared as anything else, so that no
// document can make a send retryable by mistake.

// MethodRegistry returns the registry a client built from c routes by:
// base, or registry.Default() when base is nil, plus every method of
// c.Methods, each replacing the base's entry of the same name. base itself
// is not changed. A method name must be non-empty, without spaces or
// control characters; its role read or send; its class one of
// retrypolicy.Classes; and a method base holds as NeverAfterDispatch
// cannot be declared with another role or class. The error, when not nil,
// is a *ValidationError whose problems name each method as
// "methods.NAME" (Line 0).
func (c *Config) MethodRegistry(base *registry.Registry) (*registry.Registry, error) {
	if base == nil {
		base = registry.Default()
	}
	var ps problems
	out := base
	for _, name := range slices.Sorted(maps.Keys(c.Methods)) {
		e := c.Methods[name]
		path := join("methods", name)
		n := len(ps.list)
		if !validMethodName(name) {
			ps.add(path, methodNameRule)
		}
		if e.Role != endpoint.RoleRead && e.Role != endpoint.RoleSend {
			ps.add(join(path, "role"), methodRoleRule)
		}
		if !validClass(e.Class) {
			ps.add(join(path, "class"), methodClassRule())
		}
		if len(ps.list) == n {
			if msg, weakens := weakensSend(base, name, e); weakens {
				ps.add(path, msg)
			}
		}
		if len(ps.list) == n {
			out = out.With(name, e)
		}
	}
	if len(ps.list) > 0 {
		return nil, &ValidationError{Problems: ps.list}
	}
	return out, nil
}

// methodNameRule says what a method name must be.
const methodNameRule = "is not a method name: want a non-empty name without spaces or control characters, such as getAsset"

// methodRoleRule says what a method's role must be.
const methodRoleRule = `must be "read" or "send"`

// methodClassRule says what a method's class must be, naming every
// retrypolicy.Class.
func methodClassRule() string {
	classes := []retrypolicy.Class{retrypolicy.Idempotent, retrypolicy.NeverAfterDispatch, retrypolicy.NotApplicable}
	names := make([]string, 0, len(classes))
	for _, c := range classes {
		names = append(names, `"`+c.String()+`"`)
	}
	return "must be " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// validMethodName reports whether name is non-empty and every character of
// it printable and not a space (Unicode letters, marks, numbers,
// punctuation and symbols).
func validMethodName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r == ' ' || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// validClass reports whether c is one of retrypolicy.Classes (not the zero
// "unknown").
func validClass(c retrypolicy.Class) bool {
	return c == retrypolicy.Idempotent || c == retrypolicy.NeverAfterDispatch || c == retrypolicy.NotApplicable
}

// parseClass reads a class name as retrypolicy.Class.UnmarshalText does,
// refusing "unknown".
func parseClass(s string) (retrypolicy.Class, bool) {
	var c retrypolicy.Class
	if err := c.UnmarshalText([]byte(s)); err != nil || !validClass(c) {
		return 0, false
	}
	return c, true
}

// weakensSend reports whether declaring name as e would change a method
// base holds as NeverAfterDispatch, and the message saying so.
func weakensSend(base *registry.Registry, name string, e registry.Entry) (string, bool) {
	b, ok := base.Lookup(name)
	if !ok || b.Class != retrypolicy.NeverAfterDispatch || e == b {
		return "", false
	}
	return "is built in as a " + b.Role.String() + " method that is never resent once it may have been dispatched" +
		" (never-after-dispatch): it cannot be declared otherwise; leave this table out", true
}

// methods checks the [methods] tables against registry.Default(), the
// base a client uses unless its ClientOptions give another (then
// NewClient checks again).
func (c *checker) methods(docs map[string]*methodDoc) map[string]registry.Entry {
	var out map[string]registry.Entry
	base := registry.Default()
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		path := join("methods", name)
		d := docs[name]
		if d == nil {
			d = &methodDoc{}
		}
		ok := true
		if !validMethodName(name) {
			c.add(path, methodNameRule)
			ok = false
		}
		var e registry.Entry
		switch s, isStr := c.str(join(path, "role"), d.Role); {
		case d.Role == nil:
			c.add(join(path, "role"), "is required: "+methodRoleRule)
			ok = false
		case !isStr:
			ok = false
		default:
			r, err := endpoint.ParseRole(s)
			if err != nil {
				c.add(join(path, "role"), methodRoleRule)
				ok = false
			}
			e.Role = r
		}
		switch s, isStr := c.str(join(path, "class"), d.Class); {
		case d.Class == nil:
			c.add(join(path, "class"), "is required: "+methodClassRule())
			ok = false
		case !isStr:
			ok = false
		default:
			cl, valid := parseClass(s)
			if !valid {
				c.add(join(path, "class"), methodClassRule())
				ok = false
			}
			e.Class = cl
		}
		if !ok {
			continue
		}
		if msg, weakens := weakensSend(base, name, e); weakens {
			c.add(path, msg)
			continue
		}
		if out == nil {
			out = map[string]registry.Entry{}
		}
		out[name] = e
	}
	return out
}
