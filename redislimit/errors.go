package redislimit

import (
	"context"
	"errors"
	"net"

	"github.com/redis/go-redis/v9"
)

// Kind says why a request to Redis failed, without the error's text
// (go-redis's errors may name the server's address; the URL holds a
// password). It is what logs and errors show.
type Kind uint8

const (
	// kindTimeout: no answer in time (Options.OpTimeout, or a socket
	// timeout).
	kindTimeout Kind = iota + 1
	// kindUnreachable: no connection (refused, reset, DNS, TLS).
	kindUnreachable
	// KindAuth: the server refused the user or password (WRONGPASS,
	// NOAUTH).
	KindAuth
	// KindPermission: the user may not run the lease script or touch its
	// keys (NOPERM).
	KindPermission
	// KindDatabase: the server has no database of the URL's number.
	KindDatabase
	// kindServer: any other error answer (the server is loading, is a
	// read-only replica, is out of memory, the reply was not understood).
	kindServer
	// kindClosed: the Limiter was closed.
	kindClosed
)

// kindNames are the kinds' spellings in logs.
var kindNames = [...]string{
	kindTimeout:     "timeout",
	kindUnreachable: "unreachable",
	KindAuth:        "auth",
	KindPermission:  "permission",
	KindDatabase:    "database",
	kindServer:      "server error",
	kindClosed:      "closed",
}

// String names the kind in one or two words.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// isSetup reports whether waiting cannot fix it: the configuration must
// change.
func (k Kind) isSetup() bool { return k == KindAuth || k == KindPermission || k == KindDatabase }

// classify reduces an error of go-redis (or of the limiter) to a Kind.
func classify(err error) Kind {
	var ne net.Error
	switch {
	case errors.Is(err, errClosed), errors.Is(err, redis.ErrClosed), errors.Is(err, context.Canceled):
		return kindClosed
	case errors.Is(err, errAbandoned), errors.Is(err, context.DeadlineExceeded), errors.Is(err, redis.ErrPoolTimeout):
		return kindTimeout
	case redis.HasErrorPrefix(err, "WRONGPASS"), redis.HasErrorPrefix(err, "NOAUTH"),
		redis.HasErrorPrefix(err, "invalid password"), redis.HasErrorPrefix(err, "AUTH"):
		return KindAuth
	case redis.HasErrorPrefix(err, "NOPERM"):
		return KindPermission
	case redis.HasErrorPrefix(err, "DB index is out of range"), redis.HasErrorPrefix(err, "invalid DB index"):
		return KindDatabase
	case isRedisError(err), errors.Is(err, errReply):
		return kindServer
	case errors.As(err, &ne) && ne.Timeout():
		return kindTimeout
	}
	return kindUnreachable
}

// isRedisError reports whether err is an error answer of the server.
func isRedisError(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// errAbandoned marks a lease request the limiter stopped waiting for
// (Options.OpTimeout on its clock).
var errAbandoned = errors.New("redislimit: no answer in time")

// errClosed is what a request made after Close fails with.
var errClosed = errors.New("redislimit: closed")

// SetupError is returned by New when the Redis server refuses the
// connection's setup for a reason waiting will not fix: the user or
// password (KindAuth), a database number it does not have (KindDatabase),
// a command the user may not run (KindPermission). It never quotes the
// URL or the server's message.
type SetupError struct {
	// Kind is KindAuth, KindPermission or KindDatabase.
	Kind Kind
}

// Error says what to check in the URL.
func (e *SetupError) Error() string {
	switch e.Kind {
	case KindAuth:
		return "redislimit: url: the Redis server refused the user or password in the URL"
	case KindPermission:
		return "redislimit: url: the Redis user may not run scripts (EVAL, EVALSHA) or write the limiter's keys"
	case KindDatabase:
		return "redislimit: url: the Redis server has no database of the number in the URL"
	}
	return "redislimit: url: the Redis server refused the connection (" + e.Kind.String() + ")"
}

// dialError is a failed dial, with a message that names no address
// (go-redis logs dial errors to the standard logger, and net's errors name
// the address dialed).
type dialError struct{ err error }

// Error says the dial failed and why, in a word.
func (e *dialError) Error() string {
	var ne net.Error
	if errors.As(e.err, &ne) && ne.Timeout() {
		return "redislimit: cannot connect to redis: timeout"
	}
	return "redislimit: cannot connect to redis"
}

// Unwrap returns the dialer's error, for errors.Is and errors.As; its
// text is never shown.
func (e *dialError) Unwrap() error { return e.err }
