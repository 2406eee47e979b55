// Package cliflag parses the flags of solroute's commands and writes their
// help, so that help, errors and docs/cli.md spell every flag the same
// way: with two dashes.
//
// Package flag defines the flags and their values; only the parsing is
// this package's, because package flag's error messages name a flag with
// one dash ("flag provided but not defined: -bogus") while the help shows
// two. The command line syntax is package flag's, plus positional arguments
// anywhere:
//
//   - --name VALUE and --name=VALUE set a flag; one dash works too.
//   - A boolean flag takes no separate value: --json, or --json=false.
//   - -h, --help and -help ask for help unless the command defines them.
//   - Every other argument is positional, wherever it stands; after "--"
//     every argument is positional, even one that starts with a dash.
//
// A Set is used by one goroutine, once.
//
// It is a copy of the library's internal/cliflag, so that solroute-bench
// spells its flags as cmd/solroute does (docs/cli.md) while this module
// imports nothing but the library's public packages (see tools/doc.go):
// a change to the syntax there is made here too.
package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// ErrHelp is returned by Set.Parse when the arguments ask for help.
var ErrHelp = errors.New("cliflag: help requested")

// UsageError is a wrong command line: an unknown flag, a flag without its
// value, a value its flag cannot parse. Its text names flags with two
// dashes and holds no newline; for a value, it says what the flag wants
// ("--duration: 5 is not a duration: write 5s").
type UsageError struct {
	// Flag is the flag's name without dashes; "" when the argument is not
	// a flag name at all.
	Flag string
	// Msg is the whole message.
	Msg string
}

// Error returns Msg.
func (e *UsageError) Error() string { return e.Msg }

// Set is one command's flags and help text. Define flags with the
// embedded *flag.FlagSet's methods (String, Duration, BoolVar, ...), then
// call Parse once.
type Set struct {
	*flag.FlagSet
	// Usage is the synopsis after "Usage: " ("solroute call --config FILE
	// [flags] METHOD").
	Usage string
	// About says what the command does, one paragraph or more.
	About string
	// Example is one or more example command lines, one a line.
	Example string
}

// New returns a Set without flags for the command named name ("solroute
// call"). Package flag prints nothing for it: Parse reports every problem
// as an error.
func New(name, usage, about, example string) *Set {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &Set{FlagSet: fs, Usage: usage, About: about, Example: example}
}

// Parse sets the flags in args and returns the positional arguments, in
// order. Its error is ErrHelp or a *UsageError; flags set before the
// error keep their values.
func (s *Set) Parse(args []string) (positional []string, err error) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			return append(positional, args[i+1:]...), nil
		}
		if len(arg) < 2 || arg[0] != '-' {
			positional = append(positional, arg) // "-" alone is an argument, as in package flag
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(arg[1:], "-"), "=")
		if name == "" || name[0] == '-' {
			return positional, &UsageError{Msg: fmt.Sprintf("bad flag syntax: %s", arg)}
		}
		fl := s.Lookup(name)
		if fl == nil {
			if name == "h" || name == "help" {
				return positional, ErrHelp
			}
			return positional, &UsageError{Flag: name, Msg: fmt.Sprintf("unknown flag --%s", name)}
		}
		if !hasValue {
			if isBool(fl) {
				value = "true"
			} else {
				if i+1 == len(args) {
					return positional, &UsageError{Flag: name, Msg: fmt.Sprintf("flag --%s needs a value", name)}
				}
				i++
				value = args[i]
			}
		}
		if err := s.Set(name, value); err != nil {
			return positional, &UsageError{Flag: name, Msg: valueMessage(fl, value, err)}
		}
	}
	return positional, nil
}

// isBool reports whether fl is a boolean flag, which takes no separate
// value (package flag's rule).
func isBool(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// WriteHelp writes the help: usage, about, every flag with two dashes,
// its value's name, its meaning and its default, then the example.
func (s *Set) WriteHelp(w io.Writer) {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s\n\n%s\n\n", s.Usage, strings.TrimSpace(s.About))
	n := 0
	s.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		b.WriteString("Flags: none\n")
	} else {
		b.WriteString("Flags:\n")
	}
	s.VisitAll(func(fl *flag.Flag) {
		name, usage := flag.UnquoteUsage(fl)
		fmt.Fprintf(&b, "  --%s", fl.Name)
		if name != "" && !isBool(fl) {
			fmt.Fprintf(&b, " %s", name)
		}
		fmt.Fprintf(&b, "\n      %s", strings.ReplaceAll(usage, "\n", "\n      "))
		if showDefault(fl) {
			fmt.Fprintf(&b, " (default %s)", fl.DefValue)
		}
		b.WriteByte('\n')
	})
	fmt.Fprintf(&b, "\nExample:\n%s\n", Indent(strings.TrimSpace(s.Example), "  "))
	_, _ = io.WriteString(w, b.String())
}

// showDefault reports whether the help states fl's default: not when it
// is a zero value, which reads as "not set".
func showDefault(fl *flag.Flag) bool {
	switch fl.DefValue {
	case "", "false", "0", "0s":
		return false
	}
	return true
}

// Indent prefixes every line of s with prefix.
func Indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
