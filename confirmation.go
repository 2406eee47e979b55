package solroute

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/resolve"
)

// SendAndConfirm sends a signed transaction through the pool and waits
// for what became of it: confirm.Landed (with its slot), confirm.Failed
// (landed with an on-chain error), confirm.Expired (it can never land:
// re-signing is safe) or confirm.Unknown (ctx ended first). An ambiguous
// send is resolved, not returned as an error; an error means nothing was
// sent (a refusal any endpoint would repeat, such as a preflight
// failure) or bad input. lastValidBlockHeight comes with the blockhash
// from getLatestBlockhash. See the confirm package and docs/sending.md.
func (c *Client) SendAndConfirm(ctx context.Context, tx *solana.Transaction, lastValidBlockHeight uint64, o confirm.Options) (confirm.Result, error) {
	return resolve.SendAndConfirm(ctx, c.engine, tx, lastValidBlockHeight, o)
}

// Resolve finds out what became of a transaction already sent, by its
// signature and its blockhash's lastValidBlockHeight, without sending
// anything: for a send that failed ambiguously, or one sent elsewhere.
func (c *Client) Resolve(ctx context.Context, sig solana.Signature, lastValidBlockHeight uint64, o confirm.Options) (confirm.Result, error) {
	return resolve.Resolve(ctx, c.engine, sig, lastValidBlockHeight, o)
}
