package main

import (
	"strings"
	"testing"
)

// TestLastValidBlockHeightZeroSaysAboveZero: docs/cli.md's confirm table
// says --last-valid-block-height is "required, above 0", and "a value its
// flag cannot take says what the flag wants". -3's error advises a whole
// number, 0 or more (the flag's kind); 0, given, was refused as if the
// flag were missing ("is required"), never saying that it must be above
// 0.
func TestLastValidBlockHeightZeroSaysAboveZero(t *testing.T) {
	cfg := writeFile(t, "rpc.toml", "[[endpoints]]\nname = \"a\"\nurl = \"http://127.0.0.1:1\"\n  [endpoints.roles.read]\n")
	sig := "3MXCPTTMAb6AEDkdQadq6t26JGwGMBhZDeEWJ594LAW7Quw14tGSBLNk6mujRn38Cxp6HXLsD98PDq8W2N5Y45yS"
	neg := runCmd(t, "confirm", "--config", cfg, sig, "--last-valid-block-height", "-3")
	neg.wantCode(t, exitUsage)
	zero := runCmd(t, "confirm", "--config", cfg, sig, "--last-valid-block-height", "0")
	zero.wantCode(t, exitUsage)
	if strings.Contains(zero.stderr, "is required") || !strings.Contains(zero.stderr, "above 0") {
		t.Errorf("0 was given, yet the error says the flag is required and not what it wants (above 0): %s", zero.stderr)
	}
}
