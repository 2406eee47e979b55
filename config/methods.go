package config

import (
	"maps"
	"reflect"
	"slices"
	"unicode"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/retrypolicy"
)

// Declared methods: the [methods.NAME] tables. Each names a JSON-RPC
// method with the role an endpoint must serve to answer it and how a call
// may be retried (retrypolicy.Class), so that a provider's own reads
// (getAsset and the other DAS methods) are retried and hedged like any
// read, and its own sends (sendBundle) are never resent after they may
// have been dispatched; and, optionally, its own budget (timeout) instead
// of the endpoints' request_timeout. A declared method replaces an entry
// of the same name in the base registry, with two exceptions: a method
// the base holds as NeverAfterDispatch (sendTransaction and
// requestAirdrop in methods.Default) cannot be declared with another
// role or class, so that no document can make a send retryable by
// mistake; and a timeout left out (or 0s) keeps the base's
// (two minutes for the heavy methods of methods.Default). history = true
// marks a read of the ledger's history (methods.Method.History), reads
// only; a built-in history read stays one.

// Registry returns the registry a client built from d routes by: base, or
// methods.Default() when base is nil, plus every method of d.Methods,
// each replacing the base's entry of the same name. base itself is not
// changed. A method name must be non-empty, without spaces or control
// characters; its role read or send; its class idempotent,
// never-after-dispatch or not-applicable; its timeout between 0s and 1h (0
// keeps base's); and a method base holds as never-after-dispatch cannot be
// declared with another role or class. The error, when not nil, is a
// *ValidationError whose problems name each method as "methods.NAME"
// (Line 0).
func (d *Document) Registry(base *methods.Registry) (*methods.Registry, error) {
	if base == nil {
		base = methods.Default()
	}
	table := pathOf(reflect.TypeFor[map[string]methods.Method]())
	var ps problems
	out := base
	for _, name := range slices.Sorted(maps.Keys(d.Methods)) {
		e := d.Methods[name]
		path := join(table, name)
		n := len(ps.list)
		if !validMethodName(name) {
			ps.add(path, methodNameRule)
		}
		if e.Role != endpoint.RoleRead && e.Role != endpoint.RoleSend {
			ps.add(join(path, fieldKeyOf[methods.Method]("Role")), methodRoleRule())
		}
		if !validClass(e.Class) {
			ps.add(join(path, fieldKeyOf[methods.Method]("Class")), methodClassRule())
		}
		if e.Timeout < 0 || e.Timeout > maxDuration {
			ps.add(join(path, fieldKeyOf[methods.Method]("Timeout")), "must be between 0s and 1h (0s: the built-in default)")
		}
		if e.Timeout == 0 {
			held, _ := base.Lookup(name)
			e.Timeout = held.Timeout
		}
		if len(ps.list) == n {
			if msg, weakens := weakensSend(base, name, e); weakens {
				ps.add(path, msg)
			}
		}
		if e.History && e.Role == endpoint.RoleSend {
			ps.add(join(path, fieldKeyOf[methods.Method]("History")), historyRule)
		}
		if len(ps.list) == n {
			e.Name = name
			next, err := out.Declare(e)
			if err != nil { // checked above: cannot happen
				ps.add(path, err.Error())
				continue
			}
			out = next
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
func methodRoleRule() string {
	return "must be " + oneOf(textChoices(reflect.TypeFor[endpoint.Role]()))
}

// methodClassRule says what a method's class must be.
func methodClassRule() string {
	return "must be " + oneOf(textChoices(reflect.TypeFor[retrypolicy.Class]()))
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

// validClasses lists the classes a method may be declared with: every
// retrypolicy.Class but the zero "unknown".
func validClasses() []retrypolicy.Class {
	return []retrypolicy.Class{retrypolicy.Idempotent, retrypolicy.NeverAfterDispatch, retrypolicy.NotApplicable}
}

// validClass reports whether c is one of validClasses.
func validClass(c retrypolicy.Class) bool { return slices.Contains(validClasses(), c) }

// weakensSend reports whether declaring name as e would change a method
// base holds as NeverAfterDispatch, and the message saying so.
func weakensSend(base *methods.Registry, name string, e methods.Method) (string, bool) {
	b, ok := base.Lookup(name)
	if !ok || b.Class != retrypolicy.NeverAfterDispatch || e.Role == b.Role && e.Class == b.Class {
		return "", false
	}
	return "is built in as a " + b.Role.String() + " method that is never resent once it may have been dispatched" +
		" (never-after-dispatch): it cannot be declared otherwise; leave this table out", true
}

// checkMethods checks the [methods] tables against methods.Default(),
// the base a client uses unless it is given another (then Registry checks
// again): a method name, a role and a class (both required; "unknown" is
// no class), and no built-in send declared otherwise.
func (p *parser) checkMethods(d *Document) {
	table := pathOf(reflect.TypeFor[map[string]methods.Method]())
	roleKey, classKey := fieldKeyOf[methods.Method]("Role"), fieldKeyOf[methods.Method]("Class")
	base := methods.Default()
	for _, name := range slices.Sorted(maps.Keys(d.Methods)) {
		path := join(table, name)
		e := d.Methods[name]
		if p.hasAt(path) {
			continue // not a table
		}
		if !validMethodName(name) {
			p.add(path, methodNameRule)
		}
		if rp := join(path, roleKey); !p.present[rp] {
			p.add(rp, "is required: "+methodRoleRule())
		}
		switch cp := join(path, classKey); {
		case !p.present[cp]:
			p.add(cp, "is required: "+methodClassRule())
		case !p.hasAtOrBelow(cp) && !validClass(e.Class):
			p.add(cp, methodClassRule())
		}
		if p.hasAtOrBelow(path) {
			continue
		}
		if msg, weakens := weakensSend(base, name, e); weakens {
			p.add(path, msg)
		}
		if e.History && e.Role == endpoint.RoleSend {
			p.add(join(path, fieldKeyOf[methods.Method]("History")), historyRule)
		}
	}
}

// historyRule says where history = true applies.
const historyRule = "applies to reads only: a send reads no history"
