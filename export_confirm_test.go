package solroute

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/resolve"
)

// SendAndConfirmWatched is Client.SendAndConfirm with its signature
// watcher (nil without a subscribe endpoint) passed through wrap, for the
// tests that step a fake clock around the resolution's waits.
func SendAndConfirmWatched(ctx context.Context, c *Client, tx *solana.Transaction, lvbh uint64, o confirm.Options,
	wrap func(resolve.Watcher) resolve.Watcher) (confirm.Result, error) {
	return resolve.SendAndConfirmWith(ctx, c.engine, wrap(c.signatureWatcher()), tx, lvbh, o)
}

// ResolveWatched is Client.Resolve with its watcher passed through wrap.
func ResolveWatched(ctx context.Context, c *Client, sig solana.Signature, lvbh uint64, o confirm.Options,
	wrap func(resolve.Watcher) resolve.Watcher) (confirm.Result, error) {
	return resolve.ResolveWith(ctx, c.engine, wrap(c.signatureWatcher()), sig, lvbh, o)
}
