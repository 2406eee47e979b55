// Package soak holds the chaos soak of solroute: a cluster of fake
// endpoints (package fixtures) in three tiers, with real per-role limits,
// whose faults change at random from a seeded generator while hundreds of
// concurrent callers mix reads and sendTransaction through one
// transport.Client, for a bounded number of calls.
//
// The package has no code of its own: TestSoak is the suite. Every call is
// checked as it returns (it ends by its deadline, give or take the delay
// measured around it; its error is a classified *transport.CallError
// naming no secret; a slot-bearing read returns no slot below one its
// caller saw) and the run is checked at the end
// (no transaction acted on twice, no attempt after an ambiguous one, in
// flight never above a limit, arrivals never above rate·window + burst, no
// permit, goroutine or connection leaked, no secret in the logs, the
// lagging endpoint never answered a caller anchored near the tip). See
// plans/005-proof-suites.md for what each check proves and how.
//
// # Slots
//
// Every fake endpoint runs the fixtures slot model on the real clock from
// one origin: those in step answer the same slot at the same instant.
// One of tier 0, t0-lag, answers everything normally (no fault, never
// down) but 100 slots behind: past the pool's MaxSlotLag (16), below the
// health distance (128). After 35 % of the calls it catches up; after
// 70 % it falls 100 slots behind again, so its slots go back under
// callers that hold slots it served.
//
// A caller is one goroutine of the workload, making one call at a time;
// one in two keeps its marks in a transport.Session of its own
// (WithSession), the others share the client's (Settings.MonotonicReads).
// Slot-bearing reads (getBalance and getLatestBlockhash by context.slot,
// getSlot by its result) ask for no commitment, finalized, confirmed or
// processed, and per commitment no caller ever sees its slot go back: no
// read returns less than a slot returned to its caller before, nor, on
// the client's mark, less than a slot returned to any caller on it before
// the call started (calls in flight at once are not ordered). Every
// session's mark must end equal to the highest slot its caller saw.
//
// Once a snapshot shows the pool marks t0-lag lagging, no read of a
// caller holding a slot within MaxSlotLag of the tip may be answered more
// than MaxSlotLag behind it: only t0-lag answers that far behind. The run
// must show the pool marked it lagging in both lag periods and in step
// between them, and that it received reads early, refused some (-32016)
// while lagging, and served reads while in step. It is a last resort,
// used at once when every endpoint in step is busy, as in the soak nearly
// always: it keeps serving reads that carry no slot, and those of callers
// holding no slot at that commitment yet, or only one it served them. The
// log shows its figures per phase.
//
//	go test -short -race ./soak/                       # CI: 64 callers, 3000 calls
//	go test -race ./soak/                              # 256 callers, 40000 calls
//	SOLROUTE_SOAK_SEED=42 go test -race ./soak/        # replay a seed
//	go test ./soak/ -soak.seed=42 -soak.calls=100000   # the same with flags
package soak
