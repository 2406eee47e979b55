package main

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
)

// chain is fake endpoints on loopback that share a ledger and one fake
// clock, the clock the commands under test run on, and a configuration
// that names them.
type chain struct {
	t       *testing.T
	clock   *clockwork.FakeClock
	ledger  *fixtures.Ledger
	servers []*fixtures.Server
	cfg     string
}

// chainNode is one endpoint of a chain: its name, how many slots it is
// behind, and a fault for every sendTransaction it receives.
type chainNode struct {
	name      string
	lag       uint64
	sendFault fixtures.Fault
}

func newChain(t *testing.T, nodes ...chainNode) *chain {
	t.Helper()
	// A fixed instant far ahead of the real time: a deadline on this clock
	// (--timeout) is also one for the real dialer, which must never meet
	// it.
	clock := clockwork.NewFakeClockAt(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
	ledger := fixtures.NewLedger()
	ch := &chain{t: t, clock: clock, ledger: ledger}
	var eps []testEndpoint
	for _, n := range nodes {
		o := fixtures.Options{Name: n.name, Clock: clock, Ledger: ledger, Slots: &fixtures.SlotOptions{Start: 1000, Lag: n.lag}}
		if n.sendFault.Kind != fixtures.None {
			o.Script = fixtures.ByMethod(map[string]fixtures.Fault{"sendTransaction": n.sendFault})
		}
		s := startServer(t, o)
		ch.servers = append(ch.servers, s)
		eps = append(eps, testEndpoint{name: n.name, url: s.URL()})
	}
	ch.cfg = writeConfig(t, "", eps...)
	return ch
}

// tx signs transaction seed on the blockhash of the confirmed block
// height less age,
// and returns it, its base64 wire bytes and its lastValidBlockHeight.
func (ch *chain) tx(seed uint64, age uint64) (tx *solana.Transaction, wire string, lvbh uint64) {
	ch.t.Helper()
	_, tip := ch.ledger.Tip()
	// getLatestBlockhash at confirmed: the preflight, on the confirmed
	// bank, knows it.
	height := tip - fixturedata.ConfirmedDepth
	tx, err := fixtures.SignedTransaction(seed, fixturedata.BlockhashAt(height-age))
	if err != nil {
		ch.t.Fatal(err)
	}
	wire, err = fixtures.EncodeTransaction(tx)
	if err != nil {
		ch.t.Fatal(err)
	}
	return tx, wire, height - age + fixturedata.MaxProcessingAge
}

// sends counts the sendTransaction requests the chain's endpoints
// received.
func (ch *chain) sends() int {
	n := 0
	for _, s := range ch.servers {
		n += s.Stats().Calls["sendTransaction"]
	}
	return n
}

// run runs the command with args on the chain's clock, as the binary
// would, and advances the clock one slot after each poll of its
// resolution: by then the command waits on two timers only, its --timeout
// (timeout) and the poll interval. A step never goes past the timeout, so
// that the deadline fires alone (timeout must not be a multiple of the
// slot time). At most maxPolls polls.
func (ch *chain) run(timeout time.Duration, maxPolls int, args ...string) result {
	ch.t.Helper()
	polled := make(chan struct{})
	var out, errb lockedBuffer
	e := &env{stdout: &out, stderr: &errb, clock: ch.clock, buildInfo: debug.ReadBuildInfo,
		onPoll: func(confirm.Result) { polled <- struct{}{} }}
	guard, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard, never asserted on
	defer cancel()
	// stopped ends when the command returns: the driver then waits for no
	// timer.
	stopped, stop := context.WithCancel(guard)
	defer stop()
	done := make(chan int, 1)
	go func() {
		done <- e.dispatch(context.Background(), args)
		stop()
	}()
	var elapsed time.Duration
	for n := 0; ; n++ {
		select {
		case code := <-done:
			return result{code: code, stdout: out.String(), stderr: errb.String()}
		case <-polled:
		case <-guard.Done():
			ch.t.Fatalf("%v hung", args)
		}
		if n == maxPolls {
			ch.t.Fatalf("%v: no verdict after %d polls", args, maxPolls)
		}
		if err := ch.clock.BlockUntilContext(stopped, 2); err != nil {
			if guard.Err() != nil {
				ch.t.Fatal(err)
			}
			continue // the command returned instead of waiting
		}
		step := min(fixturedata.DefaultSlotTime, timeout-elapsed)
		if step <= 0 {
			ch.t.Fatalf("%v: still polling at its --timeout %v", args, timeout)
		}
		ch.clock.Advance(step)
		elapsed += step
	}
}

// lockedBuffer is a bytes.Buffer safe for the command's goroutine and the
// test's.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// sendOnce sends wire through the chain with "solroute send" (no
// confirmation), as a user would before "solroute confirm", and checks
// that it printed the signature.
func (ch *chain) sendOnce(tx *solana.Transaction, wire string, extra ...string) {
	ch.t.Helper()
	r := ch.run(defaultResolveTimeout, 0, append([]string{"send", "--config", ch.cfg, wire}, extra...)...)
	r.wantCode(ch.t, exitOK)
	if got, want := strings.TrimSpace(r.stdout), tx.Signatures[0].String(); got != want {
		ch.t.Fatalf("send printed %q, want the signature %s", r.stdout, want)
	}
}

// wantLines fails the test unless out holds every line of want, each a
// whole line.
func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	have := lines(out)
	for _, w := range want {
		found := false
		for _, l := range have {
			found = found || l == w
		}
		if !found {
			t.Errorf("output lacks the line %q:\n%s", w, out)
		}
	}
}

// decodeReport decodes a --json report, refusing unknown fields.
func decodeReport(t *testing.T, out string) resolutionReport {
	t.Helper()
	var rep resolutionReport
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	return rep
}

// compact is js without insignificant space.
func compact(t *testing.T, js []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, js); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	return b.String()
}
