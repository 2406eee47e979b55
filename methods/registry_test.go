package methods_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/retrypolicy"
)

// agaveMethods is the HTTP method list of agave's rpc/src/rpc.rs.
var agaveMethods = []string{
	"getAccountInfo", "getBalance", "getBlock", "getBlockCommitment", "getBlockHeight",
	"getBlockProduction", "getBlockTime", "getBlocks", "getBlocksWithLimit", "getClusterNodes",
	"getEpochInfo", "getEpochSchedule", "getFeeForMessage", "getFirstAvailableBlock",
	"getGenesisHash", "getHealth", "getHighestSnapshotSlot", "getIdentity",
	"getInflationGovernor", "getInflationRate", "getInflationReward", "getLargestAccounts",
	"getLatestBlockhash", "getLeaderSchedule", "getMaxRetransmitSlot", "getMaxShredInsertSlot",
	"getMinimumBalanceForRentExemption", "getMultipleAccounts", "getProgramAccounts",
	"getRecentPerformanceSamples", "getRecentPrioritizationFees", "getSignatureStatuses",
	"getSignaturesForAddress", "getSlot", "getSlotLeader", "getSlotLeaders",
	"getStakeMinimumDelegation", "getSupply", "getTokenAccountBalance",
	"getTokenAccountsByDelegate", "getTokenAccountsByOwner", "getTokenLargestAccounts",
	"getTokenSupply", "getTransaction", "getTransactionCount", "getVersion", "getVoteAccounts",
	"isBlockhashValid", "minimumLedgerSlot", "requestAirdrop", "sendTransaction",
	"simulateTransaction",
}

func TestDefaultRolesAndClasses(t *testing.T) {
	r := methods.Default()
	for _, tc := range []struct {
		method string
		want   methods.Method
	}{
		{"sendTransaction", methods.Method{Role: endpoint.RoleSend, Class: retrypolicy.NeverAfterDispatch}},
		{"requestAirdrop", methods.Method{Role: endpoint.RoleSend, Class: retrypolicy.NeverAfterDispatch}},
		{"simulateTransaction", methods.Method{Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}},
		{"getBalance", methods.Method{Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}},
		{"getRecentBlockhash", methods.Method{Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}},
	} {
		t.Run(tc.method, func(t *testing.T) {
			got, ok := r.Lookup(tc.method)
			if !ok || got != named(tc.method, tc.want) {
				t.Fatalf("Lookup(%q) = %+v, %v; want %+v, true", tc.method, got, ok, tc.want)
			}
		})
	}
}

func TestDefaultCoversAgave(t *testing.T) {
	r := methods.Default()
	for _, m := range agaveMethods {
		e, ok := r.Lookup(m)
		if !ok {
			t.Errorf("%s: missing", m)
			continue
		}
		send := m == "sendTransaction" || m == "requestAirdrop"
		if send != (e.Role == endpoint.RoleSend) || send != (e.Class == retrypolicy.NeverAfterDispatch) {
			t.Errorf("%s: %+v", m, e)
		}
		if !send && e.Class != retrypolicy.Idempotent {
			t.Errorf("%s: class %v, want Idempotent", m, e.Class)
		}
	}
}

// recorder is a JSONRPCClient that records method names and answers nothing.
type recorder struct {
	mu      sync.Mutex
	methods map[string]bool
}

func (r *recorder) add(m string) {
	r.mu.Lock()
	r.methods[m] = true
	r.mu.Unlock()
}

func (r *recorder) CallForInto(_ context.Context, _ any, method string, _ []any) error {
	r.add(method)
	return nil
}

func (r *recorder) CallWithCallback(_ context.Context, method string, _ []any, _ func(*http.Request, *http.Response) error) error {
	r.add(method)
	return nil
}

func (r *recorder) CallBatch(_ context.Context, reqs jsonrpc.RPCRequests) (jsonrpc.RPCResponses, error) {
	for _, q := range reqs {
		r.add(q.Method)
	}
	return nil, nil
}

// TestDefaultCoversSolanaGo calls every method of solana-go's *rpc.Client
// with zero arguments through a recording JSONRPCClient and checks that the
// registry knows every method name it sends.
func TestDefaultCoversSolanaGo(t *testing.T) {
	rec := &recorder{methods: map[string]bool{}}
	cl := rpc.NewWithCustomRPCClient(rec)
	v := reflect.ValueOf(cl)
	ctxType := reflect.TypeFor[context.Context]()
	for i := range v.NumMethod() {
		m := v.Type().Method(i)
		ft := m.Func.Type()
		if ft.NumIn() < 2 || ft.In(1) != ctxType || m.Name == "RPCCallForInto" ||
			m.Name == "RPCCallWithCallback" || m.Name == "RPCCallBatch" {
			continue
		}
		args := []reflect.Value{reflect.ValueOf(context.Background())}
		for j := 2; j < ft.NumIn(); j++ {
			args = append(args, reflect.Zero(ft.In(j)))
		}
		func() {
			defer func() { _ = recover() }() // some methods dereference their zero options
			v.Method(i).Call(args)
		}()
	}
	t.Logf("solana-go sent %d distinct methods", len(rec.methods))
	if len(rec.methods) < 50 {
		t.Fatalf("recorded only %d methods; the sweep is broken", len(rec.methods))
	}
	r := methods.Default()
	for m := range rec.methods {
		if _, ok := r.Lookup(m); !ok {
			t.Errorf("solana-go calls %q; the registry does not know it", m)
		}
	}
}

