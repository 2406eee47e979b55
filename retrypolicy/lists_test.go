package retrypolicy

// Every value of each enum, for exhaustive tests and tables.
var (
	causes = [...]Cause{Connection, Timeout, RateLimited, TemporaryHTTP, NodeBehind,
		Request, RPCApplication, MalformedResponse, InvalidResponse, Canceled, Refused, RPCEndpoint}
	classes        = [...]Class{Idempotent, NeverAfterDispatch, NotApplicable}
	dispatchStates = [...]DispatchState{NotDispatched, MaybeDispatched, Answered}
)
