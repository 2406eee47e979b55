// Package soak holds the chaos soak of solroute: a cluster of fake
// endpoints (package fixtures) in three tiers, with real per-role limits,
// whose faults change at random from a seeded generator while hundreds of
// concurrent callers mix reads and sendTransaction through one
// transport.Client, for a bounded number of calls.
//
// The package has no code of its own: TestSoak is the suite. Every call is
// checked as it returns (it ends by its deadline, give or take the delay
// measured around it; its error is a classified *transport.CallError
// naming no secret) and the run is checked at the end
// (no transaction acted on twice, no attempt after an ambiguous one, in
// flight never above a limit, arrivals never above rate·window + burst, no
// permit, goroutine or connection leaked, no secret in the logs). See
// plans/005-proof-suites.md for what each check proves and how.
//
//	go test -short -race ./soak/                       # CI: 64 callers, 3000 calls
//	go test -race ./soak/                              # 256 callers, 40000 calls
//	SOLROUTE_SOAK_SEED=42 go test -race ./soak/        # replay a seed
//	go test ./soak/ -soak.seed=42 -soak.calls=100000   # the same with flags
package soak
