package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/internal/engine"
	"github.com/solroute/solroute/internal/fixturespec"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
)

// The contract matrix: server behaviour × method class × client path, with
// deliveries counted by the servers. Endpoint a (tier 0) misbehaves, b
// (tier 1) is healthy. It asserts the README's send guarantee on every
// path: a call that is not Idempotent reaches a server that may act on it
// at most once, every failure after a server may have acted matches
// ErrAmbiguousDispatch, and a failure without it is one that no server
// acted on; and that reads still fail over.

// kind is what a behaviour of a proves, and so what each class must do.
type kind uint8

const (
	// okAtA: a answers (after an informational 1xx).
	okAtA kind = iota
	// failover: a failed, and may have acted: reads go to b; a call that
	// is not Idempotent stops, ambiguous.
	failover
	// elsewhere: a refused, proving it did not act, for a reason another
	// endpoint may not share: every class goes to b.
	elsewhere
	// rejected: a refused the request itself, proving it did not act:
	// every class stops, none ambiguous.
	rejected
	// acted: a answered with something any endpoint would repeat, but
	// which does not prove it did not act: every class stops, and a call
	// that is not Idempotent is ambiguous.
	acted
)

func (k kind) String() string {
	return [...]string{"ok-at-a", "failover", "elsewhere", "rejected", "acted"}[k]
}

// behaviour is one way a answers.
type behaviour struct {
	name  string
	fault fixtures.Fault
	kind  kind
	// body marks a fault inside a 200 answer, which a callback judges: the
	// transport cannot tell its error from the caller's.
	body bool
	// rpcCode is the JSON-RPC error code of an RPCError fault (per member
	// of a batch).
	rpcCode int
	// hang marks a behaviour only the attempt's timeout (or a hedge) ends.
	hang bool
	// refusal marks an answer that proves a did not act: a's requests are
	// not deliveries.
	refusal bool
}

// behaviours lists every 5xx, a sample of 1xx-4xx, the JSON-RPC refusals
// and errors, and every broken exchange.
func behaviours() []behaviour {
	var bs []behaviour
	status := func(code int, k kind) {
		bs = append(bs, behaviour{name: fmt.Sprintf("http-%d", code), fault: fixtures.Status(code, ""), kind: k,
			refusal: k == elsewhere || k == rejected})
	}
	status(103, okAtA)
	for _, code := range []int{300, 303, 304} {
		status(code, acted)
	}
	for _, code := range []int{301, 302, 307, 308, 401, 402, 403, 404, 405, 407, 421, 425, 429} {
		status(code, elsewhere)
	}
	for _, code := range []int{400, 411, 413, 414, 415, 431, 451} {
		status(code, rejected)
	}
	for _, code := range []int{406, 409, 410, 412, 418, 422, 428, 499} {
		status(code, acted)
	}
	status(408, failover)
	for code := 500; code <= 599; code++ {
		status(code, failover)
	}
	rpcErr := func(code int, k kind) {
		bs = append(bs, behaviour{name: fmt.Sprintf("rpc%d", code), fault: fixtures.RPC(code), kind: k, body: true,
			rpcCode: code, refusal: k == elsewhere || k == rejected})
	}
	rpcErr(429, elsewhere)
	rpcErr(-32005, elsewhere)
	rpcErr(-32016, elsewhere)
	rpcErr(-32002, rejected)
	rpcErr(-32602, rejected)
	rpcErr(-32007, acted) // the caller's (a skipped slot): any endpoint answers the same
	// The endpoint's (docs/errors.md): reads fail over; a send may have
	// been acted on, so it stops, ambiguous.
	rpcErr(-32603, failover)
	rpcErr(-32011, failover)
	rpcErr(-32000, failover)
	return append(bs, []behaviour{
		{name: "reset-on-accept", fault: fixtures.Fault{Kind: fixtures.ResetOnAccept}, kind: failover},
		{name: "reset-after-read", fault: fixtures.Fault{Kind: fixtures.ResetAfterRead}, kind: failover},
		{name: "hang", fault: fixtures.Fault{Kind: fixtures.Hang}, kind: failover, hang: true},
		{name: "truncated", fault: fixtures.Fault{Kind: fixtures.Truncated}, kind: failover, body: true},
		{name: "malformed", fault: fixtures.Fault{Kind: fixtures.Malformed}, kind: failover, body: true},
		{name: "html-200", fault: fixtures.Fault{Kind: fixtures.HTMLPage}, kind: failover, body: true},
		{name: "wrong-id", fault: fixtures.Fault{Kind: fixtures.WrongID}, kind: failover, body: true},
		{name: "oversized", fault: fixtures.Fault{Kind: fixtures.OversizedBody, Size: 8 << 10}, kind: failover},
		{name: "wrong-shape", fault: fixtures.Fault{Kind: fixtures.WrongShape}, kind: acted, body: true},
	}...)
}

