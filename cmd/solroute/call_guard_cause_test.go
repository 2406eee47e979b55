package main

import (
	"net"
	"strings"
	"testing"
)

// TestCallUnreachableWithClusterSaysTheCheckFailure: with `cluster` set (as
// serve-fake's document and every example have it), a call whose
// endpoints all refuse connections fails with "cluster not yet verified"
// for each endpoint; the cause (the connection the genesis check was
// refused) must be in the one error line too, as it is when the same
// document has no `cluster`. (A review found it hidden.)
func TestCallUnreachableWithClusterSaysTheCheckFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/"
	_ = ln.Close() // nothing listens there any more: every dial is refused
	without := runCmd(t, "call", "--config", writeConfig(t, "", testEndpoint{name: "a", url: url}), "getSlot")
	with := runCmd(t, "call", "--config", writeConfig(t, "mainnet-beta", testEndpoint{name: "a", url: url}), "getSlot")
	if !strings.Contains(without.stderr, "refused") {
		t.Fatalf("without cluster: %q", without.stderr)
	}
	if !strings.Contains(with.stderr, "its check: getGenesisHash: a: ") || !strings.Contains(with.stderr, "refused") {
		t.Errorf("with cluster = \"mainnet-beta\", the cause is gone:\n  without: %s  with:    %s", without.stderr, with.stderr)
	}
}
