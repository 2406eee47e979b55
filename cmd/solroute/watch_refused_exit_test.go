package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/solroute/solroute/fixtures"
)

// TestWatchRefusedEverywhereExitsOne: docs/cli.md, watch: "Exit codes:
// ... 1 no endpoint could take the subscription (the error names each
// endpoint's answer); 2 a usage or configuration error, before any
// connection." Input the command accepted, which every endpoint then
// refuses (-32602) after connecting, exits 2, as if it were a usage
// error found before any connection.
func TestWatchRefusedEverywhereExitsOne(t *testing.T) {
	refuse := fixtures.PubSubFaults{Refuse: &fixtures.PubSubRefusal{Methods: []string{"accountSubscribe"},
		Code: -32602, Message: "Invalid params: encoding not supported"}}
	var ms []fixtures.Member
	for _, n := range []string{"a", "b"} {
		ms = append(ms, fixtures.Member{Name: n, PubSub: &fixtures.PubSubOptions{Faults: refuse},
			Options: fixtures.Options{Slots: &fixtures.SlotOptions{SlotTime: watchSlotTime}}})
	}
	cluster := fixtures.NewCluster(ms)
	t.Cleanup(cluster.Close)
	var b strings.Builder
	for _, ep := range cluster.Endpoints() {
		fmt.Fprintf(&b, "[[endpoints]]\nname = %q\nurl = %q\nws_url = %q\n  [endpoints.roles.read]\n  [endpoints.subscribe]\n",
			ep.Name, ep.URL, ep.WSURL)
	}
	cfg := writeFile(t, "watch.toml", b.String())
	r := startWatch(t, cfg, "account", "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	_, code := r.rest(t)
	conns := cluster.PubSub("a").Stats().Conns + cluster.PubSub("b").Stats().Conns
	if code != exitFailed {
		t.Errorf("exit %d after %d connection(s), want %d (no endpoint could take the subscription); stderr: %s",
			code, conns, exitFailed, strings.TrimSpace(r.stderr.String()))
	}
}
