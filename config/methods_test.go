package config

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/retrypolicy"
)

// unavailableServer answers every request HTTP 503 and counts the
// JSON-RPC methods it was asked. (package config's tests cannot use
// fixtures, which imports the root, which imports config.)
type unavailableServer struct {
	*httptest.Server
	mu    sync.Mutex
	calls map[string]int
}

func newUnavailableServer(t *testing.T) *unavailableServer {
	t.Helper()
	s := &unavailableServer{calls: make(map[string]int)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		s.mu.Lock()
		s.calls[req.Method]++
		s.mu.Unlock()
		http.Error(w, "503 Service Temporarily Unavailable", http.StatusServiceUnavailable)
	}))
	t.Cleanup(s.Close)
	return s
}

// count returns how many calls of method the server was asked.
func (s *unavailableServer) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// twoTierDoc is a document of two endpoints serving role, the first always
// answering through primary, the second through backup, and extra (TOML
// tables) before them.
func twoTierDoc(primary, backup, role, extra string) []byte {
	return []byte(extra + `
[retry]
initial_backoff = "1ms"
max_backoff = "1ms"
[[endpoints]]
name = "primary"
url = "` + primary + `"
tier = 0
  [endpoints.roles.` + role + `]
[[endpoints]]
name = "backup"
url = "` + backup + `"
tier = 1
  [endpoints.roles.` + role + `]
`)
}

// TestDeclaredReadFailsOver: getWidget, unknown to the registry, is not
// retried after the primary answers 503 (it is treated like a send); declared idempotent in the
// document, it is retried on the backup, which answers it.
func TestDeclaredReadFailsOver(t *testing.T) {
	for _, tt := range []struct {
		name, extra string
		retried     bool
	}{
		{"undeclared", "", false},
		{"declared idempotent", "[methods.getWidget]\nrole = \"read\"\nclass = \"idempotent\"\n", true},
		{"declared not-applicable", "[methods.getWidget]\nrole = \"read\"\nclass = \"not-applicable\"\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			primary := newUnavailableServer(t)
			backup := newRPCServer(t, `{"id":"asset-1"}`)
			d, err := Parse(twoTierDoc(primary.URL, backup.URL, "read", tt.extra), ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c := newClient(t, d, nil)
			var out struct {
				ID string `json:"id"`
			}
			err = c.CallForInto(context.Background(), &out, "getWidget", []any{"asset-1"})
			backup.mu.Lock()
			atBackup := len(backup.auths)
			backup.mu.Unlock()
			if got := primary.count("getWidget"); got != 1 {
				t.Errorf("the primary got getWidget %d times, want 1", got)
			}
			if tt.retried {
				if err != nil || out.ID != "asset-1" || atBackup != 1 {
					t.Fatalf("getWidget = %+v, %v; backup asked %d times; want the backup's answer", out, err, atBackup)
				}
				return
			}
			if err == nil || atBackup != 0 {
				t.Fatalf("getWidget = %v, backup asked %d times; want the 503, not retried", err, atBackup)
			}
		})
	}
}

