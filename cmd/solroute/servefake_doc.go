package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
	"github.com/solroute/solroute/internal/fixturespec"
)

// fakeRoles says what each member of the Mainnet preset does, for the
// document's comments.
var fakeRoles = map[string]string{
	fixturedata.MainnetHonestA: "answers truthfully, drifting 0 to 5 slots behind the tip",
	fixturedata.MainnetHonestB: "answers truthfully, drifting 0 to 5 slots behind the tip",
	fixturedata.MainnetHonestC: "answers truthfully (a backup)",
	fixturedata.MainnetLiar:    "lies: getSlot 3 slots ahead, block heights 40 ahead, a stale status cache",
	fixturedata.MainnetFlaky: fmt.Sprintf("answers %.0f%% of its reads at once with the node's own errors (-32603, ...)",
		100*fixturedata.MainnetEndpointErrorRate),
	fixturedata.MainnetGarbled: fmt.Sprintf("garbles %.0f%% of its answers (a result and an error in one envelope, ...)",
		100*fixturedata.MainnetGarbleRate),
	fixturedata.MainnetDead: "reads only; reads every request and never answers",
}

// fakeRequestTimeout is every role's request_timeout in the document: a
// request to the dead endpoint gives up after it, not after the default
// 10 s.
const fakeRequestTimeout = "2s"

// document is the configuration document of the fake cluster: comments
// that say what each endpoint does and what to try, then cluster and
// every endpoint with its roles.
func (fc *fakeCluster) document(seed uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# solroute serve-fake --seed %d: %d fake endpoints on loopback (package fixtures' Mainnet preset),\n",
		seed, len(fixturespec.Specs(fc.cluster)))
	b.WriteString("# a fake mainnet-beta with a ledger, served until solroute serve-fake is interrupted. Nothing\n")
	b.WriteString("# here is a real provider; the ports change on every run.\n#\n")
	for _, s := range fixturespec.Specs(fc.cluster) {
		fmt.Fprintf(&b, "#   %-9s tier %d  %s\n", s.Name, s.Tier, fakeRoles[s.Name])
	}
	fmt.Fprintf(&b, "#   the chain stalls (no new slot anywhere) for %s from %s after the start, then about every %s\n#\n",
		short(fixturedata.MainnetStallFor), short(fixturedata.MainnetStallFirst), short(fixturedata.MainnetStallEvery))
	b.WriteString("# Try, with this document saved as fake.toml:\n")
	b.WriteString("#   solroute probe --config fake.toml\n")
	b.WriteString("#   solroute call --config fake.toml getSlot '[{\"commitment\":\"confirmed\"}]'\n")
	b.WriteString("#   solroute call --config fake.toml --attempts getBalance '[\"11111111111111111111111111111111\"]'\n")
	fmt.Fprintf(&b, "#   read -r tx lvbh < <(curl -s %s)   # a transfer signed now, valid about a minute\n", fc.txURL)
	b.WriteString("#   solroute send --config fake.toml --confirm --last-valid-block-height \"$lvbh\" \"$tx\"\n")
	b.WriteString("#   solroute send --config fake.toml \"$tx\"   # prints the signature SIG; then:\n")
	b.WriteString("#   solroute confirm --config fake.toml SIG --last-valid-block-height \"$lvbh\"\n")
	fmt.Fprintf(&b, "#   solroute watch --config fake.toml slot --count 20   # PubSub on %s\n\n", strings.Join(fc.pubsubNames(), ", "))
	b.WriteString("cluster = \"mainnet-beta\"\n")
	for _, s := range fixturespec.Specs(fc.cluster) {
		fmt.Fprintf(&b, "\n[[endpoints]]\nname = %q\nurl = %q\ntier = %d\n", s.Name, s.URL.Reveal(), s.Tier)
		if p := fc.cluster.PubSub(s.Name); p != nil {
			fmt.Fprintf(&b, "ws_url = %q\n", p.URL())
		}
		for _, role := range []endpoint.Role{endpoint.RoleRead, endpoint.RoleSend} {
			if _, ok := s.Roles[role]; ok {
				fmt.Fprintf(&b, "  [endpoints.roles.%s]\n  request_timeout = %q\n", role, fakeRequestTimeout)
			}
		}
		if fc.cluster.PubSub(s.Name) != nil {
			b.WriteString("  [endpoints.subscribe]\n")
		}
	}
	return b.String()
}

// pubsubNames lists the endpoints that serve PubSub, in member order.
func (fc *fakeCluster) pubsubNames() []string {
	var out []string
	for _, s := range fixturespec.Specs(fc.cluster) {
		if fc.cluster.PubSub(s.Name) != nil {
			out = append(out, s.Name)
		}
	}
	return out
}

// fakeSignedAge is how many blocks below the cluster's confirmed height
// the transaction URL's transfers take their blockhash: an endpoint that
// drifts (up to 5 slots behind the tip) still knows it at confirmed, the
// preflight's bank.
const fakeSignedAge = 8

// fakeSigner answers the transaction URL: a fresh transfer signed on a
// recent blockhash of the fake chain, each with a signature of its own.
type fakeSigner struct {
	ledger *fixtures.Ledger
	mu     sync.Mutex
	next   uint64 // the next transfer's seed
}

// serve writes "TX LAST_VALID_BLOCK_HEIGHT\n", TX in base64.
func (s *fakeSigner) serve(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	seed := s.next
	s.next++
	s.mu.Unlock()
	_, tip := s.ledger.Tip()
	height := tip - min(tip, fixturedata.ConfirmedDepth+fakeSignedAge)
	tx, err := fixtures.SignedTransaction(seed, fixturedata.BlockhashAt(height))
	var wire string
	if err == nil {
		wire, err = fixtures.EncodeTransaction(tx)
	}
	if err != nil {
		http.Error(w, "cannot sign: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "%s %d\n", wire, height+fixturedata.MaxProcessingAge)
}
