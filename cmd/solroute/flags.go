package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// cmdFlags is one command's flag set and help text. Flags and positional
// arguments may come in any order ("call getSlot --attempts" works).
type cmdFlags struct {
	*flag.FlagSet
	name     string // the command, "call"
	synopsis string // after "solroute ": "call --config FILE [flags] METHOD [PARAMS_JSON]"
	about    string // what the command does, one paragraph or more
	example  string // one or more example command lines
}

// newFlags returns an empty flag set for the command. Its errors are not
// printed by package flag: parse reports them on one line.
func newFlags(name, synopsis, about, example string) *cmdFlags {
	fs := flag.NewFlagSet("solroute "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &cmdFlags{FlagSet: fs, name: name, synopsis: synopsis, about: about, example: example}
}

// parse parses args. When it returns done, the command must return code at
// once: help was asked for (printed to stdout, exit 0) or a flag was wrong
// (one line on stderr, exit 2). Otherwise it returns the positional
// arguments.
func (f *cmdFlags) parse(e *env, args []string) (positional []string, code int, done bool) {
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				f.help(e.stdout)
				return nil, exitOK, true
			}
			return nil, e.usageError(f.name, "%v", err), true
		}
		rest := f.Args()
		if len(rest) == 0 {
			return positional, exitOK, false
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			// After "--" everything is positional.
			return append(positional, rest...), exitOK, false
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// help writes the command's help: synopsis, description, flags, example.
func (f *cmdFlags) help(w io.Writer) {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: solroute %s\n\n%s\n\nFlags:\n", f.synopsis, strings.TrimSpace(f.about))
	f.VisitAll(func(fl *flag.Flag) {
		name, usage := flag.UnquoteUsage(fl)
		fmt.Fprintf(&b, "  --%s", fl.Name)
		if name != "" {
			fmt.Fprintf(&b, " %s", name)
		}
		fmt.Fprintf(&b, "\n      %s", usage)
		if fl.DefValue != "" && fl.DefValue != "false" && fl.DefValue != "0" && fl.DefValue != "0s" {
			fmt.Fprintf(&b, " (default %s)", fl.DefValue)
		}
		b.WriteByte('\n')
	})
	fmt.Fprintf(&b, "\nExample:\n%s\n", indent(strings.TrimSpace(f.example), "  "))
	_, _ = io.WriteString(w, b.String())
}

// usageError writes "solroute CMD: MESSAGE (see 'solroute CMD --help')" on
// one line and returns exitUsage.
func (e *env) usageError(cmd, format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(e.stderr, "solroute %s: %s (see 'solroute %s --help')\n", cmd, msg, cmd)
	return exitUsage
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
