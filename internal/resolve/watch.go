package resolve

import (
	"context"
	"errors"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/engine"
)

// Watcher subscribes to a signature's notification at a commitment
// (signatureSubscribe on the client's subscribe endpoints) and returns
// once the subscription is live, or with why none could be made. The
// resolution then polls alone: a watch only ever brings a verdict
// forward. The root provides it from its subscriptions; nil means the
// client has no subscribe endpoint.
type Watcher func(ctx context.Context, sig solana.Signature, commitment rpc.CommitmentType) (Watch, error)

// Watch is one signature's subscription.
type Watch interface {
	// Next waits for the notification, or ctx's end (its cause), or the
	// subscription's end without one (its error). Any error ends the
	// watch's use.
	Next(ctx context.Context) (Notice, error)
	// Close ends the subscription; it is called once, when the
	// resolution returns.
	Close()
}

// Notice is a signature's notification: it reached the watched
// commitment on some endpoint.
type Notice struct {
	// Err is its on-chain error, as solana-go decodes it; nil when it
	// succeeded.
	Err any
	// Endpoint names the endpoint that notified first; "" when the
	// subscription read it back over HTTP.
	Endpoint string
	// Slot is the notification's context slot: a bank at the commitment,
	// not the slot the transaction landed in.
	Slot uint64
}

// SubscribeWait bounds, on the pool's clock, how long a resolution waits
// for its signature subscription before it sends (SendAndConfirm) or
// polls: a subscribe endpoint that is slow, stalled or refusing delays the
// send by at most this, and the resolution then polls alone. One slot and
// a margin: a warm connection answers a subscribe in one round trip, a
// client's first subscribe dials and handshakes (a few round trips).
const SubscribeWait = 500 * time.Millisecond

// errSubscribeWait and errPollDue are the causes of a subscribe's and a
// watch's wait when their time is up.
var (
	errSubscribeWait = errors.New("confirm: the signature subscription took longer than " + SubscribeWait.String() + ": polling alone")
	errPollDue       = errors.New("confirm: the next poll is due")
)

// subscribe watches the signature through w, unless w is nil or
// Options.PollOnly, waiting at most SubscribeWait. A failure leaves the
// resolution to polling: it is never the caller's error.
func (r *resolver) subscribe(ctx context.Context, w Watcher) {
	if w == nil || r.o.PollOnly {
		return
	}
	sctx, cancel := withClockTimeout(ctx, r.clock, SubscribeWait, errSubscribeWait)
	defer cancel()
	watch, err := w(sctx, r.res.Signature, r.o.Commitment)
	if err != nil || watch == nil {
		return
	}
	r.watch = watch
}

// closeWatch closes the watch, if any.
func (r *resolver) closeWatch() {
	if r.watch != nil {
		r.watch.Close()
		r.watch = nil
	}
}

// wait waits until the next poll is due (nil), or a notification comes
// (returned), or ctx ends (its error). A watch that ends without a
// notification is let go: the rest of the wait is a plain timer.
func (r *resolver) wait(ctx context.Context) (*Notice, error) {
	due := r.clock.Now().Add(r.o.PollInterval)
	if r.watch != nil {
		wctx, cancel := withClockTimeout(ctx, r.clock, r.o.PollInterval, errPollDue)
		n, err := r.watch.Next(wctx)
		done := wctx.Err() != nil
		cancel()
		switch {
		case err == nil:
			return &n, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case done:
			return nil, nil // the poll is due
		}
		r.closeWatch() // it ended (the client closed): poll alone
	}
	left := due.Sub(r.clock.Now())
	if left <= 0 {
		return nil, nil
	}
	t := r.clock.NewTimer(left)
	select {
	case <-t.Chan():
		return nil, nil
	case <-ctx.Done():
		t.Stop()
		return nil, ctx.Err()
	}
}

// notified concludes from a notification. The status is read first (its
// landing slot and confirmation, which the notification does not carry):
// from the notifying endpoint when it is a read endpoint the pool does not
// hold back (it knows the signature at the commitment), then through the
// pool. When neither shows it at the commitment (the readers lag, or the
// notifier serves no reads), the notification alone is the verdict, its
// Slot the last one seen (0 when none), its Confirmation the commitment.
// These reads count as a poll.
func (r *resolver) notified(ctx context.Context, n Notice) confirm.Result {
	r.res.Polls++
	r.res.LastErr = nil
	ctx = engine.WithMonotonicReads(ctx, false)
	tries := make([]context.Context, 0, 2)
	if _, held := r.blocked()[n.Endpoint]; n.Endpoint != "" && r.reader(n.Endpoint) != nil && !held {
		tries = append(tries, engine.WithEndpoint(ctx, n.Endpoint))
	}
	tries = append(tries, ctx)
	for _, c := range tries {
		st, _, err := r.status(c, false)
		if err != nil {
			r.res.LastErr = err
			continue
		}
		if st != nil && r.seen(st) {
			r.res.LastErr = nil
			r.update()
			return r.res
		}
	}
	r.res.Status, r.res.Err = confirm.Landed, n.Err
	if n.Err != nil {
		r.res.Status = confirm.Failed
	}
	if rank(string(r.o.Commitment)) > rank(string(r.res.Confirmation)) {
		r.res.Confirmation = rpc.ConfirmationStatusType(r.o.Commitment)
	}
	r.update()
	return r.res
}
