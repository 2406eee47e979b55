// Package resolve finds out what became of a sent transaction, and sends
// one and waits for that answer (solroute.Client.Resolve and
// SendAndConfirm; package resolve is the vocabulary): landed (with its slot, and its on-chain
// error if it failed), expired (it can never land: re-signing is safe), or
// unknown (the context ended first), never an error to interpret.
//
// Resolve never sends anything. Each poll asks getSignatureStatuses
// through the pool (paced by the slot time, within every endpoint's
// limits) and reads one read endpoint's finalized block height
// (getEpochInfo), each endpoint in turn. Once some endpoint reports a
// finalized block height past the blockhash's lastValidBlockHeight, every
// poll also asks each read endpoint that has not vouched yet, pinned to it
// and outside any session's floor (engine.WithEndpoint), for its own
// finalized height and slot and, when that height is past
// lastValidBlockHeight, for the signature with history search. An endpoint
// vouches for expiry when it does not know the signature in an answer at
// or past its own finalized slot. "Expired" needs Options.Quorum vouches
// (default 2, or 1 with one read endpoint) and no status found by any
// endpoint: one endpoint that lies about its height, lags, missed the
// transaction or does not answer cannot make a transaction that may still
// land look expired. Short of a quorum the resolution goes on until ctx
// ends (Unknown), and Result.Reason and Result.Witnesses say who vouched
// and why the others did not.
//
// SendAndConfirm sends through the pool, under the transport's rules (a
// send is never resent once a server may have acted on it), and resolves:
// an ambiguous send (solroute.ErrAmbiguousDispatch) goes straight into
// resolution. With Options.Rebroadcast it also re-sends the identical
// signed bytes at that interval while the transaction is unconfirmed and
// no quorum of endpoints has reported its blockhash expired: the chain deduplicates by signature, so this can
// land the transaction once, never twice, and it is counted in the
// result. It is not a transport resend: those are decided per attempt, on
// proof that nothing was delivered; a rebroadcast is a new send of bytes
// that may already have landed, which only a signature-deduplicating
// chain makes harmless.
//
// SendAndConfirmWith and ResolveWith also watch the signature through a
// Watcher the root provides from its subscriptions (watch.go): subscribed
// before the send within SubscribeWait, a notification concludes Landed or
// Failed (the status read for its slot), the polls' waits are waits on
// the watch, and Expired comes from the polls alone. See
// plans/011-confirmation.md.
package resolve
