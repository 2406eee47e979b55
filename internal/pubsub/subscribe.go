package pubsub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"
)

// Subscription is one caller's subscription: notifications of type T
// (solana-go's *ws.SlotResult, *ws.AccountResult, ...) in context-slot
// order, each once. Recv and Next may be called from one goroutine at a
// time; Close and Err from any.
type Subscription[T any] struct {
	e *Engine
	s *subscriber
}

// Notification is one delivery with what the engine knows of it.
type Notification[T any] struct {
	// Value is the notification, nil for a gap.
	Value T
	// Gap is set, Value nil, when notifications of a slot range may have
	// been missed (program and logs subscriptions).
	Gap *GapError
	// Endpoint names the endpoint that delivered it first; "" for a value
	// read back over HTTP (ReadBack).
	Endpoint string
	ReadBack bool
	// At is the engine's clock when it was delivered to the buffer.
	At time.Time
	// Slot is its context slot (a slot's or a root's number).
	Slot uint64
}

// Next waits for the next notification, or the subscription's end: ErrClosed
// after Close, ErrDone after a signature's one notification, ctx's cause.
func (s *Subscription[T]) Next(ctx context.Context) (Notification[T], error) {
	it, err := s.s.pop(ctx)
	if err != nil {
		return Notification[T]{}, err
	}
	n := Notification[T]{Gap: it.gap, Endpoint: it.endpoint, ReadBack: it.readBack, At: it.at, Slot: it.slot}
	if it.value != nil {
		n.Value = it.value.(T)
	}
	return n, nil
}

// Recv waits for the next notification, as solana-go's Recv does. A gap
// (program and logs subscriptions) is returned as a *GapError (errors.Is
// ErrGap); the subscription goes on: call Recv again.
func (s *Subscription[T]) Recv(ctx context.Context) (T, error) {
	n, err := s.Next(ctx)
	if err == nil && n.Gap != nil {
		err = n.Gap
	}
	return n.Value, err
}

// Err returns why the subscription ended, nil while it goes on. An
// endpoint's fault never ends it.
func (s *Subscription[T]) Err() error { return s.s.ended() }

// Close ends the subscription; the last one of a stream unsubscribes it
// everywhere. Close is idempotent.
func (s *Subscription[T]) Close() {
	s.e.mu.Lock()
	s.e.detachLocked(s.s)
	s.e.unlock()
	s.s.close()
}

// Dropped counts the notifications the buffer let go for a slow reader.
func (s *Subscription[T]) Dropped() uint64 {
	s.s.mu.Lock()
	defer s.s.mu.Unlock()
	return s.s.dropped
}

// Stats are one subscription's counters. Duplicates, Stale and Failovers
// are its stream's, shared with identical subscriptions.
type Stats struct {
	// Delivered counts the notifications delivered to its buffer (gaps
	// excluded), Dropped those the buffer let go for a slow reader.
	Delivered, Dropped uint64
	// Duplicates counts the notifications suppressed as already
	// delivered (another endpoint's copy), Stale those dropped as older
	// than one delivered.
	Duplicates, Stale uint64
	// Failovers counts the endpoints' subscriptions it lost and placed
	// again (for slots: the heartbeats lost with their connection).
	Failovers uint64
}

// Stats reads the subscription's counters.
func (s *Subscription[T]) Stats() Stats {
	s.e.mu.Lock()
	n := s.s.st.n
	s.e.mu.Unlock()
	s.s.mu.Lock()
	defer s.s.mu.Unlock()
	return Stats{Delivered: s.s.pushed, Dropped: s.s.dropped, Duplicates: n.duplicates, Stale: n.stale, Failovers: n.failovers}
}

