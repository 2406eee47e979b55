package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/fixturespec"
)

const serveFakeAbout = `
Keep a fake cluster up on loopback, to try probe, call, send, confirm and
watch on: seven fake endpoints that behave as a provider mix on mainnet does
(package fixtures' Mainnet preset: honest ones, a liar, a flaky one, one
that garbles answers, a dead one, on a chain that stalls now and then) and
keep a small ledger, so that sends land and confirm finds them; the three
honest ones also serve PubSub (ws_url), for watch. It writes
a ready configuration document naming them, to stdout or to --out FILE,
then serves until it is interrupted (Ctrl-C).

The document's comments say what each endpoint does and give command lines
to try. Sending needs a signed transaction on the fake chain's blockhash:
GET the document's transaction URL (another loopback port) for a transfer
signed there and then, with its lastValidBlockHeight, on one line:
TX LAST_VALID_BLOCK_HEIGHT. It stays valid about a minute, as on mainnet.

Nothing it serves is real: no network, no key worth anything, new ports on
every run. Exit code 0 once interrupted, 1 when the cluster cannot start or
--out cannot be written, 2 for a usage error.`

const serveFakeExample = `
solroute serve-fake --out fake.toml
solroute serve-fake --seed 7 > fake.toml`

// serveFakeReady ends the document on stdout: a reader waiting for the
// cluster reads up to this line.
const serveFakeReady = "# ready: serving until interrupted (Ctrl-C)"

// runServeFake is "solroute serve-fake".
func runServeFake(ctx context.Context, e *env, args []string) int {
	f := newFlags("serve-fake", "serve-fake [--out FILE] [--seed N]", serveFakeAbout, serveFakeExample)
	out := f.String("out", "", "write the configuration document to `FILE` (replaced whole, once the cluster serves) instead of stdout")
	seed := f.Uint64("seed", 1, "seed `N` of every endpoint's behaviour: its drift, the stalls, which requests fail or are garbled")
	pos, code, done := f.parse(e, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.usageError("serve-fake", "unexpected argument %q: serve-fake takes flags only", pos[0])
	}
	fake, err := startFake(*seed, e)
	if err != nil {
		fmt.Fprintf(e.stderr, "solroute serve-fake: cannot start the fake cluster: %v\n", err)
		return exitFailed
	}
	defer fake.close()
	doc := fake.document(*seed)
	if *out == "" {
		fmt.Fprintf(e.stdout, "%s%s\n", doc, serveFakeReady)
	} else {
		if err := writeWhole(*out, doc); err != nil {
			fmt.Fprintf(e.stderr, "solroute serve-fake: cannot write --out: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(e.stdout, "solroute serve-fake: %d fake endpoints on loopback; the document is in %s\n%s\n",
			len(fixturespec.Specs(fake.cluster)), *out, serveFakeReady)
	}
	<-ctx.Done()
	return exitOK
}

// fakeCluster is what serve-fake serves: the Mainnet preset's endpoints
// on one ledger, and the transaction URL.
type fakeCluster struct {
	cluster *fixtures.Cluster
	ledger  *fixtures.Ledger
	txURL   string
	txSrv   *http.Server
	txDone  chan struct{}
}

// startFake starts the Mainnet preset of seed on e's clock, with a
// ledger, and the transaction URL's server.
func startFake(seed uint64, e *env) (*fakeCluster, error) {
	ledger := fixtures.NewLedger()
	cluster, err := startCluster(withPubSub(fixtures.Mainnet(fixtures.MainnetOptions{Seed: seed, Clock: e.clock, Ledger: ledger})))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cluster.Close()
		return nil, err
	}
	fc := &fakeCluster{cluster: cluster, ledger: ledger, txURL: "http://" + ln.Addr().String() + "/transaction",
		txDone: make(chan struct{})}
	signer := &fakeSigner{ledger: ledger, next: seed << 32}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /transaction", signer.serve)
	fc.txSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(fc.txDone)
		_ = fc.txSrv.Serve(ln)
	}()
	return fc, nil
}

// fakePubSub names the members that also serve PubSub (ws_url and an
// [endpoints.subscribe] table in the document), for watch: the three
// honest ones, so that a subscription has two tiers to fail over across.
var fakePubSub = map[string]bool{fixturedata.MainnetHonestA: true, fixturedata.MainnetHonestB: true, fixturedata.MainnetHonestC: true}

// withPubSub gives the members fakePubSub names a PubSub.
func withPubSub(ms []fixtures.Member) []fixtures.Member {
	for i := range ms {
		if fakePubSub[ms[i].Name] {
			ms[i].PubSub = &fixtures.PubSubOptions{}
		}
	}
	return ms
}

// close stops the transaction URL's server and the cluster.
func (fc *fakeCluster) close() {
	_ = fc.txSrv.Close()
	<-fc.txDone
	fc.cluster.Close()
}

// writeWhole writes data to path through a temporary file in its folder,
// renamed over it: a reader sees the whole document or none.
func writeWhole(path, data string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".serve-fake-*.toml")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	if _, err := tmp.WriteString(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
