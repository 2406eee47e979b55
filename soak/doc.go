// Package soak holds the chaos soak of solroute: a cluster of fake
// endpoints (package fixtures) in three tiers, with real per-role limits,
// whose faults change at random from a seeded generator while hundreds of
// concurrent callers mix reads and sendTransaction through one
// transport.Client, for a bounded number of calls.
//
// The package has no code of its own: TestSoak is the suite,
// TestSoakSendsResolve a second one (see Sends that resolve), and
// TestSoakMainnet a third: a bot's steady, paced workload over
// fixtures.Mainnet as it comes, where every read must succeed (three
// honest endpoints always answer) and no send is acted on twice.
// defects_test.go holds two smaller clusters that show, each alone, a
// defect the mix exposed beyond issue 20's list. Every call is
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
// # The cluster users have
//
// Both suites run over a provider mix, not a tidy cluster (issue 20; see
// realistic_test.go and resolve_realistic_test.go): every endpoint drifts
// 0 to 5 slots behind the tip on a seed of its own (fixtures.Drift), on a
// chain that stalls longer than 10 s (fixtures.Stalls: 12 s from 2 s
// after the start, then about every 30 s; the resolve soak 11 s from 1 s);
// one endpoint lies (a height 40 blocks and getSlot 3 slots ahead, a
// status cache that answers null for 64 slots after a landing), one
// answers 30 % of its reads at once with the node's own errors (-32603,
// -32010, -32011), one garbles answers (a result and an error in one
// envelope, duplicate and case-variant context keys), one reader never
// answers. TestSoak goes on past its calls until the first stall is over
// and 2 s more (at most 20 times the calls asked). On top of the checks
// below, the mix adds these: no node's own error is taken for the call's
// answer (it fails over); no request asks for a minContextSlot
// past the highest slot any endpoint could report when it arrived (the
// cluster's tip there, from fixtures' Received.Tip, plus the liar's 3);
// no expiry is concluded before the cluster's finalized height passed the
// blockhash's lastValidBlockHeight (fixtures' Ledger.FinalizedPast); and
// every verdict comes within 30 s of that moment (each send's context
// ends then). Each run checks the mix showed up: every garble and node
// error applied, the dead reader asked, a stall gone through.
//
// # Slots
//
// Every fake endpoint runs the fixtures slot model on the real clock from
// one origin: those in step answer within a few slots of each other at
// the same instant.
// One of tier 0, t0-lag, answers everything normally (no fault, never
// down) but 100 slots behind: past the pool's MaxSlotLag (16), below the
// health distance (128). After 35 % of the calls it catches up; after
// 70 % (and at least 2 s later) it falls 100 slots behind again, so its
// slots go back under callers that hold slots it served.
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
// # Sends that resolve
//
// TestSoakSendsResolve (issue 14) makes many sends through endpoints that
// misbehave on them, resolves each with package confirm, and checks every
// verdict against the fixtures ledger the endpoints share: 0
// misclassified, 0 expired that landed. Five endpoints run one chain (the
// slot model on the real clock from one origin, 10 ms a slot, so that a
// blockhash lives 1.5 s, not 60 s): r0-act acts on a send then resets or
// hangs, or resets it on accept, or answers 503; r0-refuse answers 429,
// 500, 502, -32005 or resets on accept; r0-lag is 40 slots behind (and
// sometimes acts then resets); r1-garble acts then answers a truncated or
// malformed body, or too late; r1-calm mostly answers. Every one
// misbehaves on some sends: the pool would otherwise send through the one
// that does not (doubt), and nothing would be ambiguous. Reads see a few
// faults too. Lag-aware routing is off (pool MaxSlotLag 0): the pool
// extrapolates slots at 400 ms a slot, and would take endpoints in step
// for lagging and fresh answers for outliers at 10 ms.
//
// Concurrent senders make each send with confirm.SendAndConfirm (one in
// ten: a raw sendTransaction through the transport, then confirm.Resolve),
// polling every 2 slots, with a plan drawn from the seed: a recent
// blockhash; one that fails on chain (half also in preflight); one every
// send of which the ledger drops (must expire); a blockhash 140-149
// blocks old (lands or expires by when it arrives); one whose first 1-3
// sends are dropped, rebroadcast every 3 slots; one hidden from one
// endpoint until finalized there, on an old blockhash (the trap of
// concluding expiry from one endpoint). A send refused with proof that no
// server acted is resolved all the same: it must expire.
//
// Each verdict is judged when it comes against Ledger.Tx: Landed only for
// a transaction landed without error in that slot, Failed only for one
// landed with that error in that slot, both only once that slot is at the
// commitment asked for; Expired only for one not landed whose blockhash
// can no longer land, concluded from a finalized height past its
// lastValidBlockHeight; Unknown never (each send has 30 s). A refused send
// must have been acted on nowhere. Per signature, no sendTransaction call
// makes an attempt after one that may have been acted on, the ledger
// counts no more arrivals than attempts that left the client, and it
// acted on it at most once per call (the send and each rebroadcast). At
// the end no verdict is overtaken (nothing expired has landed since), no
// permit is held, and the run is not vacuous: every verdict class came,
// ambiguous sends resolved landed and expired, refused ones expired,
// rebroadcasts were made, and sends met resets after reading, hangs and
// HTTP refusals. The log shows the figures by plan, by how the send
// ended, and by fault.
//
//	go test -short -race ./soak/                       # CI: 64 callers, 3000 calls or more (until a stall is over); 64 senders, 240 sends
//	go test -race ./soak/                              # 256 callers, 40000 calls; 96 senders, 2000 sends
//	SOLROUTE_SOAK_SEED=42 go test -race ./soak/        # replay a seed
//	go test ./soak/ -soak.seed=42 -soak.calls=100000   # the same with flags
//	go test ./soak/ -run TestSoakSendsResolve -soak.resolve.sends=10000 -soak.resolve.senders=128
package soak
