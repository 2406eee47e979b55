package pubsub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"

	"github.com/solroute/solroute/endpoint"
)

// Defaults of Limits and Settings.
const (
	// DefaultSubscriptionsPerConn is Limits.SubscriptionsPerConn's
	// default: what a public endpoint allows on one socket (about 100;
	// large providers allow 1 450 to 4 500). The heartbeat takes one.
	DefaultSubscriptionsPerConn = 100
	// DefaultConnsPerEndpoint is Limits.ConnsPerEndpoint's default.
	DefaultConnsPerEndpoint = 8
	// DefaultRedundancy is Settings.Redundancy's default: each
	// subscription on two endpoints.
	DefaultRedundancy = 2
	// DefaultMaxSlotLag is Settings.MaxSlotLag's default, the pool's own
	// (16 slots, about 6 s).
	DefaultMaxSlotLag = 16
	// DefaultStallSlots is Settings.StallSlots's default: a connection
	// silent for 2.5 slot times while another one moves is stalled (1 s
	// at 400 ms a slot).
	DefaultStallSlots = 2.5
	// DefaultPingInterval is Settings.PingInterval's default, well inside
	// the 30 s after which providers drop an idle socket.
	DefaultPingInterval = 10 * time.Second
	// DefaultBuffer is Settings.Buffer's default.
	DefaultBuffer = 1024
	// slotTime is the cadence assumed until the heartbeats measure it
	// (agave's DEFAULT_MS_PER_SLOT).
	slotTime = 400 * time.Millisecond
)

// Endpoint is one PubSub endpoint.
type Endpoint struct {
	// Name labels the endpoint: the only way it is named in errors, logs
	// and snapshots. Required, unique.
	Name string
	// URL is its ws:// or wss:// address, a secret (an API key may sit
	// in its user info, host, path or query). User info is sent as Basic
	// authentication unless Headers has an Authorization.
	URL endpoint.Secret
	// Headers are sent with the upgrade request; their values are
	// secrets.
	Headers map[string]endpoint.Secret
	// HTTPURL, when set, is the endpoint's HTTP address, configured
	// apart from URL: never dialled, but its secrets are hidden too, as
	// a node may echo its key over the WebSocket (FromSpecs sets it).
	HTTPURL endpoint.Secret
	// Tier orders endpoints: 0 first.
	Tier int
	// Limits are the endpoint's subscribe limits.
	Limits Limits
}

// Limits are an endpoint's subscribe limits. The zero value takes every
// default.
type Limits struct {
	// SubscriptionsPerConn is how many subscriptions one connection may
	// hold, the heartbeat included; 0 means DefaultSubscriptionsPerConn.
	// A refusal that names a limit lowers it for that connection.
	SubscriptionsPerConn int
	// ConnsPerEndpoint is how many connections the engine opens to the
	// endpoint at most; 0 means DefaultConnsPerEndpoint.
	ConnsPerEndpoint int
	// SubscribesPerSecond is the rate of subscribe requests (a token
	// bucket on the engine's clock); 0 means unlimited.
	SubscribesPerSecond float64
	// SubscribeBurst is the bucket's size; 0 means one second of the
	// rate, at least 1.
	SubscribeBurst int
}

// Settings tune the engine. A zero field takes its default.
type Settings struct {
	// Redundancy is how many distinct endpoints hold each subscription;
	// 0 means DefaultRedundancy.
	Redundancy int
	// MaxSlotLag is how far a connection's heartbeat may trail the
	// freshest one before its subscriptions move; 0 means
	// DefaultMaxSlotLag.
	MaxSlotLag uint64
	// StallSlots is how many slot times a connection may be silent while
	// another one moves; 0 means DefaultStallSlots. The slot time is
	// measured from the heartbeats.
	StallSlots float64
	// MinStall and MaxStall bound the stall deadline; 0 means 500 ms and
	// 10 s.
	MinStall, MaxStall time.Duration
	// MaxSilence drops a connection silent that long even when no other
	// moves (a single endpoint, or all of them stuck); 0 means 30 s.
	MaxSilence time.Duration
	// PingInterval is how often each connection is pinged; 0 means
	// DefaultPingInterval.
	PingInterval time.Duration
	// HandshakeTimeout bounds a dial and its upgrade; SubscribeTimeout
	// the answer to a subscribe. 0 means 10 s each.
	HandshakeTimeout, SubscribeTimeout time.Duration
	// BackoffMin and BackoffMax bound the pause before an endpoint that
	// failed is dialed again (doubling, with jitter); 0 means 250 ms and
	// 30 s. StableAfter is how long a connection must live for its
	// endpoint's backoff to start over; 0 means 10 s.
	BackoffMin, BackoffMax, StableAfter time.Duration
	// Buffer is how many notifications a subscription keeps for a slow
	// reader; 0 means DefaultBuffer.
	Buffer int
}

