package main

import (
	"net"
	"strings"
	"testing"

	"github.com/solroute/solroute/fixtures"
)

// marker is a secret: it is put in URLs' paths and queries and in header
// values, and must appear in no output.
const marker = "S3CRETMARKERx7"

func TestNoSecretInAnyOutput(t *testing.T) {
	good := startServer(t, fixtures.Options{})
	failing := startServer(t, fixtures.Options{Script: fixtures.Always(fixtures.Status(503, ""))})
	resetting := startServer(t, fixtures.Options{Script: fixtures.Always(fixtures.Fault{Kind: fixtures.ResetAfterRead})})
	devnet := startServer(t, fixtures.Options{Cluster: fixtures.ClusterDevnet})
	// A port nothing listens on: the dial is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	_ = ln.Close()

	secret := func(base string) string { return base + "/" + marker + "/rpc?api-key=" + marker + "&x=1" }
	header := "Bearer " + marker
	cfg := writeConfig(t, "mainnet-beta",
		testEndpoint{name: "failing", url: secret(failing.URL()), header: header},
		testEndpoint{name: "resetting", url: secret(resetting.URL()), header: header},
		testEndpoint{name: "refused", url: secret(refused), header: header},
		testEndpoint{name: "devnet", url: secret(devnet.URL()), header: header, tier: 1},
		testEndpoint{name: "good", url: secret(good.URL()), header: header, tier: 2},
	)
	tx, err := fixtures.SignedTransaction(7)
	if err != nil {
		t.Fatal(err)
	}
	wire, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	runs := []struct {
		args []string
		code int
	}{
		{[]string{"probe", "--config", cfg}, exitFailed},
		{[]string{"probe", "--config", cfg, "--json"}, exitFailed},
		{[]string{"call", "--config", cfg, "--attempts", "getSlot"}, exitOK},
		{[]string{"call", "--config", cfg, "--attempts", "getBalance", `["bad"]`}, -1},
		{[]string{"call", "--config", cfg, "--attempts", "sendTransaction", `["` + wire + `",{"encoding":"base64"}]`}, -1},
	}
	for _, run := range runs {
		r := runCmd(t, run.args...)
		if run.code >= 0 {
			r.wantCode(t, run.code)
		}
		if strings.Contains(r.stdout+r.stderr, marker) {
			t.Errorf("%v: the secret marker leaked:\nstdout:\n%s\nstderr:\n%s", run.args, r.stdout, r.stderr)
		}
	}
	// The secrets were really used: the servers saw them.
	reqs := good.Requests()
	if len(reqs) == 0 || !strings.Contains(reqs[0].Target, marker) || reqs[0].Header.Get("Authorization") != header {
		t.Fatalf("the good endpoint did not receive the configured path and header: %+v", reqs)
	}
}

func TestNoSecretInConfigErrors(t *testing.T) {
	cfg := writeFile(t, "bad.toml", `
[[endpoints]]
name = "a"
url = "ftp://`+marker+`.example/?key=`+marker+`"
headers = { Authorization = "Bearer `+marker+`
  [endpoints.roles.read]
`)
	r := runCmd(t, "call", "--config", cfg, "getSlot")
	r.wantCode(t, exitUsage)
	if strings.Contains(r.stdout+r.stderr, marker) {
		t.Fatalf("the secret marker leaked:\n%s", r.stderr)
	}
	cfg = writeFile(t, "bad2.toml", `
[[endpoints]]
name = "a"
url = "ftp://`+marker+`.example/?key=`+marker+`"
headers = { Authorization = "Bearer `+marker+`" }
  [endpoints.roles.read]
  burst_capacity = -1
`)
	r = runCmd(t, "probe", "--config", cfg)
	r.wantCode(t, exitUsage)
	if strings.Contains(r.stdout+r.stderr, marker) {
		t.Fatalf("the secret marker leaked:\n%s", r.stderr)
	}
}