// class is one kind of call.
type class struct {
	name       string
	idempotent bool
	batch      bool
}

var classes = []class{
	{name: "send"}, {name: "airdrop"}, {name: "read", idempotent: true}, {name: "unknown"},
	{name: "batch-send-read", batch: true}, {name: "batch-send-unknown", batch: true},
	{name: "declared", idempotent: true},
}

// path is one client entry point.
type path uint8

const (
	callForInto path = iota
	callWithCallback
	callBatch
	solanaGo
	hedgedRead
)

func (p path) String() string {
	return [...]string{"CallForInto", "CallWithCallback", "CallBatch", "solana-go", "hedged"}[p]
}

// paths lists the entry points a class is called through.
func (c class) paths() []path {
	switch {
	case c.batch:
		return []path{callBatch, solanaGo}
	case c.idempotent:
		return []path{callForInto, callWithCallback, solanaGo, hedgedRead}
	}
	return []path{callForInto, callWithCallback, solanaGo}
}

// Results the fake endpoints give for the methods they do not record.
const (
	airdropSig = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
	widgets    = `{"widgets":2}`
)

const (
	unknownMethod    = "getWidgetz" // nobody declared it
	declaredMethod   = "getWidget"  // declared an Idempotent read
	matrixHedgeAfter = 100 * time.Millisecond
)

// matrixClient is a fresh pool and client over the servers' specs: no
// state (doubt, cooldown, ejection) carries from one case to the next.
func matrixClient(t *testing.T, specs []endpoint.Spec, hedged bool) (*engine.Engine, *clockwork.FakeClock) {
	t.Helper()
	clock := clockwork.NewFakeClockAt(epoch)
	p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	s := conf{
		MaxResponseBytes: 4 << 10,
		Registry: declared(t, methods.Default(),
			methods.Method{Name: declaredMethod, Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}),
	}
	if hedged {
		s.HedgeAfter = matrixHedgeAfter
	}
	c := newClient(t, p, s)
	t.Cleanup(func() { _ = c.Close() })
	return c, clock
}

// strictCallback decodes a JSON-RPC answer's result into out, failing on
// an error member or a result that does not fit: what a careful caller of
// CallWithCallback writes.
func strictCallback(out any) func(*http.Request, *http.Response) error {
	return func(_ *http.Request, resp *http.Response) error {
		var env struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
			return err
		}
		if env.Error != nil {
			return fmt.Errorf("JSON-RPC error %d", env.Error.Code)
		}
		if len(env.Result) == 0 {
			return errors.New("no result")
		}
		return json.Unmarshal(env.Result, out)
	}
}

