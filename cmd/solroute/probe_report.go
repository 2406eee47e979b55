package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/slots"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
)

// probeReport is the result of "solroute probe", and its --json form.
type probeReport struct {
	// OK is true when at least one endpoint was probed and every probed
	// endpoint passed every check.
	OK bool `json:"ok"`
	// Cluster is the configuration's cluster key ("" when not set).
	Cluster string `json:"cluster,omitempty"`
	// ExpectedGenesis is the genesis hash Cluster stands for.
	ExpectedGenesis string `json:"expected_genesis_hash,omitempty"`
	// Address is the account getBalance asked for.
	Address string `json:"address"`
	// MaxSlotLag is the document's pool.max_slot_lag: how far off the
	// reference slot an endpoint may be before it is flagged (0: never
	// flagged, as the pool then never routes by lag).
	MaxSlotLag int `json:"max_slot_lag"`
	// SlotReference is the slot the endpoints' lags are counted from, at
	// confirmed, extrapolated to the last getSlot answer; absent when no
	// two endpoints answered within the corroboration window of each
	// other.
	SlotReference *uint64          `json:"slot_reference,omitempty"`
	Endpoints     []endpointReport `json:"endpoints"`
}

// endpointReport is what the canaries found on one endpoint.
type endpointReport struct {
	Name string `json:"name"`
	Tier int    `json:"tier"`
	// OK is true when the endpoint was probed and has no problem.
	OK bool `json:"ok"`
	// Skipped says why the endpoint was not probed ("" when it was).
	Skipped string `json:"skipped,omitempty"`
	// Problems lists every failed canary and a genesis mismatch.
	Problems        []string `json:"problems,omitempty"`
	Healthy         bool     `json:"healthy"`
	SolanaCore      string   `json:"solana_core,omitempty"`
	FeatureSet      *uint64  `json:"feature_set,omitempty"`
	GenesisHash     string   `json:"genesis_hash,omitempty"`
	GenesisCluster  string   `json:"genesis_cluster,omitempty"`
	GenesisMismatch bool     `json:"genesis_mismatch"`
	BalanceLamports *uint64  `json:"balance_lamports,omitempty"`
	BalanceSlot     *uint64  `json:"balance_slot,omitempty"`
	// Slot is getSlot's answer at SlotCommitment ("confirmed"). SlotLag
	// is how many slots the endpoint is behind the report's
	// SlotReference (negative: ahead), absent when there is none, and
	// SlotStanding "in-step", "lagging" or "outlier", as the pool would
	// rank it.
	Slot           *uint64        `json:"slot,omitempty"`
	SlotCommitment string         `json:"slot_commitment,omitempty"`
	SlotLag        *int64         `json:"slot_lag,omitempty"`
	SlotStanding   string         `json:"slot_standing,omitempty"`
	Canaries       []canaryResult `json:"canaries,omitempty"`
	mismatchNote   string         // the table's note on a mismatch
	slotNote       string         // the table's note on a lag
	// slotAt is when getSlot's answer came, on the probe's clock.
	slotAt time.Time
}

// canaryResult is one canary call.
type canaryResult struct {
	Method    string  `json:"method"`
	OK        bool    `json:"ok"`
	LatencyMS float64 `json:"latency_ms"`
	// Result summarises the answer for people ("" on failure).
	Result string `json:"result,omitempty"`
	// Error is the whole error text; it names endpoints by name only.
	Error string `json:"error,omitempty"`
	// Attempts is how many requests the canary made: 1, as probe makes
	// no retry of any kind; 0 when the pool admitted none.
	Attempts int `json:"attempts"`

	latency time.Duration
	at      time.Time // when the call returned, on the probe's clock
	brief   string    // a short form of Error for the table
}

// canary records a canary and, when it failed, a problem.
func (r *endpointReport) canary(c canaryResult) {
	r.Canaries = append(r.Canaries, c)
	if !c.OK {
		r.Problems = append(r.Problems, c.Method+": "+c.brief)
	}
}

// checkGenesis flags every endpoint whose genesis hash differs from the
// reference: the configured cluster's hash, or, when the configuration
// names no cluster, the hash most endpoints answered (the first of those in
// configuration order on a tie). The table's note is issue 13's sentence,
// "backup serves devnet; the document says mainnet-beta"; the problem
// says the same of the endpoint it belongs to.
func (r *probeReport) checkGenesis() {
	ref := r.ExpectedGenesis
	if ref == "" {
		count := map[string]int{}
		best := 0
		for _, ep := range r.Endpoints {
			if ep.GenesisHash == "" {
				continue
			}
			count[ep.GenesisHash]++
			if n := count[ep.GenesisHash]; n > best {
				best, ref = n, ep.GenesisHash
			}
		}
	}
	for i := range r.Endpoints {
		ep := &r.Endpoints[i]
		if ep.GenesisHash == "" || ep.GenesisHash == ref {
			continue
		}
		ep.GenesisMismatch = true
		says := "the other endpoints serve " + clusterOf(ref)
		if r.ExpectedGenesis != "" {
			says = "the document says " + clusterOf(ref)
		}
		serves := "serves " + clusterOf(ep.GenesisHash) + "; " + says
		ep.mismatchNote = "MISMATCH: " + ep.Name + " " + serves
		ep.Problems = append(ep.Problems, "wrong cluster: "+serves)
	}
}