// TestDeclaredSendRoutesToSenders: a declared send method goes to
// endpoints serving send only, and is never resent after a 503.
func TestDeclaredSendRoutesToSenders(t *testing.T) {
	primary := newUnavailableServer(t)
	backup := newRPCServer(t, `"bundle-id"`)
	d, err := Parse(twoTierDoc(primary.URL, backup.URL, "send",
		"[methods.sendBundle]\nrole = \"send\"\nclass = \"never-after-dispatch\"\n"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, d, nil)
	if e, ok := c.Registry().Lookup("sendBundle"); !ok || e != (methods.Method{Name: "sendBundle", Role: endpoint.RoleSend, Class: retrypolicy.NeverAfterDispatch}) {
		t.Fatalf("the client's registry has sendBundle = %+v, %v", e, ok)
	}
	if _, ok := c.Registry().Lookup("getBalance"); !ok {
		t.Error("the declared method replaced the default registry instead of joining it")
	}
	var out string
	if err := c.CallForInto(context.Background(), &out, "sendBundle", []any{"tx"}); err == nil {
		t.Fatal("sendBundle succeeded through a 503")
	}
	backup.mu.Lock()
	defer backup.mu.Unlock()
	if primary.count("sendBundle") != 1 || len(backup.auths) != 0 {
		t.Errorf("sendBundle reached the primary %d times and the backup %d times, want once and never",
			primary.count("sendBundle"), len(backup.auths))
	}
}

// TestParseMethods: what the [methods] tables accept and refuse.
func TestParseMethods(t *testing.T) {
	const endpoints = "[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n[endpoints.roles.read]\n"
	d, err := Parse([]byte(`[methods.getAsset]
role = "read"
class = "idempotent"
[methods.sendBundle]
role = "send"
class = "never-after-dispatch"
[methods.sendTransaction]
role = "send"
class = "never-after-dispatch"
[methods.getBalance]
role = "read"
class = "not-applicable"
[methods."qn_estimatePriorityFees"]
role = "read"
class = "idempotent"
`+endpoints), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]methods.Method{
		"getAsset":                {Role: endpoint.RoleRead, Class: retrypolicy.Idempotent},
		"sendBundle":              {Role: endpoint.RoleSend, Class: retrypolicy.NeverAfterDispatch},
		"sendTransaction":         {Role: endpoint.RoleSend, Class: retrypolicy.NeverAfterDispatch},
		"getBalance":              {Role: endpoint.RoleRead, Class: retrypolicy.NotApplicable},
		"qn_estimatePriorityFees": {Role: endpoint.RoleRead, Class: retrypolicy.Idempotent},
	}
	if !maps.Equal(d.Methods, want) {
		t.Errorf("Methods = %v, want %v", d.Methods, want)
	}
	if d, err := Parse([]byte("[methods]\n"+endpoints), ParseOptions{}); err != nil || d.Methods != nil {
		t.Errorf("an empty [methods] table: %v, %v; want nil", d, err)
	}

	_, err = Parse([]byte(`[methods.sendTransaction]
role = "send"
class = "idempotent"
[methods.requestAirdrop]
role = "read"
class = "never-after-dispatch"
[methods.getAsset]
role = "write"
class = "unknown"
colour = "blue"
[methods."get Asset"]
role = "read"
class = "idempotent"
[methods."getX\u0000"]
role = 1
class = ["idempotent"]
[methods.empty]
[methods.""]
role = "read"
class = "Idempotent"
`+endpoints), ParseOptions{})
	checkProblems(t, err, []problemWant{
		{1, "methods.sendTransaction", "cannot be declared otherwise"},
		{4, "methods.requestAirdrop", "cannot be declared otherwise"},
		{8, "methods.getAsset.role", `must be "read" or "send"`},
		{9, "methods.getAsset.class", `must be "idempotent", "never-after-dispatch" or "not-applicable"`},
		{10, "methods.getAsset.colour", "unknown key"},
		{11, `methods."get Asset"`, "is not a method name"},
		{14, `methods."getX\u0000"`, "is not a method name"},
		{15, `methods."getX\u0000".role`, "must be a string, not an integer"},
		{16, `methods."getX\u0000".class`, "must be a string, not an array"},
		{17, "methods.empty.class", "is required"},
		{17, "methods.empty.role", "is required"},
		{18, `methods.""`, "is not a method name"},
		{20, `methods."".class`, "must be"},
	})

	_, err = Parse([]byte("[methods]\ngetAsset = \"read\"\n"+endpoints), ParseOptions{})
	checkProblems(t, err, []problemWant{{2, "methods.getAsset", "must be a table, not a string"}})
}

// TestRegistry: the registry a Document's client routes by, on either
// base, and the same refusals for a Document built in code.
func TestRegistry(t *testing.T) {
	getAsset := methods.Method{Role: endpoint.RoleRead, Class: retrypolicy.Idempotent}
	d := &Document{Methods: map[string]methods.Method{"getWidget": getAsset}}
	reg, err := d.Registry(nil)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := reg.Lookup("getWidget"); !ok || e != named("getWidget", getAsset) {
		t.Errorf("getWidget = %+v, %v", e, ok)
	}
	if len(reg.Names()) != len(methods.Default().Names())+1 {
		t.Errorf("Len = %d, want the default's and one", len(reg.Names()))
	}
	// A caller's base replaces Default, and is left unchanged.
	base, err := (&methods.Registry{}).Declare(methods.Method{Name: "sendBundle", Role: endpoint.RoleSend, Class: retrypolicy.NeverAfterDispatch})
	if err != nil {
		t.Fatal(err)
	}
	reg, err = d.Registry(base)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Lookup("getBalance"); ok || len(reg.Names()) != 2 || len(base.Names()) != 1 {
		t.Errorf("on a base of one method: Len %d (base %d), getBalance known %v", len(reg.Names()), len(base.Names()), ok)
	}
	// The base's own never-after-dispatch methods are protected too.
	weak := &Document{Methods: map[string]methods.Method{"sendBundle": getAsset}}
	_, err = weak.Registry(base)
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Problems) != 1 || verr.Problems[0].Path != "methods.sendBundle" {
		t.Fatalf("declaring the base's send idempotent: %v", err)
	}
	if _, err := weak.Registry(nil); !errors.As(err, &verr) {
		t.Errorf("sendBundle is built into Default as a send: %v", err)
	}

	bad := &Document{Methods: map[string]methods.Method{
		"sendTransaction": {Role: endpoint.RoleSend, Class: retrypolicy.Idempotent},
		"requestAirdrop":  {Role: endpoint.RoleRead, Class: retrypolicy.NeverAfterDispatch},
		"a b":             getAsset,
		"noRole":          {Role: endpoint.Role(9), Class: retrypolicy.Idempotent},
		"noClass":         {Role: endpoint.RoleRead},
	}}
	_, err = bad.Registry(nil)
	if !errors.As(err, &verr) {
		t.Fatalf("err = %v", err)
	}
	var paths []string
	for _, p := range verr.Problems {
		paths = append(paths, p.Path)
	}
	want := []string{`methods."a b"`, "methods.noClass.class", "methods.noRole.role", "methods.requestAirdrop", "methods.sendTransaction"}
	if !slices.Equal(paths, want) {
		t.Errorf("problems at %q, want %q:\n%v", paths, want, err)
	}
}

// TestSchemaProtectsTheBuiltInSends: the schema's built-in sends are the
// default registry's never-after-dispatch methods.
func TestSchemaProtectsTheBuiltInSends(t *testing.T) {
	raw, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Methods struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"methods"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	var want []string
	def := methods.Default()
	for _, m := range methods.Default().Names() {
		if e, _ := def.Lookup(m); e.Class == retrypolicy.NeverAfterDispatch {
			want = append(want, m)
		}
	}
	if got := slices.Sorted(maps.Keys(s.Properties.Methods.Properties)); !slices.Equal(got, want) {
		t.Errorf("schema.json protects %q, the registry's sends are %q", got, want)
	}
}

// named is m declared as name.
func named(name string, m methods.Method) methods.Method {
	m.Name = name
	return m
}
