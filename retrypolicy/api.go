package retrypolicy

// CONTRACT FILE written by the lead: the exported names and signatures below
// are shared with transport/ and config/. Implement the bodies; add what you
// need; do not rename or change these signatures without telling the lead.
// Split into files named for what they hold (cause.go, decide.go,
// budget.go, backoff.go, retryafter.go ...) and delete this comment.

import "time"

// Cause is why an attempt failed, as classified by the transport.
type Cause uint8

const (
	// Connection: dial, DNS or TLS failed, or the connection broke.
	Connection Cause = iota + 1
	// Timeout: the attempt's time ran out, or the server answered 408.
	Timeout
	// RateLimited: HTTP 429, or a JSON-RPC error with code 429.
	RateLimited
	// TemporaryHTTP: HTTP 500, 502, 503 or 504.
	TemporaryHTTP
	// NodeBehind: a Solana node-state error (-32005, -32004, -32014,
	// -32016): this node cannot answer yet, another may.
	NodeBehind
	// Request: an HTTP 4xx other than 408 and 429; the request is wrong.
	Request
	// RPCApplication: any other JSON-RPC error.
	RPCApplication
	// MalformedResponse: the answer is not a JSON-RPC response at all (not
	// JSON, truncated, wrong id, over the size limit): an endpoint fault.
	MalformedResponse
	// InvalidResponse: a well-formed result that does not decode into the
	// caller's type; it would be the same anywhere.
	InvalidResponse
	// Canceled: the caller's context ended.
	Canceled
)

// Causes lists every Cause, for exhaustive tests and tables.
var Causes = [...]Cause{Connection, Timeout, RateLimited, TemporaryHTTP, NodeBehind,
	Request, RPCApplication, MalformedResponse, InvalidResponse, Canceled}

// DispatchState is what is proven about whether a request reached a server.
type DispatchState uint8

const (
	// NotDispatched: proven that no byte of the request was written.
	NotDispatched DispatchState = iota + 1
	// MaybeDispatched: some or all of the request was written and no
	// answer came; the server may have acted.
	MaybeDispatched
	// Answered: a response (status line) arrived.
	Answered
)

// Class is how an operation may be retried.
type Class uint8

const (
	// Idempotent operations (reads) may be retried freely.
	Idempotent Class = iota + 1
	// NeverAfterDispatch operations (sendTransaction, requestAirdrop) are
	// never resent once they may have reached a server.
	NeverAfterDispatch
	// NotApplicable operations are never retried automatically.
	NotApplicable
)

// Settings tune a Policy. Every zero value means the documented default.
type Settings struct {
	// MaxRetries bounds retries of answered or maybe-dispatched attempts.
	// 0 means 3; a negative value means no such retry at all.
	MaxRetries int
	// InitialBackoff is the first backoff's ceiling. 0 means 100 ms.
	InitialBackoff time.Duration
	// MaxBackoff caps every backoff ceiling. 0 means 2 s.
	MaxBackoff time.Duration
	// MaxProviderDelay caps a provider's Retry-After. 0 means 60 s.
	MaxProviderDelay time.Duration
	// BudgetRatio is the share of active calls that may be retrying at once.
	// 0 means 0.2; a negative value disables the budget.
	BudgetRatio float64
	// BudgetMinRetries is the budget's floor of concurrent retries. 0 means 3.
	BudgetMinRetries int
	// Jitter returns a value in [0, ceiling] (full jitter). Nil means a
	// uniform pseudo-random draw. Tests inject an exact source.
	Jitter func(ceiling time.Duration) time.Duration
}

// Attempt is the outcome of one attempt of one call.
type Attempt struct {
	// Number is 1 for the first attempt of a call.
	Number int
	Cause  Cause
	// Dispatch is what the transport proved about this attempt.
	Dispatch DispatchState
	Class    Class
	// ProviderDelay is the provider's Retry-After (0 when none).
	ProviderDelay time.Duration
	// TimeLeft is the time before the call's shared deadline.
	TimeLeft time.Duration
}

// Decision says what to do after an attempt.
type Decision struct {
	// Retry reports whether to make another attempt.
	Retry bool
	// Delay is how long to wait first.
	Delay time.Duration
	// OtherEndpoint reports that the next attempt must avoid the endpoint
	// that just failed (when another one exists).
	OtherEndpoint bool
	// Transparent reports a retry of an attempt that provably never left
	// the client: it does not count against MaxRetries.
	Transparent bool
	// Reason says why, in a few words ("rate limited; retry elsewhere",
	// "never after dispatch: may have reached the server", ...).
	Reason string
}

// Policy holds normalised Settings and the retry budget shared by every call
// of one client. It is safe for concurrent use.
type Policy struct{}

// New normalises s and returns a Policy.
func New(s Settings) *Policy { panic("TODO") }

// Begin starts one call: it counts as active in the retry budget until End.
func (p *Policy) Begin() *Call { panic("TODO") }

// Call is one call's retry state. It is used by one goroutine at a time.
type Call struct{}

// Next decides after attempt a. A retry takes a place in the retry budget
// (released at the next Next or at End); when the budget is spent the
// decision is to stop, with that reason.
func (c *Call) Next(a Attempt) Decision { panic("TODO") }

// End finishes the call and releases its budget places. Idempotent.
func (c *Call) End() { panic("TODO") }

// ParseRetryAfter parses an HTTP Retry-After value (delta-seconds or an
// HTTP-date) against now. It reports false for an empty, malformed or
// negative value; a huge value is returned as is (callers cap it).
func ParseRetryAfter(header string, now time.Time) (time.Duration, bool) {
	panic("TODO")
}