// clusterOf names the cluster of a genesis hash for a sentence: its name
// when it is a public cluster's ("devnet"), "the cluster with genesis
// HASH" otherwise.
func clusterOf(hash string) string {
	if name := clusterName(hash); name != "" {
		return name
	}
	return "the cluster with genesis " + hash
}

// probeSlotTime is Solana's target slot time: checkSlots extrapolates a
// slot read earlier to a later instant at one slot per probeSlotTime, as
// the pool does.
const probeSlotTime = 400 * time.Millisecond

// checkSlots counts each endpoint's lag by the pool's rule
// (pool/slots.go): every getSlot answer is extrapolated to the instant of
// the last one (the endpoints are probed in parallel, but each answers
// after its own earlier canaries), the reference is the highest of those
// slots that another comes within maxLag of, and an endpoint more than
// maxLag behind it is lagging, more than maxLag ahead an outlier; either
// is a problem. With maxLag 0 (the pool's lag routing off) the window is
// the pool's default MaxSlotLag and nothing is flagged. Without a reference (one
// endpoint answered, or none within the window of another) no lag is
// known. An endpoint on another cluster (checkGenesis runs first) is left
// out: its slots are another chain's, and the pool never routes to it.
func (r *probeReport) checkSlots(maxLag int) {
	r.MaxSlotLag = maxLag
	window := uint64(max(maxLag, 0))
	if window == 0 {
		window = uint64(pool.DefaultSettings().MaxSlotLag)
	}
	var last time.Time
	for _, ep := range r.Endpoints {
		if ep.Slot != nil && !ep.GenesisMismatch && ep.slotAt.After(last) {
			last = ep.slotAt
		}
	}
	est := make([]uint64, len(r.Endpoints))
	for i, ep := range r.Endpoints {
		if ep.Slot != nil && !ep.GenesisMismatch { // another chain's slots compare with nothing
			est[i] = *ep.Slot + uint64(max(last.Sub(ep.slotAt), 0)/probeSlotTime)
		}
	}
	ref, ok := slots.ReferenceSlot(est, window) // the pool's own rule
	if !ok {
		return
	}
	r.SlotReference = &ref
	for i := range r.Endpoints {
		ep := &r.Endpoints[i]
		if est[i] == 0 {
			continue
		}
		lag := int64(ref - est[i]) // two's complement: ahead is negative
		ep.SlotLag = &lag
		standing := endpoint.InStep
		switch {
		case maxLag > 0 && lag > int64(maxLag):
			standing = endpoint.Lagging
			ep.slotNote = fmt.Sprintf("LAGGING: %d slots behind the others", lag)
			ep.Problems = append(ep.Problems, fmt.Sprintf("lagging: %d slots behind the others (max_slot_lag %d)", lag, maxLag))
		case maxLag > 0 && -lag > int64(maxLag):
			standing = endpoint.Outlier
			ep.slotNote = fmt.Sprintf("OUTLIER: %d slots ahead of the others", -lag)
			ep.Problems = append(ep.Problems, fmt.Sprintf("outlier: %d slots ahead of the others, which none comes near (max_slot_lag %d)", -lag, maxLag))
		}
		ep.SlotStanding = standing.String()
	}
}