// invoke makes one call of class c through path p. sig is the
// transaction's signature for a call that sends one.
func invoke(ctx context.Context, t *testing.T, c *engine.Engine, cl class, p path, seed uint64) (sig string, err error) {
	tx, err := fixtures.SignedTransaction(seed, "")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	params, sig := signedTx(t, seed)
	var widget struct{ Widgets int }
	var got solana.Signature
	method, args, out := "", []any(nil), any(nil)
	switch cl.name {
	case "send":
		method, args, out = "sendTransaction", params, &got
	case "airdrop":
		method, args, out, sig = "requestAirdrop", []any{somePubkey.String(), 1}, &got, airdropSig
	case "read":
		var bal rpc.GetBalanceResult
		method, args, out, sig = "getBalance", []any{somePubkey.String()}, &bal, ""
	case "unknown":
		method, out, sig = unknownMethod, &widget, ""
	case "declared":
		method, out, sig = declaredMethod, &widget, ""
	case "batch-send-read":
		method = "batch"
	case "batch-send-unknown":
		method = "batch"
	}
	if cl.batch {
		reqs := jsonrpc.RPCRequests{{Method: "getSlot"}, {Method: "sendTransaction", Params: params}}
		if cl.name == "batch-send-unknown" {
			reqs[0].Method = unknownMethod
		}
		if p == solanaGo {
			_, err = rpc.NewWithCustomRPCClient(c).RPCCallBatch(ctx, reqs)
		} else {
			_, err = c.CallBatch(ctx, reqs)
		}
		return sig, err
	}
	switch p {
	case callForInto, hedgedRead:
		err = c.CallForInto(ctx, out, method, args)
	case callWithCallback:
		err = c.CallWithCallback(ctx, method, args, strictCallback(out))
	case solanaGo:
		sc := rpc.NewWithCustomRPCClient(c)
		switch cl.name {
		case "send":
			_, err = sc.SendRawTransactionWithOpts(ctx, raw, rpc.TransactionOpts{SkipPreflight: true})
		case "airdrop":
			_, err = sc.RequestAirdrop(ctx, somePubkey, 1, rpc.CommitmentFinalized)
		case "read":
			_, err = sc.GetBalance(ctx, somePubkey, rpc.CommitmentFinalized)
		default:
			err = sc.RPCCallForInto(ctx, out, method, nil)
		}
	}
	return sig, err
}

// expectation is what one case must end with.
type expectation struct {
	ok        bool
	ambiguous bool
	// servedBy is the endpoint whose answer a successful call returns.
	servedBy string
}

// expect derives the verdict of behaviour b for class cl on path p from
// the behaviour's kind, adjusted where the path judges the body itself.
func expect(b behaviour, cl class, p path) expectation {
	k := b.kind
	switch {
	case p == callWithCallback && b.rpcCode != 0 && (k == elsewhere || k == failover):
		// the endpoint's JSON-RPC error never reaches the callback: it is
		// judged as CallForInto's is (callbackExchange.call)
	case p == callWithCallback && b.body && b.fault.Kind == fixtures.WrongID:
		k = okAtA // the callback reads the result, not the id
	case p == callWithCallback && b.body:
		k = acted // the callback's error: the transport cannot see inside it
	case cl.batch && b.rpcCode != 0 && k != elsewhere:
		k = okAtA // member errors are the caller's to read
	case cl.batch && b.fault.Kind == fixtures.WrongShape:
		k = okAtA // a batch hands results over raw
	}
	switch k {
	case okAtA:
		return expectation{ok: true, servedBy: "a"}
	case elsewhere:
		return expectation{ok: true, servedBy: "b"}
	case failover:
		if cl.idempotent {
			return expectation{ok: true, servedBy: "b"}
		}
		return expectation{ambiguous: true}
	case rejected:
		return expectation{}
	}
	return expectation{ambiguous: !cl.idempotent} // acted
}

// requestsOf counts the HTTP requests s read in full (a batch is one)
// that carry one of cl's methods. A request of an earlier case that was
// still on its way when it ended (a hedge's loser, cut by its call's end)
// may reach the server during this case: it carries another class's
// method, so it is not counted as this case's delivery.
func requestsOf(s *fixtures.Server, cl class) int {
	want := cl.methods()
	seen := map[int]bool{}
	for _, r := range s.Requests() {
		if slices.Contains(want, r.Method) {
			seen[r.N] = true
		}
	}
	return len(seen)
}

// methods lists the JSON-RPC methods cl's requests carry.
func (cl class) methods() []string {
	switch cl.name {
	case "send":
		return []string{"sendTransaction"}
	case "airdrop":
		return []string{"requestAirdrop"}
	case "read":
		return []string{"getBalance"}
	case "unknown":
		return []string{unknownMethod}
	case "declared":
		return []string{declaredMethod}
	case "batch-send-read":
		return []string{"getSlot", "sendTransaction"}
	case "batch-send-unknown":
		return []string{unknownMethod, "sendTransaction"}
	}
	panic("contract matrix: a class without its methods: " + cl.name)
}

