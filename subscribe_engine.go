package solroute

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/pubsub"
)

// subscriptions holds a Client's subscription engine, started at the
// first subscribe (a client that never subscribes opens no WebSocket)
// and closed with the Client.
type subscriptions struct {
	endpoints []pubsub.Endpoint
	settings  pubsub.Settings
	options   pubsub.Options

	mu     sync.Mutex
	eng    *pubsub.Engine
	closed bool

	// watchers see the engine's events (subscribe_stats.go).
	watchMu  sync.Mutex
	watchers atomic.Pointer[[]pubsub.Watcher]
}

// newSubscriptions prepares the engine over the specs that serve the
// subscribe role, reading back through rc (the pool), on the hooks' clock
// and logger. A lag beyond maxSlotLag moves a stream, as the pool ejects.
func newSubscriptions(specs []endpoint.Spec, maxSlotLag int, rc *rpc.Client, clock clockwork.Clock, log *slog.Logger) *subscriptions {
	s := &subscriptions{endpoints: pubsub.FromSpecs(specs)}
	if maxSlotLag > 0 {
		s.settings.MaxSlotLag = uint64(maxSlotLag)
	}
	// The seed draws the backoff jitter: drawn per client, so that
	// processes that lose one endpoint together do not dial it again in
	// step.
	s.options = pubsub.Options{Clock: clock, Logger: log, Reader: reader{rc}, Seed: rand.Uint64()}
	s.options.Observe = s.observe // metrics and tracing (subscribe_stats.go)
	return s
}

// engine returns the started engine, starting it at the first call. It
// fails, before any connection, when no endpoint serves the subscribe
// role, and once the Client is closed.
func (s *subscriptions) engine(method string) (*pubsub.Engine, error) {
	if len(s.endpoints) == 0 {
		return nil, errNoSubscribeEndpoint(method)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("solroute: %s: the client is closed: %w", method, ErrSubscriptionClosed)
	}
	if s.eng == nil {
		e, err := pubsub.New(s.endpoints, s.settings, s.options)
		if err != nil {
			return nil, fmt.Errorf("solroute: %w", err)
		}
		s.eng = e
	}
	return s.eng, nil
}

// close ends every subscription and connection and waits for the
// engine's goroutines; later subscribes fail.
func (s *subscriptions) close() {
	s.mu.Lock()
	e := s.eng
	s.closed = true
	s.mu.Unlock()
	if e != nil {
		e.Close()
	}
}

// reader reads back through the pool: every call runs through its
// failover and retry rules, the slot floor included.
type reader struct{ rpc *rpc.Client }

// GetMultipleAccounts reads accounts from a bank at least at
// minContextSlot (0: any).
func (r reader) GetMultipleAccounts(ctx context.Context, keys []solana.PublicKey, commitment rpc.CommitmentType,
	encoding solana.EncodingType, minContextSlot uint64) (*rpc.GetMultipleAccountsResult, error) {
	o := &rpc.GetMultipleAccountsOpts{Commitment: commitment, Encoding: encoding}
	if minContextSlot > 0 {
		o.MinContextSlot = &minContextSlot
	}
	return r.rpc.GetMultipleAccountsWithOpts(ctx, keys, o)
}

// GetSignatureStatuses reads recent signatures' statuses.
func (r reader) GetSignatureStatuses(ctx context.Context, sigs []solana.Signature) (*rpc.GetSignatureStatusesResult, error) {
	return r.rpc.GetSignatureStatuses(ctx, false, sigs...)
}
