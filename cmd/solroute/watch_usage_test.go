package main

import (
	"strings"
	"testing"
)

// TestWatchBadInputBeforeAnyConnection: an unknown KIND, a missing or bad
// argument, a flag that does not apply, or a configuration without a
// subscribe endpoint is a usage error (exit 2) on one line, and no
// WebSocket is opened.
func TestWatchBadInputBeforeAnyConnection(t *testing.T) {
	w := newWatchEnv(t)
	cfg := w.config
	const sig = "3MXCPTTMAb6AEDkdQadq6t26JGwGMBhZDeEWJ594LAW7Quw14tGSBLNk6mujRn38Cxp6HXLsD98PDq8W2N5Y45yS"
	const key = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
	runUsageCases(t, []usageCase{
		{"no kind", []string{"watch", "--config", cfg}, "KIND is required"},
		{"unknown kind", []string{"watch", "--config", cfg, "slots"}, `unknown KIND "slots": want slot, root, account, program, signature or logs (did you mean "slot"?)`},
		{"slot with an argument", []string{"watch", "--config", cfg, "slot", key}, "slot takes no argument"},
		{"account without a key", []string{"watch", "--config", cfg, "account"}, "account needs its PUBKEY"},
		{"bad pubkey", []string{"watch", "--config", cfg, "account", "not-a-key"}, `invalid PUBKEY "not-a-key": not a base-58 encoded 32-byte key`},
		{"zero account", []string{"watch", "--config", cfg, "account", "11111111111111111111111111111111"}, "the System Program's account, which never changes"},
		{"bad program id", []string{"watch", "--config", cfg, "program", "0OIl"}, `invalid ID "0OIl"`},
		{"bad signature", []string{"watch", "--config", cfg, "signature", key}, `invalid SIGNATURE`},
		{"bad logs key", []string{"watch", "--config", cfg, "logs", "everything"}, `invalid PUBKEY "everything"`},
		{"too many", []string{"watch", "--config", cfg, "account", key, key}, "too many arguments"},
		{"commitment on slot", []string{"watch", "--config", cfg, "--commitment", "finalized", "slot"}, "--commitment does not apply to slot"},
		{"bad commitment", []string{"watch", "--config", cfg, "--commitment", "confirmd", "signature", sig}, `did you mean "confirmed"?`},
		{"encoding on logs", []string{"watch", "--config", cfg, "--encoding", "base64", "logs", "all"}, "--encoding applies to account and program only"},
		{"bad encoding", []string{"watch", "--config", cfg, "--encoding", "binary", "account", key}, `invalid --encoding "binary"`},
		{"negative duration", []string{"watch", "--config", cfg, "--duration", "-1s", "slot"}, "--duration must not be negative"},
		{"no config", []string{"watch", "slot"}, "--config FILE is required"},
	})
	noSubscribe := writeConfig(t, "", testEndpoint{name: "a", url: w.cluster.Server("a").URL()})
	r := runCmd(t, "watch", "--config", noSubscribe, "slot")
	r.wantCode(t, exitUsage)
	if !strings.Contains(r.stderr, "watch needs an endpoint that serves subscribe, and none in") || !strings.Contains(r.stderr, "[endpoints.subscribe]") {
		t.Errorf("stderr %q", r.stderr)
	}
	for _, n := range []string{"a", "b", "c"} {
		if st := w.cluster.PubSub(n).Stats(); st.Handshakes != 0 {
			t.Errorf("%s saw %d handshakes: bad input must fail before any connection", n, st.Handshakes)
		}
	}
}
