package retrypolicy

// Usage is a snapshot of a client's retry budget (solroute.Client.RetryBudget):
// the calls and counted retries under way and the tokens left. The budget
// (Settings.BudgetRatio, BudgetMinRetries, BudgetBurst) bounds retries by
// the calls recently made, so that an outage cannot become a retry storm.
type Usage struct {
	// ActiveCalls are calls between Begin and End.
	ActiveCalls int64
	// ActiveRetries are counted retries in flight.
	ActiveRetries int64
	// Tokens is what the account holds.
	Tokens float64
}