func TestContractMatrix(t *testing.T) {
	results := map[string]json.RawMessage{
		"requestAirdrop": json.RawMessage(`"` + airdropSig + `"`),
		unknownMethod:    json.RawMessage(widgets),
		declaredMethod:   json.RawMessage(widgets),
	}
	serverClock := clockwork.NewFakeClockAt(epoch) // never advanced
	seed := uint64(1 << 20)
	cases := 0
	for _, b := range behaviours() {
		t.Run(b.name, func(t *testing.T) {
			a, bb := member("a", 0), member("b", 1)
			for _, m := range []*fixtures.Member{&a, &bb} {
				m.Options.Clock, m.Options.Results = serverClock, results
			}
			a.Options.Script = fixtures.Always(b.fault)
			cluster := fixtures.NewCluster([]fixtures.Member{a, bb})
			t.Cleanup(cluster.Close)
			sa, sb := cluster.Server("a"), cluster.Server("b")
			for _, cl := range classes {
				for _, p := range cl.paths() {
					seed++
					cases++
					name := cl.name + "/" + p.String()
					c, clock := matrixClient(t, fixturespec.Specs(cluster), p == hedgedRead)
					beforeA, beforeB := requestsOf(sa, cl), requestsOf(sb, cl)
					numberA := sa.Stats().Requests
					ctx := guardCtx(t)
					s := seed
					var sig string
					done := async(func() (err error) {
						sig, err = invoke(context.Background(), t, c, cl, p, s)
						return err
					})
					if b.hang {
						// a has the request; end the attempt (or hedge it).
						if err := sa.WaitRequests(ctx, numberA+1); err != nil {
							t.Fatalf("%s: a never got the request: %v", name, err)
						}
						waiters, d := 1, 500*time.Millisecond // half the call's 1 s budget
						if !cl.idempotent {
							// A request the server read that is not
							// Idempotent is not cut before the deadline.
							d = time.Second
						}
						if p == hedgedRead {
							waiters, d = 2, matrixHedgeAfter // the attempt's timer and the hedge's
						}
						if err := clock.BlockUntilContext(ctx, waiters); err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						clock.Advance(d)
					}
					err := wait(t, done)
					want := expect(b, cl, p)
					gotA, gotB := requestsOf(sa, cl)-beforeA, requestsOf(sb, cl)-beforeB
					desc := fmt.Sprintf("%s: err=%v a=%d b=%d", name, err, gotA, gotB)
					if (err == nil) != want.ok {
						t.Errorf("%s: want ok=%v", desc, want.ok)
						continue
					}
					if amb := errors.Is(err, engine.ErrAmbiguousDispatch); amb != want.ambiguous {
						t.Errorf("%s: ambiguous=%v, want %v", desc, amb, want.ambiguous)
					}
					if !cl.idempotent {
						// Deliveries to a server that may have acted.
						acted := gotB
						if !b.refusal {
							acted += gotA
						}
						if acted > 1 {
							t.Errorf("%s: delivered %d times", desc, acted)
						}
						if err != nil && !errors.Is(err, engine.ErrAmbiguousDispatch) && (acted > 0 || b.fault.Kind == fixtures.ResetOnAccept) {
							t.Errorf("%s: a plain failure after a server may have acted", desc)
						}
						if sig != "" && cl.name == "send" && p != solanaGo {
							n := sb.Deliveries(sig)
							if !b.refusal {
								n += sa.Deliveries(sig)
							}
							if n > 1 {
								t.Errorf("%s: signature delivered %d times", desc, n)
							}
						}
					}
					if want.ok {
						switch {
						case want.servedBy == "a" && gotB != 0:
							t.Errorf("%s: want a's answer, b was asked", desc)
						case want.servedBy == "b" && gotB != 1:
							t.Errorf("%s: want b's answer (one request)", desc)
						}
					}
				}
			}
		})
	}
	t.Logf("%d cases", cases)
}
