package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
)

// marker is a secret: it is put in every part of the endpoints' URLs and
// in every form of header value, and must appear in no output, in no form
// fixturedata.FindSecret can undo.
const marker = "S3CRETMARKERx7"

// secretURL puts marker in the user, password, path and query of a URL to
// hostport, next to characters that escaping changes.
func secretURL(scheme, hostport string) string {
	return scheme + "://us" + marker + "er:p%40" + marker + "@" + hostport +
		"/v1/se%20" + marker + "%2Fk/rpc?api-key=q%2F" + marker + "+x&y=1"
}

// secretHeaders is a TOML inline table of headers holding marker as a
// Bearer token, a bare token and in a list.
const secretHeaders = `{ Authorization = "Bearer br/` + marker + `+=", X-Api-Key = "` + marker + `tok", ` +
	`X-Keys = "k1=li1` + marker + `, k2=\"li2` + marker + `\"; Token li3` + marker + `" }`

func TestNoSecretInAnyOutput(t *testing.T) {
	echo := httptest.NewServer(fixturedata.EchoHandler())
	t.Cleanup(echo.Close)
	good := startServer(t, fixtures.Options{})
	failing := startServer(t, fixtures.Options{Script: fixtures.Always(fixtures.Status(503, ""))})
	resetting := startServer(t, fixtures.Options{Script: fixtures.Always(fixtures.Fault{Kind: fixtures.ResetAfterRead})})
	plain := startServer(t, fixtures.Options{})
	devnet := startServer(t, fixtures.Options{Cluster: fixturedata.ClusterDevnet})
	// A port nothing listens on: the dial is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := ln.Addr().String()
	_ = ln.Close()

	var doc strings.Builder
	doc.WriteString("cluster = \"mainnet-beta\"\n[retry]\ninitial_backoff = \"1ms\"\nmax_backoff = \"5ms\"\n")
	for _, ep := range []struct {
		name, url string
		tier      int
	}{
		{"echo", secretURL("http", strings.TrimPrefix(echo.URL, "http://")), 0},
		{"failing", secretURL("http", strings.TrimPrefix(failing.URL(), "http://")), 0},
		{"resetting", secretURL("http", strings.TrimPrefix(resetting.URL(), "http://")), 0},
		{"refused", secretURL("http", refused), 0},
		{"tls", secretURL("https", strings.TrimPrefix(plain.URL(), "http://")), 0},
		// A label over 63 bytes: the resolver refuses it at once.
		{"dns", secretURL("http", marker+"-"+strings.Repeat("x", 64)+".invalid:1"), 0},
		{"devnet", secretURL("http", strings.TrimPrefix(devnet.URL(), "http://")), 1},
		{"good", secretURL("http", strings.TrimPrefix(good.URL(), "http://")), 2},
	} {
		fmt.Fprintf(&doc, "\n[[endpoints]]\nname = %q\nurl = %q\ntier = %d\nheaders = %s\n", ep.name, ep.url, ep.tier, secretHeaders)
		doc.WriteString("  [endpoints.roles.read]\n  request_timeout = \"2s\"\n  [endpoints.roles.send]\n  request_timeout = \"2s\"\n")
	}
	cfg := writeFile(t, "solroute.toml", doc.String())

	tx, err := fixtures.SignedTransaction(7, "")
	if err != nil {
		t.Fatal(err)
	}
	wire, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	sig := tx.Signatures[0].String()
	lvbh := fmt.Sprint(fixturedata.RecordedBlockHeight + fixturedata.MaxProcessingAge)
	// Endpoints that only fail, one of them echoing the request back in its
	// error, and no cluster guard to hold them: every poll of a
	// resolution fails, and its report shows the last error.
	var failDoc strings.Builder
	for _, ep := range []struct{ name, url string }{
		{"echo", secretURL("http", strings.TrimPrefix(echo.URL, "http://"))},
		{"failing", secretURL("http", strings.TrimPrefix(failing.URL(), "http://"))},
		{"resetting", secretURL("http", strings.TrimPrefix(resetting.URL(), "http://"))},
	} {
		fmt.Fprintf(&failDoc, "[[endpoints]]\nname = %q\nurl = %q\nheaders = %s\n", ep.name, ep.url, secretHeaders)
		failDoc.WriteString("  [endpoints.roles.read]\n  request_timeout = \"2s\"\n  [endpoints.roles.send]\n  request_timeout = \"2s\"\n")
	}
	failing3 := writeFile(t, "failing.toml", failDoc.String())
	runs := [][]string{
		{"probe", "--config", cfg},
		{"probe", "--config", cfg, "--json"},
		{"call", "--config", cfg, "--attempts", "getSlot"},
		{"call", "--config", cfg, "--attempts", "getBalance", `["11111111111111111111111111111111"]`},
		{"call", "--config", cfg, "--attempts", "getBalance", `["bad"]`},
		{"call", "--config", cfg, "--attempts", "sendTransaction", `["` + wire + `",{"encoding":"base64"}]`},
		{"send", "--config", cfg, wire},
		{"send", "--config", failing3, "--last-valid-block-height", lvbh, wire},
		{"send", "--config", cfg, "--confirm", "--last-valid-block-height", lvbh, "--rebroadcast", "100ms", "--timeout", "500ms", wire},
		{"send", "--config", failing3, "--json", "--confirm", "--last-valid-block-height", lvbh, "--timeout", "500ms", wire},
		{"confirm", "--config", cfg, sig, "--last-valid-block-height", lvbh, "--timeout", "500ms"},
		{"confirm", "--config", failing3, sig, "--last-valid-block-height", lvbh, "--timeout", "500ms"},
		{"confirm", "--config", failing3, "--json", sig, "--last-valid-block-height", lvbh, "--timeout", "500ms"},
	}
	sawLastError := false
	sawProbeJSON := false
	for _, args := range runs {
		r := runCmd(t, args...)
		for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			if form, leaked := fixturedata.FindSecret(out, marker); leaked {
				t.Errorf("%v: %s shows the secret (%s):\n%s", args, name, form, out)
			}
		}
		if args[len(args)-1] == "--json" {
			sawProbeJSON = json.Valid([]byte(r.stdout)) && strings.Contains(r.stdout, `"echo"`)
		}
		if args[2] == failing3 && args[0] == "confirm" && r.code == exitUnknown {
			sawLastError = sawLastError || strings.Contains(r.stdout, "last error") || strings.Contains(r.stdout, `"last_error"`)
		}
	}
	if !sawProbeJSON {
		t.Error("probe --json wrote no JSON report naming the endpoints")
	}
	if !sawLastError {
		t.Error("no confirm report showed a poll's error: the test checks no endpoint's error")
	}

	// The configuration itself, printed every way.
	c, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for _, v := range []any{c, *c, c.Endpoints, c.Endpoints[0]} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
			outs = append(outs, fmt.Sprintf(verb, v))
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("json.Marshal(%T): %v", v, err)
		}
		outs = append(outs, string(js))
	}
	var logs bytes.Buffer
	o := &slog.HandlerOptions{Level: slog.LevelDebug}
	slog.New(slog.NewMultiHandler(slog.NewTextHandler(&logs, o), slog.NewJSONHandler(&logs, o))).
		Debug("config", "config", c, "endpoints", c.Endpoints, "endpoint", c.Endpoints[0])
	outs = append(outs, logs.String())
	for _, out := range outs {
		if form, leaked := fixturedata.FindSecret(out, marker); leaked {
			t.Errorf("the configuration shows the secret (%s):\n%s", form, out)
		}
	}

	// The secrets were really used: the good endpoint saw them all.
	reqs := good.Requests()
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("us"+marker+"er:p@"+marker))
	if len(reqs) == 0 || !strings.Contains(reqs[0].Target, marker) || reqs[0].Header.Get("X-Api-Key") != marker+"tok" {
		t.Fatalf("the good endpoint did not receive the configured path and headers: %+v", reqs)
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer br/"+marker+"+=" || got == basic {
		t.Fatalf("Authorization %q, want the configured header (it wins over the user info)", got)
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
	if form, leaked := fixturedata.FindSecret(r.stdout+r.stderr, marker); leaked {
		t.Fatalf("the secret marker leaked (%s):\n%s", form, r.stderr)
	}
	cfg = writeFile(t, "bad2.toml", `
[[endpoints]]
name = "a"
url = "ftp://`+marker+`.example/?key=`+marker+`"
headers = { Authorization = "Bearer `+marker+`" }
  [endpoints.roles.read]
  burst_capacity = -1
`)
	tx, err := fixtures.SignedTransaction(7, "")
	if err != nil {
		t.Fatal(err)
	}
	wire, err := fixtures.EncodeTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"probe", "--config", cfg},
		{"confirm", "--config", cfg, tx.Signatures[0].String(), "--last-valid-block-height", "1150"},
		{"send", "--config", cfg, "--confirm", "--last-valid-block-height", "1150", wire},
	} {
		r = runCmd(t, args...)
		r.wantCode(t, exitUsage)
		if form, leaked := fixturedata.FindSecret(r.stdout+r.stderr, marker); leaked {
			t.Fatalf("%s: the secret marker leaked (%s):\n%s", args[0], form, r.stderr)
		}
	}
}

