package solroute

import (
	"context"
	"errors"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"
	"github.com/solroute/solroute/internal/pubsub"
	"github.com/solroute/solroute/internal/resolve"
)

// signatureWatcher is how SendAndConfirm and Resolve watch a signature:
// a signatureSubscribe on the client's subscribe endpoints (the engine
// starts at the first). Nil when no endpoint serves the subscribe role:
// they poll alone.
func (c *Client) signatureWatcher() resolve.Watcher {
	if len(c.subs.endpoints) == 0 {
		return nil
	}
	return func(ctx context.Context, sig solana.Signature, commitment rpc.CommitmentType) (resolve.Watch, error) {
		e, err := c.subs.engine("signatureSubscribe")
		if err != nil {
			return nil, err
		}
		s, err := e.SignatureSubscribe(ctx, sig, commitment)
		if err != nil {
			return nil, err
		}
		return signatureWatch{s}, nil
	}
}

// signatureWatch is a signature subscription seen as resolve.Watch.
type signatureWatch struct {
	s *pubsub.Subscription[*ws.SignatureResult]
}

// errNoValue is a notification without a value, which a signature
// subscription never delivers (gaps are for programs and logs).
var errNoValue = errors.New("solroute: signature notification without a value")

// Next waits for the notification.
func (w signatureWatch) Next(ctx context.Context) (resolve.Notice, error) {
	n, err := w.s.Next(ctx)
	switch {
	case err != nil:
		return resolve.Notice{}, err
	case n.Value == nil:
		return resolve.Notice{}, errNoValue
	}
	return resolve.Notice{Err: n.Value.Value.Err, Endpoint: n.Endpoint, Slot: n.Slot}, nil
}

// Close ends the subscription.
func (w signatureWatch) Close() { w.s.Close() }
