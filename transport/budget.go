package transport

// ResponseBudget is a client's response byte budget now
// (Settings.ResponseBudgetBytes): the bytes of response bodies held in
// flight, its limit, and how many answers it refused.
type ResponseBudget struct {
	// Used is the bytes charged now by the response bodies being read or
	// decoded.
	Used int64
	// Limit is the budget: Settings.ResponseBudgetBytes, or its default.
	Limit int64
	// Refused counts the answers refused since the client started: each
	// failed its call with an error matching solroute.ErrBusy.
	Refused uint64
}