// subscribe makes a caller's subscription of sp and waits until it is
// live on one endpoint, refused everywhere, or ctx ends.
func subscribe[T any](ctx context.Context, e *Engine, sp *spec) (*Subscription[T], error) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, ErrClosed
	}
	st, s := e.attachLocked(sp)
	e.unlock()
	sub := &Subscription[T]{e: e, s: s}
	if err := e.waitReady(ctx, st); err != nil {
		sub.Close()
		var se *SubscribeError
		if errors.As(err, &se) {
			return nil, err // it names the method itself
		}
		return nil, fmt.Errorf("pubsub: %s: %w", st.method, err)
	}
	e.mu.Lock()
	failed := st.failed
	e.mu.Unlock()
	if failed != nil {
		sub.Close()
		return nil, failed
	}
	return sub, nil
}

// waitReady waits for a stream's first live leg (the slot stream: a live
// heartbeat, or every endpoint down), or ctx's end.
func (e *Engine) waitReady(ctx context.Context, st *stream) error {
	if st != e.slots {
		select {
		case <-st.ready:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	for {
		e.mu.Lock()
		changed := e.act.changed
		var down *SubscribeError
		if !st.everLive {
			down = e.allDownLocked()
		}
		e.mu.Unlock()
		if down != nil {
			return down
		}
		select {
		case <-st.ready:
			return nil
		case <-changed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// SlotSubscribe notifies every slot the endpoints process, each once, in
// order. It is fed by every connection's heartbeat: every endpoint holds
// it.
func (e *Engine) SlotSubscribe(ctx context.Context) (*Subscription[*ws.SlotResult], error) {
	return subscribe[*ws.SlotResult](ctx, e, &spec{kind: kSlot})
}

// RootSubscribe notifies every new root, each once, in order.
func (e *Engine) RootSubscribe(ctx context.Context) (*Subscription[*ws.RootResult], error) {
	return subscribe[*ws.RootResult](ctx, e, &spec{kind: kRoot})
}

// AccountOptions tune an account subscription. The zero value reads
// finalized, base64.
type AccountOptions struct {
	Commitment rpc.CommitmentType
	Encoding   solana.EncodingType
}

// AccountSubscribe notifies every new state of an account: at start and
// after any switch of endpoint, the state read back over HTTP when newer.
func (e *Engine) AccountSubscribe(ctx context.Context, account solana.PublicKey, o AccountOptions) (*Subscription[*ws.AccountResult], error) {
	c, enc, err := checkAccountOptions("accountSubscribe", o.Commitment, o.Encoding)
	if err != nil {
		return nil, err
	}
	params, err := marshalParams(account.String(), map[string]any{"commitment": c, "encoding": enc})
	if err != nil {
		return nil, err
	}
	return subscribe[*ws.AccountResult](ctx, e, &spec{kind: kAccount, params: params, commitment: c, encoding: enc, account: account})
}

// ProgramOptions tune a program subscription. The zero value reads
// finalized, base64, every account.
type ProgramOptions struct {
	Commitment rpc.CommitmentType
	Encoding   solana.EncodingType
	Filters    []rpc.RPCFilter
}

// ProgramSubscribe notifies every change of an account the program owns
// (that passes the filters). A range that may have been missed is a gap.
func (e *Engine) ProgramSubscribe(ctx context.Context, program solana.PublicKey, o ProgramOptions) (*Subscription[*ws.ProgramResult], error) {
	c, enc, err := checkAccountOptions("programSubscribe", o.Commitment, o.Encoding)
	if err != nil {
		return nil, err
	}
	cfg := map[string]any{"commitment": c, "encoding": enc}
	for i, f := range o.Filters {
		if (f.Memcmp == nil) == (f.DataSize == 0) {
			return nil, fmt.Errorf("pubsub: programSubscribe: filter %d must hold one of memcmp or dataSize: %w", i, ErrInvalidParams)
		}
	}
	if len(o.Filters) > 0 {
		cfg["filters"] = o.Filters
	}
	params, err := marshalParams(program.String(), cfg)
	if err != nil {
		return nil, err
	}
	return subscribe[*ws.ProgramResult](ctx, e, &spec{kind: kProgram, params: params, commitment: c, encoding: enc})
}

// SignatureSubscribe notifies once, when the transaction reaches the
// commitment; then the subscription is done (ErrDone). Its status is read
// back once the subscribe is answered (and after any switch), so a
// transaction that landed before never goes unnoticed.
func (e *Engine) SignatureSubscribe(ctx context.Context, sig solana.Signature, commitment rpc.CommitmentType) (*Subscription[*ws.SignatureResult], error) {
	c, err := checkCommitment("signatureSubscribe", commitment)
	if err != nil {
		return nil, err
	}
	params, err := marshalParams(sig.String(), map[string]any{"commitment": c})
	if err != nil {
		return nil, err
	}
	return subscribe[*ws.SignatureResult](ctx, e, &spec{kind: kSignature, params: params, commitment: c, signature: sig})
}

// LogsFilter picks the transactions a logs subscription notifies.
type LogsFilter struct {
	// Mentions, when set, picks the transactions that mention the key.
	Mentions *solana.PublicKey
	// WithVotes includes vote transactions (without Mentions).
	WithVotes bool
}

// LogsSubscribe notifies the logs of every transaction the filter picks,
// each once. A range that may have been missed is a gap.
func (e *Engine) LogsSubscribe(ctx context.Context, f LogsFilter, commitment rpc.CommitmentType) (*Subscription[*ws.LogResult], error) {
	c, err := checkCommitment("logsSubscribe", commitment)
	if err != nil {
		return nil, err
	}
	var filter any = "all"
	switch {
	case f.Mentions != nil && f.WithVotes:
		return nil, fmt.Errorf("pubsub: logsSubscribe: mentions and votes cannot be combined: %w", ErrInvalidParams)
	case f.Mentions != nil:
		filter = map[string]any{"mentions": []string{f.Mentions.String()}}
	case f.WithVotes:
		filter = "allWithVotes"
	}
	params, err := marshalParams(filter, map[string]any{"commitment": c})
	if err != nil {
		return nil, err
	}
	return subscribe[*ws.LogResult](ctx, e, &spec{kind: kLogs, params: params, commitment: c})
}

// checkCommitment accepts the three commitments ("" is finalized,
// agave's default); the deprecated names are refused, so a stream's
// commitment is one of three.
func checkCommitment(method string, c rpc.CommitmentType) (rpc.CommitmentType, error) {
	switch c {
	case "":
		return rpc.CommitmentFinalized, nil
	case rpc.CommitmentProcessed, rpc.CommitmentConfirmed, rpc.CommitmentFinalized:
		return c, nil
	}
	return "", fmt.Errorf("pubsub: %s: commitment %q: want processed, confirmed or finalized: %w", method, c, ErrInvalidParams)
}

// checkAccountOptions checks a commitment and an account encoding: base58,
// base64 ("", the default), base64+zstd or jsonParsed. (binary, the
// legacy default, is refused: solana-go cannot decode it.)
func checkAccountOptions(method string, c rpc.CommitmentType, enc solana.EncodingType) (rpc.CommitmentType, solana.EncodingType, error) {
	c, err := checkCommitment(method, c)
	if err != nil {
		return "", "", err
	}
	switch enc {
	case "":
		enc = solana.EncodingBase64
	case solana.EncodingBase58, solana.EncodingBase64, solana.EncodingBase64Zstd, solana.EncodingJSONParsed:
	default:
		return "", "", fmt.Errorf("pubsub: %s: encoding %q: want base58, base64, base64+zstd or jsonParsed: %w", method, enc, ErrInvalidParams)
	}
	return c, enc, nil
}

// marshalParams encodes [first, config].
func marshalParams(first any, cfg map[string]any) (json.RawMessage, error) {
	b, err := json.Marshal([]any{first, cfg})
	if err != nil {
		return nil, fmt.Errorf("pubsub: encode params: %w", err)
	}
	return b, nil
}
