// Package redact owns what forms of an endpoint's secrets must never be
// printed: Secrets builds the set of one endpoint's URL and header
// values, in every form a server or the runtime can echo them, and a
// Set removes them from a text (Redact) or an error chain (NetError).
// The HTTP transport (internal/engine) and the PubSub engine
// (internal/pubsub) build their endpoints' sets here, so that both hide
// the same forms.
package redact

import (
	"cmp"
	"net"
	"slices"
	"strings"
)

// minSecretLen is the shortest secret redacted: shorter values (a "/"
// path, a "1" header) would shred messages and protect nothing. It applies
// to each value before it is encoded.
const minSecretLen = 3

// minBase64Core is the shortest run of base64 characters redacted for a
// secret met inside a longer base64 text at an offset that is not a
// multiple of 3 (see base64Forms): shorter runs match too much.
const minBase64Core = 8

// Placeholder replaces a secret in a text.
const Placeholder = "[redacted]"

// Set is the substrings of one endpoint that must never appear in an
// error text or a log.
type Set struct {
	// all holds them longest first, so that a longer secret is replaced
	// before a part of it.
	all []string
	// probes are those that contain no other: a text holds a secret only
	// if it holds a probe, so a text without one is returned after
	// len(probes) scans instead of len(all).
	probes []string
}

// newSet sorts and deduplicates secrets and finds the probes.
func newSet(secrets []string) *Set {
	slices.SortFunc(secrets, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	all := slices.Compact(secrets)
	var probes []string
	for i, s := range all {
		if !slices.ContainsFunc(all[i+1:], func(o string) bool { return len(o) < len(s) && strings.Contains(s, o) }) {
			probes = append(probes, s)
		}
	}
	return &Set{all: all, probes: probes}
}

// With returns a set that also hides values, each of minSecretLen bytes
// or more in every encoding (encodings): for a caller that hides more of
// an endpoint than Secrets does.
func (ss *Set) With(values ...string) *Set {
	out := slices.Clone(ss.all)
	for _, v := range values {
		if len(v) >= minSecretLen {
			out = append(out, encodings(v)...)
		}
	}
	return newSet(out)
}

// Join returns a set that hides what ss and o hide: an endpoint's
// secrets under two URLs (its HTTP one and its own WebSocket one).
func (ss *Set) Join(o *Set) *Set {
	return newSet(append(slices.Clone(ss.all), o.all...))
}

// Redact replaces every secret in msg with Placeholder.
func (ss *Set) Redact(msg string) string {
	if !slices.ContainsFunc(ss.probes, func(p string) bool { return strings.Contains(msg, p) }) {
		return msg
	}
	for _, s := range ss.all {
		if strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, Placeholder)
		}
	}
	return msg
}

// NetError returns a copy of a *net.OpError or *net.DNSError chain with
// secrets redacted from its text fields, so that errors.As still reaches
// them (a *net.DNSError whose IsNotFound tells a missing host name). ok
// is false for any other error in the chain whose text holds a secret.
func (ss *Set) NetError(err error) (_ error, ok bool) {
	switch e := err.(type) {
	case *net.DNSError:
		c := *e
		c.Err, c.Name, c.Server = ss.Redact(e.Err), ss.Redact(e.Name), ss.Redact(e.Server)
		if e.UnwrapErr != nil {
			if c.UnwrapErr, ok = ss.NetError(e.UnwrapErr); !ok {
				return nil, false
			}
		}
		return &c, true
	case *net.OpError:
		c := *e
		if c.Err, ok = ss.NetError(e.Err); !ok {
			return nil, false
		}
		return &c, ss.Redact(c.Error()) == c.Error()
	}
	// Errors that name nothing of the endpoint (a context error, a
	// syscall.Errno) are kept as they are.
	return err, ss.Redact(err.Error()) == err.Error()
}
