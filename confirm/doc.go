// Package confirm finds out what became of a sent transaction, and sends
// one and waits for that answer: landed (with its slot, and its on-chain
// error if it failed), expired (it can never land: re-signing is safe), or
// unknown (the context ended first), never an error to interpret.
//
// Resolve never sends anything. It polls getSignatureStatuses and
// getEpochInfo through the pool (paced by the slot time, within every
// endpoint's limits, with a read session of its own so that an answer
// older than one already seen is refused), and concludes "expired" only
// when a finalized block height above the blockhash's
// lastValidBlockHeight was read at some slot S, and endpoints whose
// answers are at or past S (two of them, when the pool has two readers)
// do not know the signature, with history search. An endpoint that is
// behind cannot make a landed transaction look expired.
//
// SendAndConfirm sends through the pool, under the transport's rules (a
// send is never resent once a server may have acted on it), and resolves:
// an ambiguous send (transport.ErrAmbiguousDispatch) goes straight into
// resolution. With Options.Rebroadcast it also re-sends the identical
// signed bytes at that interval while the transaction is unconfirmed and
// its blockhash valid: the chain deduplicates by signature, so this can
// land the transaction once, never twice, and it is counted in the
// result. It is not a transport resend: those are decided per attempt, on
// proof that nothing was delivered; a rebroadcast is a new send of bytes
// that may already have landed, which only a signature-deduplicating
// chain makes harmless. See plans/011-confirmation.md.
package confirm
