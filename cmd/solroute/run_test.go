package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestRunWithoutCommandIsAUsageError(t *testing.T) {
	r := runCmd(t)
	r.wantCode(t, exitUsage)
	if r.stdout != "" || !strings.Contains(r.stderr, "Usage:") {
		t.Fatalf("want the usage on stderr only; stdout %q stderr %q", r.stdout, r.stderr)
	}
}

func TestRunUnknownCommand(t *testing.T) {
	r := runCmd(t, "frobnicate")
	r.wantCode(t, exitUsage)
	if got := lines(r.stderr); len(got) != 1 || !strings.Contains(got[0], `unknown command "frobnicate"`) {
		t.Fatalf("want one line naming the command, got %q", r.stderr)
	}
}

// TestUnknownCommandDidYouMean: a typo of a command is suggested the
// command, on the one line; a far name gets no suggestion.
func TestUnknownCommandDidYouMean(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"confrim", `solroute: unknown command "confrim" (did you mean "confirm"?); run 'solroute --help' for the list`},
		{"sned", `solroute: unknown command "sned" (did you mean "send"?); run 'solroute --help' for the list`},
		{"Probe", `solroute: unknown command "Probe" (did you mean "probe"?); run 'solroute --help' for the list`},
		{"frobnicate", `solroute: unknown command "frobnicate"; run 'solroute --help' for the list`},
	} {
		r := runCmd(t, tt.name, "--config", "rpc.toml")
		r.wantCode(t, exitUsage)
		if got := lines(r.stderr); len(got) != 1 || got[0] != tt.want || r.stdout != "" {
			t.Errorf("%s: stderr %q, stdout %q; want the one line %q", tt.name, r.stderr, r.stdout, tt.want)
		}
	}
}

func TestTopLevelHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		r := runCmd(t, args...)
		r.wantCode(t, exitOK)
		for _, c := range commands() {
			if !strings.Contains(r.stdout, c.name+" ") {
				t.Errorf("%v: help does not list %q:\n%s", args, c.name, r.stdout)
			}
		}
		if !strings.Contains(r.stdout, "Example:") || r.stderr != "" {
			t.Errorf("%v: want an example on stdout and nothing on stderr; stdout %q stderr %q", args, r.stdout, r.stderr)
		}
	}
}

func TestCommandHelp(t *testing.T) {
	for _, c := range commands() {
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				r := runCmd(t, args...)
				r.wantCode(t, exitOK)
				for _, want := range []string{"Usage: solroute " + c.name, "Flags:", "Example:\n  solroute " + c.name} {
					if !strings.Contains(r.stdout, want) {
						t.Errorf("help lacks %q:\n%s", want, r.stdout)
					}
				}
				if r.stderr != "" {
					t.Errorf("stderr: %q", r.stderr)
				}
			})
		}
	}
}

// TestBadFlagIsOneLine also holds errors to the help's spelling: a flag
// is named with two dashes, however it was typed.
func TestBadFlagIsOneLine(t *testing.T) {
	for _, c := range commands() {
		for _, flag := range []string{"--no-such-flag", "-no-such-flag"} {
			t.Run(c.name+" "+flag, func(t *testing.T) {
				r := runCmd(t, c.name, flag)
				r.wantCode(t, exitUsage)
				got := lines(r.stderr)
				if len(got) != 1 || !strings.Contains(got[0], "unknown flag --no-such-flag") || !strings.Contains(got[0], "solroute "+c.name+" --help") {
					t.Fatalf("want one line naming the flag with two dashes and the help, got %q", r.stderr)
				}
				if r.stdout != "" {
					t.Fatalf("stdout: %q", r.stdout)
				}
			})
		}
	}
}

func TestFlagErrorsUseDoubleDashes(t *testing.T) {
	runUsageCases(t, []usageCase{
		{"missing value", []string{"call", "getSlot", "--timeout"}, "flag --timeout needs a value"},
		{"invalid value, one dash typed", []string{"demo", "-duration", "soon"}, "--duration: soon is not a duration: write a number and a unit"},
	})
}

// TestFlagValueErrorsSayWhatIsExpected: the three command lines of issue
// 21 that said only "parse error" say what the flag wants, on the one
// usage line, exit 2.
func TestFlagValueErrorsSayWhatIsExpected(t *testing.T) {
	runUsageCases(t, []usageCase{
		{"a duration without its unit", []string{"demo", "--duration", "5"},
			"solroute demo: --duration: 5 is not a duration: write 5s (a number and a unit: ms, s, m or h) (see 'solroute demo --help')"},
		{"a timeout without its unit", []string{"probe", "--config", "rpc.toml", "--timeout", "5"},
			"solroute probe: --timeout: 5 is not a duration: write 5s"},
		{"a negative height", []string{"confirm", "--config", "rpc.toml", "--last-valid-block-height", "-3", "SIG"},
			"solroute confirm: --last-valid-block-height: -3 is negative: write a whole number, 0 or more"},
	})
}

// TestDocsNameEveryCommandAndFlag: docs/cli.md, the full reference, has a
// section for every command and names each of its flags.
func TestDocsNameEveryCommandAndFlag(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		if !strings.Contains(string(doc), "\n## `solroute "+c.name) {
			t.Errorf("docs/cli.md has no section for %s", c.name)
		}
		r := runCmd(t, c.name, "--help")
		for _, m := range regexp.MustCompile(`(?m)^  (--[a-z-]+)`).FindAllStringSubmatch(r.stdout, -1) {
			if !strings.Contains(string(doc), "`"+m[1]) {
				t.Errorf("docs/cli.md does not name %s's flag %s", c.name, m[1])
			}
		}
	}
}
