package transport_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/transport"
)

// TestCoalesceSettings: the default list is issue 25's (and a fresh copy
// each call); an entry that is no method name, or repeats one, is named
// by its index; an empty list is valid (coalescing off).
func TestCoalesceSettings(t *testing.T) {
	d := transport.DefaultSettings()
	want := []string{"getLatestBlockhash", "getSlot", "getEpochInfo", "getRecentPrioritizationFees", "getAccountInfo", "getMultipleAccounts"}
	if !slices.Equal(d.Coalesce, want) {
		t.Fatalf("default coalesce %v, want %v", d.Coalesce, want)
	}
	d.Coalesce[0] = "changed"
	if transport.DefaultSettings().Coalesce[0] != "getLatestBlockhash" {
		t.Fatal("DefaultSettings shares its list between calls")
	}
	s := transport.DefaultSettings()
	s.Coalesce = []string{"getSlot", "", "get Slot", "getSlot", "getSlot\n"}
	var paths []string
	for _, err := range s.Validate().(interface{ Unwrap() []error }).Unwrap() {
		var p *endpoint.Problem
		if errors.As(err, &p) {
			paths = append(paths, p.Path)
		}
	}
	if !slices.Equal(paths, []string{"coalesce[1]", "coalesce[2]", "coalesce[3]", "coalesce[4]"}) {
		t.Fatalf("problems at %v", paths)
	}
	s.Coalesce = []string{}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}