// withDefaults fills every zero field.
func (s Settings) withDefaults() Settings {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if s.Redundancy <= 0 {
		s.Redundancy = DefaultRedundancy
	}
	if s.MaxSlotLag == 0 {
		s.MaxSlotLag = DefaultMaxSlotLag
	}
	if s.StallSlots <= 0 {
		s.StallSlots = DefaultStallSlots
	}
	def(&s.MinStall, 500*time.Millisecond)
	def(&s.MaxStall, 10*time.Second)
	def(&s.MaxSilence, 30*time.Second)
	def(&s.PingInterval, DefaultPingInterval)
	def(&s.HandshakeTimeout, 10*time.Second)
	def(&s.SubscribeTimeout, 10*time.Second)
	def(&s.BackoffMin, 250*time.Millisecond)
	def(&s.BackoffMax, 30*time.Second)
	def(&s.StableAfter, 10*time.Second)
	if s.Buffer <= 0 {
		s.Buffer = DefaultBuffer
	}
	return s
}

// Reader is the HTTP side the engine reads back through after a switch:
// the pool, once wired. Both calls are reads any endpoint may answer.
type Reader interface {
	// GetMultipleAccounts reads up to 100 accounts at a commitment and
	// encoding, from a bank at least at minContextSlot (0: any).
	GetMultipleAccounts(ctx context.Context, keys []solana.PublicKey, commitment rpc.CommitmentType,
		encoding solana.EncodingType, minContextSlot uint64) (*rpc.GetMultipleAccountsResult, error)
	// GetSignatureStatuses reads up to 256 signatures' statuses.
	GetSignatureStatuses(ctx context.Context, sigs []solana.Signature) (*rpc.GetSignatureStatusesResult, error)
}

// Options are what code supplies. The zero value is valid.
type Options struct {
	// Clock is read for every deadline; nil means the real clock.
	Clock clockwork.Clock
	// Logger receives connection and failover events; nil discards them.
	Logger *slog.Logger
	// Reader serves the reads back; nil means none (an account then only
	// sees what the streams deliver, a signature only its notification).
	Reader Reader
	// Observe, when set, is called with every Event, outside the engine's
	// locks, in the order the events happened, one call at a time (it may
	// call the engine's methods; while it runs, the goroutine handing it
	// events waits).
	Observe func(Event)
	// Seed draws the backoff jitter.
	Seed uint64
	// NetDial dials the TCP connection under the WebSocket; nil means a
	// net.Dialer. Tests use it to plant failures.
	NetDial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// checkEndpoints reports what makes the endpoints unusable.
func checkEndpoints(eps []Endpoint) error {
	if len(eps) == 0 {
		return errors.New("pubsub: no endpoint")
	}
	seen := make(map[string]bool, len(eps))
	for i, ep := range eps {
		switch {
		case ep.Name == "":
			return fmt.Errorf("pubsub: endpoint %d has no name", i)
		case seen[ep.Name]:
			return fmt.Errorf("pubsub: duplicate endpoint %q", ep.Name)
		case ep.Tier < 0:
			return fmt.Errorf("pubsub: endpoint %q: negative tier", ep.Name)
		case ep.Limits.SubscriptionsPerConn < 0 || ep.Limits.ConnsPerEndpoint < 0 ||
			ep.Limits.SubscribesPerSecond < 0 || ep.Limits.SubscribeBurst < 0:
			return fmt.Errorf("pubsub: endpoint %q: negative limit", ep.Name)
		}
		seen[ep.Name] = true
		u, err := url.Parse(ep.URL.Reveal())
		if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			// The URL is a secret: never quote it or the parse error.
			return fmt.Errorf("pubsub: endpoint %q: URL is not a ws:// or wss:// URL", ep.Name)
		}
	}
	return nil
}