func TestUnknownAndWith(t *testing.T) {
	base := methods.Default()
	want := methods.Method{Role: endpoint.RoleRead, Class: retrypolicy.NeverAfterDispatch}
	if e, ok := base.Lookup("getAssetz"); ok || e != named("getAssetz", want) {
		t.Fatalf("unknown: %+v, %v", e, ok)
	}
	if e, ok := base.Lookup("GetBalance"); ok || e != named("GetBalance", want) {
		t.Fatalf("names are case-sensitive: %+v, %v", e, ok)
	}
	custom := methods.Method{Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}
	ext := base.With("getAssetz", custom)
	if e, ok := ext.Lookup("getAssetz"); !ok || e != named("getAssetz", custom) {
		t.Fatalf("With: %+v, %v", e, ok)
	}
	if _, ok := base.Lookup("getAssetz"); ok {
		t.Fatal("With changed the original")
	}
	if ext.Len() != base.Len()+1 {
		t.Fatalf("Len %d, want %d", ext.Len(), base.Len()+1)
	}
	var nilReg *methods.Registry
	if e, ok := nilReg.Lookup("getBalance"); ok || e != named("getBalance", want) {
		t.Fatalf("nil registry: %+v, %v", e, ok)
	}
	if e, ok := nilReg.With("x", custom).Lookup("x"); !ok || e != named("x", custom) {
		t.Fatalf("nil With: %+v, %v", e, ok)
	}
}

// TestProviderMethods: the providers' send methods are sends, their
// reads are reads; the block engine's reads are served by its send role
// (plans/017, "Send-only endpoints and bundles"), never resent-unsafe.
func TestProviderMethods(t *testing.T) {
	r := methods.Default()
	for m, want := range map[string]methods.Method{
		"sendBundle":                {Role: endpoint.RoleSend, Class: retrypolicy.NeverAfterDispatch},
		"getAsset":                  {Role: endpoint.RoleRead, Class: retrypolicy.Idempotent},
		"searchAssets":              {Role: endpoint.RoleRead, Class: retrypolicy.Idempotent, Timeout: methods.HeavyTimeout},
		"getPriorityFeeEstimate":    {Role: endpoint.RoleRead, Class: retrypolicy.Idempotent},
		"getTipAccounts":            {Role: endpoint.RoleSend, Class: retrypolicy.Idempotent},
		"getBundleStatuses":         {Role: endpoint.RoleSend, Class: retrypolicy.Idempotent},
		"getInflightBundleStatuses": {Role: endpoint.RoleSend, Class: retrypolicy.Idempotent},
		"simulateBundle":            {Role: endpoint.RoleRead, Class: retrypolicy.Idempotent},
	} {
		if e, ok := r.Lookup(m); !ok || e != named(m, want) {
			t.Errorf("%s: %+v, %v; want %+v", m, e, ok, want)
		}
	}
}

func TestMethodsSortedAndComplete(t *testing.T) {
	ms := methods.Default().Names()
	if !slices.IsSorted(ms) {
		t.Fatal("Methods not sorted")
	}
	if len(slices.Compact(slices.Clone(ms))) != len(ms) {
		t.Fatal("duplicate method")
	}
	if len(ms) != methods.Default().Len() {
		t.Fatalf("Methods %d, Default %d", len(ms), methods.Default().Len())
	}
}

func ExampleRegistry_Lookup() {
	r := methods.Default()
	e, known := r.Lookup("sendTransaction")
	fmt.Println(e.Role, known)
	e, known = r.Lookup("getMyOwnMethod")
	fmt.Println(e.Class, known)
	// Output:
	// send true
	// never-after-dispatch false
}

func TestDeclare(t *testing.T) {
	base := methods.Default()
	read := methods.Method{Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}
	r, err := base.Declare(named("getWidget", read))
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := r.Lookup("getWidget"); !ok || e != named("getWidget", read) {
		t.Fatalf("declared: %+v %v", e, ok)
	}
	if _, ok := base.Lookup("getWidget"); ok {
		t.Fatal("Declare changed its receiver")
	}
	// Exactly as built in: allowed.
	send := methods.Method{Role: endpoint.RoleSend, Class: retrypolicy.NeverAfterDispatch}
	if _, err := base.Declare(named("sendBundle", send)); err != nil {
		t.Fatalf("redeclaring a send as it is: %v", err)
	}
	for _, tc := range []struct {
		name string
		e    methods.Method
	}{
		{"sendTransaction", read},
		{"requestAirdrop", methods.Method{Role: endpoint.RoleRead, Class: retrypolicy.NeverAfterDispatch}},
		{"", read},
		{"get widget", read},
		{"bad\nname", read},
		{"getWidget", methods.Method{Role: endpoint.Role(7), Class: retrypolicy.Idempotent}},
		{"getWidget", methods.Method{Role: endpoint.RoleRead}},
	} {
		var de *methods.DeclareError
		if _, err := base.Declare(named(tc.name, tc.e)); !errors.As(err, &de) {
			t.Errorf("Declare(%q, %+v) = %v, want a *DeclareError", tc.name, tc.e, err)
		}
	}
}

// named is m declared as name.
func named(name string, m methods.Method) methods.Method {
	m.Name = name
	return m
}
