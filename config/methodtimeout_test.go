package config

import (
	"errors"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/retrypolicy"
)

// TestMethodTimeout: [methods.NAME] timeout sets a method's budget, a
// heavy method's included (shorter or longer than its default); left out,
// a built-in method keeps its default; a built-in send may have one; and a
// value past 1h is refused, by the parser and by Registry.
func TestMethodTimeout(t *testing.T) {
	const endpoints = "[[endpoints]]\nname = \"a\"\nurl = \"https://a.example\"\n[endpoints.roles.read]\n"
	d, err := Parse([]byte(`
[methods.getProgramAccounts]
role = "read"
class = "idempotent"
timeout = "5m"
[methods.getBlock]
role = "read"
class = "idempotent"
timeout = "20s"
[methods.getTransaction]
role = "read"
class = "idempotent"
[methods.getBalance]
role = "read"
class = "idempotent"
timeout = "30s"
[methods.sendTransaction]
role = "send"
class = "never-after-dispatch"
timeout = "45s"
`+endpoints), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := d.Registry(nil)
	if err != nil {
		t.Fatal(err)
	}
	heavy, _ := methods.Default().Lookup("getTransaction") // a heavy method's own budget
	for name, want := range map[string]time.Duration{
		"getProgramAccounts":      5 * time.Minute,
		"getBlock":                20 * time.Second,
		"getTransaction":          heavy.Timeout, // declared without one
		"getSignaturesForAddress": heavy.Timeout, // not declared
		"getBalance":              30 * time.Second,
		"getSlot":                 0,
		"sendTransaction":         45 * time.Second,
	} {
		if e, _ := reg.Lookup(name); e.Timeout != want {
			t.Errorf("%s: timeout %v, want %v", name, e.Timeout, want)
		}
	}
	if e, _ := reg.Lookup("sendTransaction"); e.Class != retrypolicy.NeverAfterDispatch {
		t.Errorf("sendTransaction: %+v", e)
	}

	_, err = Parse([]byte("[methods.getBlock]\nrole = \"read\"\nclass = \"idempotent\"\ntimeout = \"2h\"\n"+endpoints), ParseOptions{})
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Problems) != 1 || verr.Problems[0].Path != "methods.getBlock.timeout" {
		t.Fatalf("timeout 2h: %v", err)
	}
	long := &Document{Methods: map[string]methods.Method{
		"getBlock": {Role: endpoint.RoleRead, Class: retrypolicy.Idempotent, Timeout: 2 * time.Hour}}}
	if _, err := long.Registry(nil); !errors.As(err, &verr) || verr.Problems[0].Path != "methods.getBlock.timeout" {
		t.Fatalf("Registry with a 2h timeout: %v", err)
	}
}