// writeTable writes the report for people: one row per canary, then one
// verdict per endpoint.
func (r *probeReport) writeTable(w io.Writer) {
	cluster := "not set in the configuration"
	if r.Cluster != "" {
		cluster = r.Cluster
		if r.ExpectedGenesis != r.Cluster {
			cluster += " (" + r.ExpectedGenesis + ")"
		}
	}
	fmt.Fprintf(w, "probe: %d endpoint(s), each alone; cluster %s; address %s\n\n", len(r.Endpoints), cluster, r.Address)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ENDPOINT\tTIER\tLAG\tCANARY\tLATENCY\tRESULT")
	for _, ep := range r.Endpoints {
		if ep.Skipped != "" {
			fmt.Fprintf(tw, "%s\t%d\t-\t-\t-\tskipped: %s\n", ep.Name, ep.Tier, ep.Skipped)
			continue
		}
		lag := "-"
		if ep.SlotLag != nil {
			lag = fmt.Sprint(*ep.SlotLag)
		}
		for i, c := range ep.Canaries {
			name, tier, lagCell := "", "", ""
			if i == 0 {
				name, tier, lagCell = ep.Name, fmt.Sprint(ep.Tier), lag
			}
			result := c.Result
			switch {
			case !c.OK:
				result = "FAILED: " + c.brief
			case c.Method == "getGenesisHash" && ep.GenesisMismatch:
				result += "  " + ep.mismatchNote
			case c.Method == "getSlot" && ep.slotNote != "":
				result += "  " + ep.slotNote
			}
			if c.Attempts != 1 {
				// Never expected (one request per canary), never hidden.
				result += fmt.Sprintf("  (%d attempts)", c.Attempts)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, tier, lagCell, c.Method, short(c.latency), result)
		}
		if len(ep.Canaries) == 0 && len(ep.Problems) > 0 {
			fmt.Fprintf(tw, "%s\t%d\t-\t-\t-\tFAILED: %s\n", ep.Name, ep.Tier, ep.Problems[0])
		}
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	r.writeSlotLine(w)
	var failed []string
	for _, ep := range r.Endpoints {
		switch {
		case ep.Skipped != "":
			fmt.Fprintf(w, "%s: skipped\n", ep.Name)
		case ep.OK:
			fmt.Fprintf(w, "%s: ok\n", ep.Name)
		default:
			failed = append(failed, ep.Name)
			fmt.Fprintf(w, "%s: FAILED: %s\n", ep.Name, strings.Join(ep.Problems, "; "))
		}
	}
	switch {
	case len(failed) == 0 && r.OK:
		fmt.Fprintln(w, "probe: every probed endpoint passed")
		return
	case len(failed) == 0:
		fmt.Fprintln(w, "probe: FAILED: no endpoint could be probed (none serves the read role)")
		return
	}
	fmt.Fprintf(w, "probe: %d of %d endpoint(s) FAILED: %s\n", len(failed), len(r.Endpoints), strings.Join(failed, ", "))
}

// writeSlotLine says what LAG is counted from, or why it is not known.
func (r *probeReport) writeSlotLine(w io.Writer) {
	window := r.MaxSlotLag
	if window <= 0 {
		window = pool.DefaultSettings().MaxSlotLag
	}
	switch {
	case r.SlotReference != nil && r.MaxSlotLag > 0:
		fmt.Fprintf(w, "LAG: slots behind %d (confirmed), the highest slot another endpoint is within %d of (max_slot_lag)\n\n",
			*r.SlotReference, window)
	case r.SlotReference != nil:
		fmt.Fprintf(w, "LAG: slots behind %d (confirmed), the highest slot another endpoint is within %d of; "+
			"max_slot_lag is 0, so no lag is flagged\n\n", *r.SlotReference, window)
	default:
		fmt.Fprintf(w, "LAG: not known: no two endpoints answered getSlot within %d slots of each other\n\n", window)
	}
}

// clusterName names a public cluster's genesis hash ("" when unknown).
func clusterName(hash string) string {
	h, err := solana.HashFromBase58(hash)
	if err != nil {
		return ""
	}
	return engine.ClusterName(h)
}

// describeGenesis is the hash followed by its cluster's name when known.
func describeGenesis(hash string) string {
	if name := clusterName(hash); name != "" {
		return hash + " (" + name + ")"
	}
	return hash
}

// briefError is a short, secret-free description of a canary's error for
// the table: the JSON-RPC error, the HTTP status, or the transport's cause.
func briefError(err error) string {
	var rpcErr *transport.RPCError
	var status *transport.StatusError
	var callErr *transport.CallError
	var unhealthy *solroute.UnhealthyError
	switch {
	case errors.As(err, &unhealthy):
		return strings.TrimPrefix(unhealthy.Error(), "solroute: ")
	case errors.As(err, &rpcErr):
		return fmt.Sprintf("JSON-RPC error %d: %s", rpcErr.Code, rpcErr.Message)
	case errors.As(err, &status):
		return strings.TrimPrefix(status.Error(), "transport: ")
	case errors.As(err, &callErr):
		detail := callDetail(callErr)
		if n := len(callErr.Attempts); n > 0 {
			a := callErr.Attempts[n-1]
			return fmt.Sprintf("%s (%s): %s", a.Cause, a.Dispatch, detail)
		}
		if callErr.Cause != 0 {
			return callErr.Cause.String() + ": " + detail
		}
		return detail
	}
	return err.Error()
}

// callDetail is what ended a failed call, in the words of the error
// underneath: "dial tcp 127.0.0.1:8899: connect: connection refused",
// "attempt timed out", or the pool's reason when no attempt was made. Its
// first error is the last attempt's, whose own text starts with the
// endpoint's name: the table shows that already, so its cause is shown
// instead. Every error a CallError unwraps to is secret-free.
func callDetail(ce *transport.CallError) string {
	errs := ce.Unwrap()
	if len(errs) == 0 {
		return ce.Error()
	}
	first := errs[0]
	if len(ce.Attempts) > 0 {
		if inner := errors.Unwrap(first); inner != nil {
			first = inner
		}
	}
	return strings.TrimPrefix(first.Error(), "transport: ")
}
