package solroute

import (
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
)

// The errors a caller decides on with errors.Is, each defined once (the
// typed calls' own, ErrUnhealthy and ErrInvalidInput, are beside their
// error types). A failed call is a *transport.CallError; these are what
// it matches.
var (
	// ErrAmbiguousDispatch is matched by the error of a call that is not
	// Idempotent (sendTransaction, requestAirdrop, sendBundle, a method
	// nobody declared, a batch holding one) that stopped because a server
	// may have acted on an attempt: the request was handed to a
	// connection and no answer came, or a server answered with something
	// that does not prove it did not act (a 5xx, a 408, a broken, garbled
	// or HTML body, a result that did not decode, a JSON-RPC error not
	// known to come before execution), or the caller cancelled after the
	// request was handed over (retrypolicy.Outcome.MayHaveActed is the
	// rule; the *transport.CallError is Ambiguous). Such a call is never
	// resent. For a transaction: Client.Resolve finds out what became of
	// it (landed, or expired: then re-signing is safe); re-sending the
	// identical signed bytes is safe too (a signature executes at most
	// once), re-signing before it expired is not. See docs/sending.md.
	ErrAmbiguousDispatch = engine.ErrAmbiguousDispatch
	// ErrNoEndpoint is matched by the error of a call no endpoint can
	// serve: none serves its role with the capabilities it asks
	// (WithCapabilities), or none has the name it is pinned to
	// (WithEndpoint). No request was sent; the configuration is wrong.
	ErrNoEndpoint = admission.ErrNoEndpoint
	// ErrDeadline is matched by the error of a call for which no endpoint
	// could be admitted before its deadline (every one rate-limited, busy,
	// cooling down or ejected); the error names each endpoint and why.
	ErrDeadline = admission.ErrDeadline
	// ErrBusy is matched by the error of a call whose answer did not fit
	// the client's response byte budget ([transport] response_budget_bytes,
	// transport.Settings.ResponseBudgetBytes) at once: the answer is
	// refused, never waited for, and the call is not retried (any endpoint
	// would meet the same full budget). The message names the endpoint,
	// the method and the bytes wanted, available and the limit;
	// Client.ResponseBudget shows them live. A read so refused may be
	// tried again later, or with fewer calls in flight. A send is refused
	// before it is dispatched when the budget cannot take its reserve
	// (64 KiB): then nothing was sent; an answer over that refused after
	// dispatch leaves the send ambiguous (ErrAmbiguousDispatch too), never
	// resent.
	ErrBusy = engine.ErrBusy
)
