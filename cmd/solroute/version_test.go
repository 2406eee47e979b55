package main

import (
	"bytes"
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/jonboulle/clockwork"
)

func TestVersionLine(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2025-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"installed at a version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/solroute/solroute", Version: "v1.2.0"}},
			true, "solroute v1.2.0, go1.26.8"},
		{"work tree, committed", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")},
			true, "solroute (devel), revision " + rev + ", go1.26.8"},
		{"work tree, modified", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")},
			true, "solroute (devel), revision " + rev + " (modified), go1.26.8"},
		{"pseudo-version from the VCS", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20250102030405-0123456789ab+dirty"}, Settings: vcs("true")},
			true, "solroute v0.0.0-20250102030405-0123456789ab+dirty, revision " + rev + " (modified), go1.26.8"},
		{"no main version", &debug.BuildInfo{GoVersion: "go1.26.8"}, true, "solroute (devel), go1.26.8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionLine(tt.info, tt.ok); got != tt.want {
				t.Fatalf("versionLine = %q, want %q", got, tt.want)
			}
		})
	}
	if got := versionLine(nil, false); !strings.HasPrefix(got, "solroute (unknown), go") {
		t.Fatalf("without build information: %q", got)
	}
}

func TestVersionCommand(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}}
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var out, errb bytes.Buffer
		e := &env{stdout: &out, stderr: &errb, clock: clockwork.NewFakeClock(),
			buildInfo: func() (*debug.BuildInfo, bool) { return info, true }}
		if code := e.dispatch(context.Background(), args); code != exitOK || out.String() != "solroute v1.2.0, go1.26.8\n" || errb.Len() != 0 {
			t.Errorf("%v: exit code %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
	// The test binary has build information of its own: run reads it.
	r := runCmd(t, "version")
	r.wantCode(t, exitOK)
	if !strings.HasPrefix(r.stdout, "solroute ") || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("stdout %q", r.stdout)
	}
	runUsageCases(t, []usageCase{{"argument", []string{"version", "now"}, `unexpected argument "now"`}})
}
