// Package confirm is the vocabulary of a sent transaction's fate:
// solroute.Client.SendAndConfirm sends one and waits for it,
// solroute.Client.Resolve finds out what became of one already sent. The
// answer is a [Result], never an error to interpret: [Landed] (with its
// slot), [Failed] (landed with an on-chain error), [Expired] (it can never
// land: re-signing is safe), or [Unknown] (the context ended first).
//
// Resolving never sends anything. It polls getSignatureStatuses through
// the pool, and concludes Expired only when [Options].Quorum read
// endpoints (default 2, or 1 with one read endpoint) have each vouched, on
// their own answers, that the blockhash's lastValidBlockHeight is past and
// the signature unknown 32 slots past their finalized slot: one endpoint that
// lies about its height, lags, missed the transaction or does not answer
// cannot make a transaction that may still land look expired. Each
// [Witness] says who vouched and why the others did not.
//
// A durable-nonce transaction (its first instruction advances a nonce
// account; [Options].NonceAccount and Nonce) has no lastValidBlockHeight:
// it is Expired only once Quorum endpoints have each reported, at
// finalized commitment, the account holding its nonce and later another,
// and then not known the signature 32 slots past that slot.
//
// With a subscribe endpoint the signature is also watched
// (signatureSubscribe, made before the send): a notification brings
// Landed or Failed forward, polling stays the fallback and the only judge
// of Expired; [Options].PollOnly turns it off.
//
// An ambiguous send (solroute.ErrAmbiguousDispatch) goes straight into
// resolution. With Options.Rebroadcast the identical signed bytes are
// re-sent while the transaction is unconfirmed and its blockhash may be
// valid: the chain deduplicates by signature, so this can land it once,
// never twice. See docs/sending.md and plans/011-confirmation.md.
package confirm
