package solroute

import (
	"context"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"
	"github.com/solroute/solroute/internal/pubsub"
)

// Subscription is a subscription a Client holds on its subscribe
// endpoints: notifications of type T (solana-go's *ws.SlotResult,
// *ws.AccountResult, ...), each once, never older by context slot than
// one already delivered. An endpoint's fault never ends it: only Close,
// the Client's Close, or a signature's one notification. Recv and Next may
// be called from one goroutine at a time; Err, Dropped and Close from any.
// See docs/subscriptions.md.
type Subscription[T any] struct {
	s *pubsub.Subscription[T]
}

// Notification is one delivery of a Subscription, with what is known of
// it.
type Notification[T any] struct {
	// Value is the notification; its zero value for a gap.
	Value T
	// Gap is set when notifications of a slot range may have been missed
	// (program and logs subscriptions).
	Gap *GapError
	// Endpoint names the endpoint that delivered it first; "" for a value
	// read back over HTTP (ReadBack).
	Endpoint string
	// ReadBack is set for a value read over HTTP after a switch of
	// endpoint (accounts, signatures), newer than the streams had.
	ReadBack bool
	// At is the client's clock when it arrived.
	At time.Time
	// Slot is its context slot (a slot's or a root's number).
	Slot uint64
}

// Recv waits for the next notification, as solana-go's Recv does, or the
// subscription's end: ErrSubscriptionClosed after Close,
// ErrSubscriptionDone after a signature's notification, ctx's cause. A gap
// (program and logs subscriptions) is returned as a *GapError
// (errors.Is(err, ErrGap)); the subscription goes on: call Recv again.
func (s *Subscription[T]) Recv(ctx context.Context) (T, error) { return s.s.Recv(ctx) }

// Next is Recv with the endpoint that delivered the notification first, its
// context slot, and gaps as values (Gap set, no error).
func (s *Subscription[T]) Next(ctx context.Context) (Notification[T], error) {
	n, err := s.s.Next(ctx)
	return Notification[T]{Value: n.Value, Gap: n.Gap, Endpoint: n.Endpoint, ReadBack: n.ReadBack, At: n.At, Slot: n.Slot}, err
}

// Err returns why the subscription ended, nil while it goes on.
func (s *Subscription[T]) Err() error { return s.s.Err() }

// Dropped counts the notifications let go because the reader was slower
// than the stream (accounts and programs keep the latest per key, slots,
// roots and logs drop the oldest).
func (s *Subscription[T]) Dropped() uint64 { return s.s.Dropped() }

// Close ends the subscription; the last of identical ones unsubscribes it
// on every endpoint. Close is idempotent.
func (s *Subscription[T]) Close() { s.s.Close() }

// SlotSubscribe notifies every slot the subscribe endpoints process, each
// once, in order. Every connection's heartbeat feeds it.
func (c *Client) SlotSubscribe(ctx context.Context) (*Subscription[*ws.SlotResult], error) {
	e, err := c.subs.engine("slotSubscribe")
	if err != nil {
		return nil, err
	}
	return wrap(e.SlotSubscribe(ctx))
}

// RootSubscribe notifies every new root, each once, in order.
func (c *Client) RootSubscribe(ctx context.Context) (*Subscription[*ws.RootResult], error) {
	e, err := c.subs.engine("rootSubscribe")
	if err != nil {
		return nil, err
	}
	return wrap(e.RootSubscribe(ctx))
}

// AccountSubscribe notifies every new state of an account, at start and
// after any switch of endpoint also the state read over HTTP through the
// pool (getMultipleAccounts with minContextSlot) when newer than the last
// delivered. A zero key, an unknown commitment or encoding is an
// *InputError before any connection.
func (c *Client) AccountSubscribe(ctx context.Context, account solana.PublicKey, o *AccountSubscribeOptions) (*Subscription[*ws.AccountResult], error) {
	opts, err := o.check(account)
	if err != nil {
		return nil, err
	}
	e, err := c.subs.engine("accountSubscribe")
	if err != nil {
		return nil, err
	}
	return wrap(e.AccountSubscribe(ctx, account, opts))
}

// ProgramSubscribe notifies every change of an account the program owns
// that passes the filters. A slot range that may have been missed (every
// endpoint holding it failed) is a *GapError from Recv. Bad filters, an
// unknown commitment or encoding are an *InputError before any connection.
func (c *Client) ProgramSubscribe(ctx context.Context, program solana.PublicKey, o *ProgramSubscribeOptions) (*Subscription[*ws.ProgramResult], error) {
	opts, err := o.check()
	if err != nil {
		return nil, err
	}
	e, err := c.subs.engine("programSubscribe")
	if err != nil {
		return nil, err
	}
	return wrap(e.ProgramSubscribe(ctx, program, opts))
}

// SignatureSubscribe notifies once, when the transaction reaches the
// commitment (empty: finalized); then the subscription is done
// (ErrSubscriptionDone). Its status is also read (getSignatureStatuses
// through the pool) once the subscribe is answered, so a transaction that
// landed before never goes unnoticed.
func (c *Client) SignatureSubscribe(ctx context.Context, sig solana.Signature, commitment rpc.CommitmentType) (*Subscription[*ws.SignatureResult], error) {
	if err := checkSignature(sig, commitment); err != nil {
		return nil, err
	}
	e, err := c.subs.engine("signatureSubscribe")
	if err != nil {
		return nil, err
	}
	return wrap(e.SignatureSubscribe(ctx, sig, commitment))
}

// LogsSubscribe notifies the logs of every transaction the filter picks,
// each once. A slot range that may have been missed is a *GapError from
// Recv.
func (c *Client) LogsSubscribe(ctx context.Context, f LogsFilter, commitment rpc.CommitmentType) (*Subscription[*ws.LogResult], error) {
	if err := validCommitment(commitment); err != nil {
		return nil, err
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	e, err := c.subs.engine("logsSubscribe")
	if err != nil {
		return nil, err
	}
	return wrap(e.LogsSubscribe(ctx, pubsub.LogsFilter{Mentions: f.Mentions, WithVotes: f.WithVotes}, commitment))
}

// wrap makes the engine's subscription the Client's, its error the
// Client's (see subscribeError).
func wrap[T any](s *pubsub.Subscription[T], err error) (*Subscription[T], error) {
	if err != nil {
		return nil, subscribeError(err)
	}
	return &Subscription[T]{s: s}, nil
}
