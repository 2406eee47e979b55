package config

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/solroute/solroute/endpoint"
)

// Backend names where the token buckets of a client live.
type Backend uint8

const (
	// BackendLocal keeps every bucket in the process (the default): each
	// replica enforces the whole quota on its own.
	BackendLocal Backend = iota
	// BackendRedis shares each (endpoint, role) bucket between every
	// process that names the same Redis and key prefix: the program
	// builds the limiter (redislimit.New) and passes it in
	// solroute.Hooks.Limits.
	BackendRedis
)

// backendNames are the document's spellings, by Backend.
var backendNames = [...]string{BackendLocal: "local", BackendRedis: "redis"}

// allBackends lists the backends in order, for messages and docs.
func allBackends() []Backend { return []Backend{BackendLocal, BackendRedis} }

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
		return nil, fmt.Errorf("config: unknown backend %d", int(b))
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
	return errors.New(`config: unknown backend: want "local" or "redis"`)
}

// Limits are the [limits] table of a document: where the rate limits of
// every (endpoint, role) are kept. The zero value is local buckets, the
// default. With BackendRedis the program passes the limiter that keeps
// them (redislimit.New(ctx, doc.Limits, ...)) in solroute.Hooks.Limits:
// config and the root link no Redis client. Values are taken as written;
// DefaultLimits returns the document's defaults. Printing Limits never
// shows the URL: it is an endpoint.Secret.
type Limits struct {
	// Backend is BackendLocal (each process its own buckets) or
	// BackendRedis (buckets shared through the Redis at URL).
	Backend Backend `toml:"backend"`
	// URL names the Redis server, go-redis style:
	// redis://[user:password@]host[:port][/db], rediss:// for TLS, or
	// unix://[user:password@]/path/to.sock, with go-redis's query options
	// (redislimit.New checks those). It may carry a password, so it is a
	// secret, never printed. Required with BackendRedis, refused without
	// it.
	URL endpoint.Secret `toml:"url"`
	// KeyPrefix starts every key the limiter writes; the rest is the
	// endpoint's name and the role ("solroute:primary-a:read"). Processes
	// share a bucket when they use the same Redis, prefix, endpoint name
	// and role. "" means no prefix; the document's default is
	// "solroute:" (DefaultLimits).
	KeyPrefix string `toml:"key_prefix"`
	// Replicas is how many processes share the quota: while Redis cannot
	// be reached each process falls back to a local bucket of rate and
	// burst divided by Replicas (a role whose burst is below Replicas gets
	// one token per process, its first at a moment drawn within the
	// share's interval: together at most rate × W + Replicas over any W
	// seconds, above the burst when they meet), and a lease (the tokens
	// one request to Redis takes at most) is at most burst / Replicas, at
	// least 1. Count every process that may run at once, or more: fewer
	// lets the fallback exceed the quota. 0 means 1.
	Replicas int `toml:"replicas"`
	// FailClosed, when true, refuses admissions from the fallback: while
	// Redis cannot be reached, calls wait for it until their deadline
	// instead of running at the fallback share.
	FailClosed bool `toml:"fail_closed"`
}

// DefaultLimits returns the defaults of [limits]: local buckets, the key
// prefix "solroute:", one replica, fail open. Start a hand-built Limits
// from it, so that its keys are those of processes configured by a
// document.
func DefaultLimits() Limits {
	return Limits{Backend: BackendLocal, KeyPrefix: "solroute:", Replicas: 1}
}

// maxReplicas bounds Limits.Replicas.
const maxReplicas = 10_000

// maxKeyPrefix bounds the length of Limits.KeyPrefix, in bytes.
const maxKeyPrefix = 256

// Validate reports every field out of range, joined, each an
// *endpoint.Problem whose Path is the field's TOML key. No message quotes
// a value: the URL may hold a password. The URL's query options are
// go-redis's: redislimit.New checks them.
func (s Limits) Validate() error {
	var errs []error
	problem := func(key, msg string) { errs = append(errs, &endpoint.Problem{Path: key, Message: msg}) }
	switch {
	case int(s.Backend) >= len(backendNames):
		problem("backend", `must be "local" or "redis"`)
	case s.Backend == BackendRedis && s.URL.IsZero():
		problem("url", `is required with backend = "redis"`)
	case s.Backend == BackendRedis:
		if msg := checkRedisURL(s.URL.Reveal()); msg != "" {
			problem("url", msg)
		}
	case !s.URL.IsZero():
		problem("url", `is used only with backend = "redis"`)
	}
	if len(s.KeyPrefix) > maxKeyPrefix {
		problem("key_prefix", "must be at most "+strconv.Itoa(maxKeyPrefix)+" bytes")
	} else if strings.ContainsFunc(s.KeyPrefix, isControl) {
		problem("key_prefix", "must not contain control characters")
	}
	if s.Replicas < 0 || s.Replicas > maxReplicas {
		problem("replicas", "must be between 1 and "+strconv.Itoa(maxReplicas))
	}
	return errors.Join(errs...)
}

// isControl reports whether r is an ASCII or C1 control character.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// checkRedisURL returns what is wrong with a Redis URL's scheme, host,
// port or database, or "". The message never quotes the URL or a part of it:
// url.Parse's errors do, so they are not passed on.
func checkRedisURL(raw string) string {
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
		if msg := checkRedisPort(u.Port()); msg != "" {
			return msg
		}
		segs := strings.FieldsFunc(u.Path, func(r rune) bool { return r == '/' })
		if len(segs) > 1 {
			return "has a path that is not a database number (such as /0)"
		} else if len(segs) == 1 {
			if msg := checkRedisDB(segs[0], "a path", "/0"); msg != "" {
				return msg
			}
		}
	case "unix":
		if strings.TrimSpace(u.Path) == "" {
			return "must name a socket: unix:///path/to/redis.sock"
		}
	default:
		return "must start with redis://, rediss:// or unix://"
	}
	// go-redis takes the database from a db query option too, over the
	// path's.
	for _, db := range u.Query()["db"] {
		if msg := checkRedisDB(db, "a db query option", "db=0"); msg != "" {
			return msg
		}
	}
	return ""
}

// checkRedisPort returns what is wrong with a Redis URL's port ("" when
// it names none: go-redis dials 6379), or "". url.Parse takes any digits;
// a port no dial can use would leave the limiter on its fallback for good,
// a mistake that looks like an outage.
func checkRedisPort(port string) string {
	if port == "" {
		return ""
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "has a port out of range: want 1 to 65535, or none for 6379"
	}
	return ""
}

// checkRedisDB returns what is wrong with a Redis URL's database number
// db, written in where (such as example), or "". go-redis sends no SELECT
// for a database below 1, so a negative one would silently share
// database 0.
func checkRedisDB(db, where, example string) string {
	n, err := strconv.Atoi(db)
	switch {
	case err != nil:
		return "has " + where + " that is not a database number (such as " + example + ")"
	case n < 0:
		return "has a negative database number: want 0 or more (go-redis would use database 0)"
	}
	return ""
}
