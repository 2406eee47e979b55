package methods

import (
	"fmt"
	"time"
	"unicode"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/retrypolicy"
)

// DeclareError is a method declaration Declare refuses. It quotes the
// method's name, which is not a secret.
type DeclareError struct {
	// Method is the declared name.
	Method string
	// Message says what is wrong.
	Message string
}

// Error returns "methods: method NAME: MESSAGE".
func (e *DeclareError) Error() string {
	return fmt.Sprintf("methods: method %q: %s", e.Method, e.Message)
}

// maxTimeout bounds a declared Timeout: the longest request_timeout an
// endpoint takes.
const maxTimeout = time.Hour

// Declare returns a copy of r that also holds m (replacing a method of
// the same name), after checking the declaration: a non-empty name without spaces or
// non-printable characters, a known role, a class other than the zero
// "unknown", a Timeout between 0 and 1h (an endpoint's longest
// request_timeout), and
// never a change to a method r holds as NeverAfterDispatch
// (sendTransaction, requestAirdrop, sendBundle in Default): no declaration
// can make a send retryable by mistake. Declaring such a method with the
// role and class it is held with is allowed (its Timeout may differ). A
// Timeout of 0 keeps the one r holds for the method (two minutes for a
// heavy method of Default). History is for reads only; a read r holds
// as a history read stays one. r itself is unchanged.
func (r *Registry) Declare(m Method) (*Registry, error) {
	method, e := m.Name, m
	bad := func(msg string) (*Registry, error) { return nil, &DeclareError{Method: method, Message: msg} }
	if !validName(method) {
		return bad("is not a method name: want a non-empty name without spaces or control characters")
	}
	if e.Role != endpoint.RoleRead && e.Role != endpoint.RoleSend {
		return bad("role must be read or send")
	}
	if e.Class != retrypolicy.Idempotent && e.Class != retrypolicy.NeverAfterDispatch && e.Class != retrypolicy.NotApplicable {
		return bad("class must be idempotent, never-after-dispatch or not-applicable")
	}
	if e.Timeout < 0 || e.Timeout > maxTimeout {
		return bad("timeout must be between 0s and 1h")
	}
	if e.History && e.Role != endpoint.RoleRead {
		return bad("history applies to reads only")
	}
	if held, ok := r.Lookup(method); ok && held.Class == retrypolicy.NeverAfterDispatch && (e.Role != held.Role || e.Class != held.Class) {
		return bad("is built in as a send that is never resent once it may have been dispatched; it cannot be declared otherwise")
	}
	if held, ok := r.Lookup(method); ok && e.Timeout == 0 {
		e.Timeout = held.Timeout // 0 keeps the budget the method has
	}
	if held, ok := r.Lookup(method); ok && e.Role == endpoint.RoleRead {
		e.History = e.History || held.History // a history read stays one
	}
	return r.with(e), nil
}

// validName reports whether name can be a declared method's name:
// non-empty, every character printable and not a space.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if c == ' ' || !unicode.IsPrint(c) {
			return false
		}
	}
	return true
}
