package bench

import (
	"io"
	"time"
)

// Defaults applied to zero fields of Options.
const (
	// DefaultCallers is the number of concurrent callers per cell.
	DefaultCallers = 64
	// DefaultCalls is the number of measured calls per cell and round.
	DefaultCalls = 10000
	// DefaultRounds is the number of times each cell is measured.
	DefaultRounds = 3
	// DefaultSendEvery makes one call in ten a sendTransaction.
	DefaultSendEvery = 10
	// DefaultCallTimeout bounds one call (every retry included).
	DefaultCallTimeout = 2 * time.Second
	// DefaultCellTimeout stops a cell from starting calls after this long.
	DefaultCellTimeout = 4 * time.Second
	// DefaultSeed seeds the faults that are random (the resetting
	// scenario).
	DefaultSeed = 1
)

// Options configure a Run. The zero value runs every client through every
// scenario with the defaults above, the cluster in this process.
type Options struct {
	// Clients names the clients to run, in order (see ClientNames). Nil
	// means all.
	Clients []string
	// Scenarios names the scenarios to run, in order (see ScenarioNames).
	// Nil means all.
	Scenarios []string
	// Callers is the number of concurrent callers. 0 means DefaultCallers.
	Callers int
	// Calls is the number of measured calls per cell and round. 0 means
	// DefaultCalls.
	Calls int
	// Rounds is the number of times each cell is measured; 0 (or less)
	// means DefaultRounds. Per scenario, round r measures every client
	// once, starting at client r mod len(Clients) and wrapping around, so
	// that no client always runs first or last. The report's cell pools
	// the rounds: its goodput is the median of the rounds' goodputs, every
	// other figure is over all the rounds' calls.
	Rounds int
	// Warmup is the number of healthy getBalance calls made before the
	// scenario's fault is applied and measuring starts. 0 means 4 per
	// caller; a negative value means none.
	Warmup int
	// SendEvery makes one call in SendEvery a sendTransaction. 0 means
	// DefaultSendEvery; a negative value means reads only.
	SendEvery int
	// CallTimeout bounds one call. 0 means DefaultCallTimeout.
	CallTimeout time.Duration
	// CellTimeout stops a cell, in each round, from starting new calls
	// after this long on the real clock; calls already started end by
	// their CallTimeout. 0 means DefaultCellTimeout.
	CellTimeout time.Duration
	// Seed seeds the scenarios' random faults. 0 means DefaultSeed.
	Seed uint64
	// Isolate runs each cell's cluster (a fresh one per round) in a child
	// process, so that the allocation counts are the client's alone. The
	// child is this program re-executed with the same arguments and
	// ChildEnv set: the program must call ServeChild before
	// doing anything else. False runs the cluster in this process.
	Isolate bool
	// Progress receives one line per finished cell and round, and one per
	// cell with the rounds pooled. Nil discards.
	Progress io.Writer
}

// normalized returns o with every zero default filled in.
func (o Options) normalized() Options {
	if o.Clients == nil {
		o.Clients = ClientNames()
	}
	if o.Scenarios == nil {
		o.Scenarios = ScenarioNames()
	}
	if o.Callers <= 0 {
		o.Callers = DefaultCallers
	}
	if o.Calls <= 0 {
		o.Calls = DefaultCalls
	}
	if o.Rounds <= 0 {
		o.Rounds = DefaultRounds
	}
	if o.Warmup == 0 {
		o.Warmup = 4 * o.Callers
	}
	o.Warmup = max(o.Warmup, 0)
	if o.SendEvery == 0 {
		o.SendEvery = DefaultSendEvery
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.CellTimeout <= 0 {
		o.CellTimeout = DefaultCellTimeout
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return o
}

// sends returns how many of calls are sendTransaction.
func (o *Options) sends(calls int) int {
	if o.SendEvery <= 0 {
		return 0
	}
	return calls / o.SendEvery
}

// isSend reports whether call i is a sendTransaction: the last of every
// SendEvery calls.
func (o *Options) isSend(i int) bool {
	return o.SendEvery > 0 && i%o.SendEvery == o.SendEvery-1
}
