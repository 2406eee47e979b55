package cliflag

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// testSet is a fresh Set with one flag of each kind the commands use.
type testSet struct {
	*Set
	config  *string
	timeout *time.Duration
	json    *bool
	seed    *uint64
}

func newTestSet() testSet {
	s := New("solroute test", "solroute test --config FILE [flags] ARG", "Test things.", "solroute test --config rpc.toml x")
	return testSet{
		Set:     s,
		config:  s.String("config", "", "read `FILE`"),
		timeout: s.Duration("timeout", 0, "bound by `D`"),
		json:    s.Bool("json", false, "write JSON"),
		seed:    s.Uint64("seed", 1, "seed `N`\nof everything"),
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		positional []string
		config     string
		timeout    time.Duration
		json       bool
	}{
		{"none", nil, nil, "", 0, false},
		{"double dash, separate value", []string{"--config", "a.toml"}, nil, "a.toml", 0, false},
		{"double dash, equals", []string{"--config=a.toml"}, nil, "a.toml", 0, false},
		{"single dash", []string{"-config", "a.toml", "-json"}, nil, "a.toml", 0, true},
		{"flags after positionals", []string{"getSlot", "--timeout", "5s", "[]", "--json"}, []string{"getSlot", "[]"}, "", 5 * time.Second, true},
		{"bool with a value", []string{"--json=false"}, nil, "", 0, false},
		{"a value that starts with a dash", []string{"--config", "-odd.toml"}, nil, "-odd.toml", 0, false},
		{"a lone dash is positional", []string{"-"}, []string{"-"}, "", 0, false},
		{"after -- everything is positional", []string{"x", "--", "--json", "-1"}, []string{"x", "--json", "-1"}, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSet()
			pos, err := s.Parse(tt.args)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.args, err)
			}
			if !slices.Equal(pos, tt.positional) || *s.config != tt.config || *s.timeout != tt.timeout || *s.json != tt.json {
				t.Fatalf("Parse(%q) = %q, config %q timeout %s json %v; want %q, %q, %s, %v",
					tt.args, pos, *s.config, *s.timeout, *s.json, tt.positional, tt.config, tt.timeout, tt.json)
			}
		})
	}
}

func TestParseErrorsUseDoubleDashes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		flag string
		want string
	}{
		{"unknown", []string{"-bogus"}, "bogus", "unknown flag --bogus"},
		{"unknown, double dash", []string{"x", "--bogus=1"}, "bogus", "unknown flag --bogus"},
		{"missing value", []string{"--timeout"}, "timeout", "flag --timeout needs a value"},
		{"invalid duration", []string{"-timeout", "soon"}, "timeout", "--timeout: soon is not a duration: write a number and a unit, such as 5s, 1.5s, 500ms or 2m"},
		{"invalid number", []string{"--seed=-1"}, "seed", "--seed: -1 is negative: write a whole number, 0 or more"},
		{"invalid bool", []string{"--json=maybe"}, "json", "--json: maybe is not true or false: write --json alone, or --json=false"},
		{"three dashes", []string{"---json"}, "", "bad flag syntax: ---json"},
		{"no name", []string{"--=x"}, "", "bad flag syntax: --=x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newTestSet().Parse(tt.args)
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("Parse(%q) = %v, want a *UsageError", tt.args, err)
			}
			if ue.Error() != tt.want || ue.Flag != tt.flag {
				t.Fatalf("Parse(%q) = %q (flag %q), want %q (flag %q)", tt.args, ue.Error(), ue.Flag, tt.want, tt.flag)
			}
		})
	}
}

func TestParseHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--h", "-help", "--help"} {
		if _, err := newTestSet().Parse([]string{"x", arg}); !errors.Is(err, ErrHelp) {
			t.Errorf("Parse(x %s) = %v, want ErrHelp", arg, err)
		}
	}
}

func TestWriteHelp(t *testing.T) {
	var b strings.Builder
	newTestSet().WriteHelp(&b)
	want := `Usage: solroute test --config FILE [flags] ARG

Test things.

Flags:
  --config FILE
      read FILE
  --json
      write JSON
  --seed N
      seed N
      of everything (default 1)
  --timeout D
      bound by D

Example:
  solroute test --config rpc.toml x
`
	if b.String() != want {
		t.Fatalf("help:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	New("solroute bare", "solroute bare", "Nothing to set.", "solroute bare").WriteHelp(&b)
	if !strings.Contains(b.String(), "\nFlags: none\n") {
		t.Fatalf("help of a command without flags:\n%s", b.String())
	}
}

// A command defines its flags on the Set, parses, and prints a usage
// error on one line with the command's name.
func ExampleSet_Parse() {
	s := New("solroute call", "solroute call --config FILE METHOD", "Make one call.", "solroute call --config rpc.toml getSlot")
	timeout := s.Duration("timeout", 0, "bound the call by `D`")
	pos, err := s.Parse([]string{"getSlot", "--timeout", "5s"})
	fmt.Println(pos, *timeout, err)
	_, err = s.Parse([]string{"--timeout", "soon"})
	fmt.Println(err)
	// Output:
	// [getSlot] 5s <nil>
	// --timeout: soon is not a duration: write a number and a unit, such as 5s, 1.5s, 500ms or 2m
}
