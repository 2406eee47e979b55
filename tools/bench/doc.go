// Package bench runs one workload side by side through several Solana
// JSON-RPC clients against the same loopback cluster of fake endpoints
// (package fixtures), and reports goodput, success rate, latency
// percentiles, allocations per call and duplicate transaction deliveries
// per client and scenario, as a Markdown table and SVG latency CDFs.
//
// It is tooling, in the repository's tools module (tools/go.mod), apart
// from the library's: no library package imports it, cmd/solroute does not
// link it, and it reaches solroute through the public API only
// (solroute.New, the faces, fixtures, metrics, tracing), as a user does.
// tools/cmd/solroute-bench runs it.
//
// # Model
//
// A run is a grid of cells, one per (scenario, client). Every cell starts a
// fresh cluster of three endpoints ("a", "b", "c"), warms the client up on
// the healthy cluster, then applies the scenario's fault to endpoint "a"
// (the one a single-endpoint client is configured with) and measures a
// fixed number of calls made by a fixed number of concurrent callers. One
// call in Options.SendEvery is a sendTransaction of a real signed
// transaction with a unique signature; the others are getBalance at
// confirmed commitment. Every
// call has its own timeout (Options.CallTimeout) and a cell stops starting
// calls after Options.CellTimeout, so a blackholed endpoint cannot stall a
// run.
//
// Loopback goodput on a shared machine varies by tens of percent from one
// measure to the next, so each cell is measured Options.Rounds times (3 by
// default). Per scenario, round r measures every client once, starting at
// client r mod len(Clients), so no client always runs first or last, and
// two clients' measures in one round are close in time. The report pools a
// cell's rounds: its goodput is the median of the rounds' goodputs (the
// range is kept); success rates, allocations per call, sends, ambiguous
// outcomes and duplicates are over every round's calls, and so are the
// latency percentiles and charts.
//
// Latency is measured on the real clock around each call, failed calls
// included (a client that fails fast does not look fast). Allocations are
// the process's runtime.MemStats.Mallocs delta over the measured calls,
// divided by the calls: run the cluster in a child process
// (Options.Isolate) so that the fake servers' allocations are not counted.
// Duplicates are counted by the servers themselves: for each signature,
// the deliveries that a real node would have acted on (fixtures'
// Server.Forwarded rule) beyond the first, summed over the cluster.
//
// Each endpoint counts the HTTP requests it receives; the counts from the
// moment the fault is applied to the end of the cell, summed over the
// rounds, give each endpoint's share of a client's traffic
// ([Cell.RequestShares]): where a balancing client sends its calls when
// one endpoint is slow or hangs. Goodput runs to the end of a phase's last
// call; [Cell.SteadyGoodput] stops where the last call starts, leaving out
// the drain that one slow call at the end stretches with idle time.
//
// # Slots (issue 13)
//
// Every endpoint runs the fixtures' slot model (fixtures.SlotOptions at
// its defaults): the three share a slot that advances one per 400 ms,
// every answer carries the context slot of the commitment asked for, and
// a minContextSlot above it is refused with -32016. In lagging-silent,
// endpoint "a" falls 100 slots behind when the fault is applied and keeps
// answering normally. Each client returns the context slot of its reads,
// and a cell counts ([Cell.SlotReads] and the fields after it):
//
//   - reads back in time: a successful read whose slot is below the
//     highest slot of the reads the client had returned before it
//     started (the warm-up's included). The client instance as a whole
//     is the caller, and all reads are at one commitment. Only reads
//     that ended before a read started count against it: that is what
//     its caller could have seen, and two overlapping reads may end in
//     either order;
//   - where "a" lags, the reads returned from it, told by their slot
//     (below the midpoint between "a"'s slot and the others', moving one
//     slot per 400 ms), and the getBalance calls "a" answered with a
//     result, counted by "a" itself;
//   - when the client could first know the lag: its first answer from
//     "a" after the fault, that is the end of the first read returned
//     from it or, for solroute, the first attempt "a" answered, a
//     -32016 refusal included (transport.Observer.AttemptEnded); and the
//     reads from "a" that started after it.
//
// The solroute-untracked client is solroute with slot tracking off
// (pool.Settings.MaxSlotLag 0, transport.Settings.MonotonicReads false):
// beside plain solroute in healthy, it shows what tracking costs. Since
// goodput on a shared machine moves by more than the 3 % that cost may
// take, a cell also records the process's CPU time over the measured
// calls (getrusage, user and system; [Cell.CPUPerCall]), which other
// processes on the cores move far less.
//
// tools/cmd/solroute-bench is the command-line entry point; [Run] is the
// library form, and [Report.WriteMarkdown] and [Report.WriteSVG] render its
// result.
package bench