// TestNoSecretInWatch: watch names endpoints by name only, whether they
// deliver, refuse the subscribe with an error that echoes the URL's path
// and query, answer the upgrade with a 429, refuse the dial or cannot be
// resolved; and when none can hold the subscription, its error holds no
// secret either. Every ws_url carries the marker in its user, password,
// path and query, every endpoint the secret headers.
func TestNoSecretInWatch(t *testing.T) {
	pubsub := func(f fixtures.PubSubFaults) string {
		s := startServer(t, fixtures.Options{Slots: &fixtures.SlotOptions{SlotTime: watchSlotTime}})
		p := fixtures.NewPubSub(s, fixtures.PubSubOptions{Faults: f})
		t.Cleanup(p.Close)
		return strings.TrimPrefix(p.URL(), "ws://")
	}
	echoed := "/v1/se%20" + marker + "%2Fk/rpc?api-key=q%2F" + marker + "+x&y=1"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := ln.Addr().String()
	_ = ln.Close()
	failing := map[string]string{
		"refusing": pubsub(fixtures.PubSubFaults{Refuse: &fixtures.PubSubRefusal{Code: -32000, Message: "refused " + echoed}}),
		"limited":  pubsub(fixtures.PubSubFaults{UpgradeStatus: 429, RetryAfter: "1"}),
		"refused":  refused,
		"dns":      marker + "-" + strings.Repeat("x", 64) + ".invalid:1",
	}
	document := func(eps map[string]string) string {
		var b strings.Builder
		for _, name := range slices.Sorted(maps.Keys(eps)) {
			fmt.Fprintf(&b, "[[endpoints]]\nname = %q\nurl = %q\nws_url = %q\nheaders = %s\n  [endpoints.roles.read]\n  [endpoints.subscribe]\n",
				name, secretURL("http", "127.0.0.1:1"), secretURL("ws", eps[name]), secretHeaders)
		}
		return writeFile(t, "watch-secrets.toml", b.String())
	}
	check := func(name string, r result) {
		t.Helper()
		if form, leaked := fixturedata.FindSecret(r.stdout+r.stderr, marker); leaked {
			t.Fatalf("%s: the secret marker leaked (%s):\n%s\n%s", name, form, r.stdout, r.stderr)
		}
	}
	r := runCmd(t, "watch", "--config", document(failing), "slot")
	check("every endpoint failing", r)
	r.wantCode(t, exitFailed)
	for _, n := range []string{"refusing", "limited", "refused", "dns"} {
		if !strings.Contains(r.stderr, n) {
			t.Errorf("the error does not name %s:\n%s", n, r.stderr)
		}
	}
	withGood := maps.Clone(failing)
	withGood["good"] = pubsub(fixtures.PubSubFaults{})
	r = runCmd(t, "watch", "--config", document(withGood), "slot", "--count", "3")
	check("one good endpoint", r)
	r.wantCode(t, exitOK)
}
