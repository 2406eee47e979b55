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
// from getLatestBlockhash; for a durable-nonce transaction (its first
// instruction advances a nonce account, told from tx) it is 0, and
// Expired means its nonce moved on without it (confirm.Options.Nonce). With a subscribe endpoint the signature is
// also watched (signatureSubscribe, made before the send): its
// notification brings the verdict forward; polling stays the fallback and
// the only judge of expiry (confirm.Options.PollOnly turns it off). With
// confirm.Options.FanOut (0: the document's [send] fan_out, else 1) the
// same signed bytes go to that many send endpoints at once, each copy
// under its endpoint's limits and the send rule, and Result.Copies says
// what each did; a FanOut over the pool's send endpoints is an error
// before any request. See the confirm package and docs/sending.md.
func (c *Client) SendAndConfirm(ctx context.Context, tx *solana.Transaction, lastValidBlockHeight uint64, o confirm.Options) (confirm.Result, error) {
	h := resolve.Hooks{Watch: c.signatureWatcher(), Copies: c.copies.load()}
	return resolve.SendAndConfirmHooked(ctx, c.engine, h, tx, lastValidBlockHeight, c.fanOut(o))
}

// Resolve finds out what became of a transaction already sent, by its
// signature and its blockhash's lastValidBlockHeight, without sending
// anything: for a send that failed ambiguously, or one sent elsewhere. It
// watches the signature as SendAndConfirm does. A durable-nonce
// transaction has no lastValidBlockHeight: pass 0, with
// confirm.Options.NonceAccount and Nonce.
func (c *Client) Resolve(ctx context.Context, sig solana.Signature, lastValidBlockHeight uint64, o confirm.Options) (confirm.Result, error) {
	return resolve.ResolveWith(ctx, c.engine, c.signatureWatcher(), sig, lastValidBlockHeight, o)
}
