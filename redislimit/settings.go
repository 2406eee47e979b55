package redislimit

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/solroute/solroute/endpoint"
)

// Backend names where the token buckets of a client live.
type Backend uint8

const (
	// BackendLocal keeps every bucket in the process (the pool's default):
	// each replica enforces the whole quota on its own.
	BackendLocal Backend = iota
	// BackendRedis shares each (endpoint, role) bucket between every
	// process that names the same Redis and key prefix.
	BackendRedis
)

// backendNames are the document's spellings, by Backend.
var backendNames = [...]string{BackendLocal: "local", BackendRedis: "redis"}

// AllBackends lists the backends in order, for messages and docs.
func AllBackends() []Backend { return []Backend{BackendLocal, BackendRedis} }

// String returns "local" or "redis".
func (b Backend) String() string {
	if int(b) < len(backendNames) {
		return backendNames[b]
	}
	return "backend(" + strconv.Itoa(int(b)) + ")"
}

// MarshalText returns the document's spelling.
func (b Backend) MarshalText() ([]byte, error) {
	if int(b) >= len(backendNames) {
		return nil, fmt.Errorf("redislimit: unknown backend %d", int(b))
	}
	return []byte(b.String()), nil
}

// UnmarshalText reads "local" or "redis" (exactly so). Its error does not
// quote the text.
func (b *Backend) UnmarshalText(text []byte) error {
	for i, n := range backendNames {
		if string(text) == n {
			*b = Backend(i)
			return nil
		}
	}
	return errors.New(`redislimit: unknown backend: want "local" or "redis"`)
}

// Settings are the [limits] table of a configuration document: where the
// rate limits of every (endpoint, role) are kept. Values are taken as
// written; DefaultSettings returns the defaults (local buckets). Printing
// Settings never shows the URL: it is an endpoint.Secret.
type Settings struct {
	// Backend is BackendLocal (each process its own buckets) or
	// BackendRedis (buckets shared through the Redis at URL).
	Backend Backend `toml:"backend"`
	// URL names the Redis server, go-redis style:
	// redis://[user:password@]host[:port][/db], rediss:// for TLS, or
	// unix://[user:password@]/path/to.sock. It may carry a password, so it
	// is a secret, never printed. Required with BackendRedis, refused
	// without it.
	URL endpoint.Secret `toml:"url"`
	// KeyPrefix starts every key the limiter writes; the rest is the
	// endpoint's name and the role ("solroute:primary-a:read"). Processes
	// share a bucket when they use the same Redis, prefix, endpoint name
	// and role. "" means no prefix.
	KeyPrefix string `toml:"key_prefix"`
	// Replicas is how many processes share the quota: while Redis cannot
	// be reached each process falls back to a local bucket of rate and
	// burst divided by Replicas, and a lease (the tokens one request to
	// Redis takes at most) is at most burst / Replicas. Count every process
	// that may run at once, or more: fewer lets the fallback exceed the
	// quota. 0 means 1.
	Replicas int `toml:"replicas"`
	// FailClosed, when true, refuses admissions from the fallback: while
	// Redis cannot be reached, calls wait for it until their deadline
	// instead of running at the fallback share.
	FailClosed bool `toml:"fail_closed"`
}

// DefaultSettings returns the defaults: local buckets, the key prefix
// "solroute:", one replica, fail open.
func DefaultSettings() Settings {
	return Settings{Backend: BackendLocal, KeyPrefix: "solroute:", Replicas: 1}
}

// MaxReplicas bounds Settings.Replicas.
const MaxReplicas = 10_000

// MaxKeyPrefix bounds the length of Settings.KeyPrefix, in bytes.
const MaxKeyPrefix = 256

// Validate reports every field out of range, joined, each an
// *endpoint.Problem whose Path is the field's TOML key. No message quotes
// a value: the URL may hold a password.
func (s Settings) Validate() error {
	var errs []error
	problem := func(key, msg string) { errs = append(errs, &endpoint.Problem{Path: key, Message: msg}) }
	switch {
	case int(s.Backend) >= len(backendNames):
		problem("backend", `must be "local" or "redis"`)
	case s.Backend == BackendRedis && s.URL.IsZero():
		problem("url", `is required with backend = "redis"`)
	case s.Backend == BackendRedis:
		if msg := checkURL(s.URL.Reveal()); msg != "" {
			problem("url", msg)
		}
	case !s.URL.IsZero():
		problem("url", `is used only with backend = "redis"`)
	}
	if len(s.KeyPrefix) > MaxKeyPrefix {
		problem("key_prefix", "must be at most "+strconv.Itoa(MaxKeyPrefix)+" bytes")
	} else if strings.ContainsFunc(s.KeyPrefix, isControl) {
		problem("key_prefix", "must not contain control characters")
	}
	if s.Replicas < 0 || s.Replicas > MaxReplicas {
		problem("replicas", "must be between 1 and "+strconv.Itoa(MaxReplicas))
	}
	return errors.Join(errs...)
}

// isControl reports whether r is an ASCII or C1 control character.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// checkURL returns what is wrong with a Redis URL, or "". The message
// never quotes the URL or a part of it: url.Parse's and go-redis's errors
// do, so they are not passed on.
func checkURL(raw string) string {
	if strings.ContainsFunc(raw, isControl) {
		return "must not contain control characters"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "is not a valid URL"
	}
	switch u.Scheme {
	case "redis", "rediss":
		if u.Opaque != "" || u.Host == "" {
			return "must name a host: redis://[user:password@]host[:port][/db]"
		}
		if segs := strings.FieldsFunc(u.Path, func(r rune) bool { return r == '/' }); len(segs) > 1 {
			return "has a path that is not a database number (such as /0)"
		} else if len(segs) == 1 {
			if _, err := strconv.Atoi(segs[0]); err != nil {
				return "has a path that is not a database number (such as /0)"
			}
		}
	case "unix":
		if strings.TrimSpace(u.Path) == "" {
			return "must name a socket: unix:///path/to/redis.sock"
		}
	default:
		return "must start with redis://, rediss:// or unix://"
	}
	if _, err := redis.ParseURL(raw); err != nil {
		return "has a query option go-redis does not know, or a value it cannot read"
	}
	return ""
}

// replicas returns s.Replicas with 0 read as 1.
func (s Settings) replicas() int { return max(s.Replicas, 1) }
