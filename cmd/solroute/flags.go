package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/solroute/solroute/internal/cliflag"
)

// cmdFlags is one command's flag set and help text (package cliflag: flags
// and positional arguments in any order, "call getSlot --attempts" works;
// help and errors spell flags with two dashes).
type cmdFlags struct {
	*cliflag.Set
	name string // the command, "call"
}

// newFlags returns an empty flag set for the command. synopsis follows
// "solroute " ("call --config FILE [flags] METHOD [PARAMS_JSON]"); about
// says what the command does; example holds command lines, one a line.
func newFlags(name, synopsis, about, example string) *cmdFlags {
	return &cmdFlags{Set: cliflag.New("solroute "+name, "solroute "+synopsis, about, example), name: name}
}

// parse parses args. When it returns done, the command must return code at
// once: help was asked for (printed to stdout, exit 0) or a flag was wrong
// (one line on stderr, exit 2). Otherwise it returns the positional
// arguments.
func (f *cmdFlags) parse(e *env, args []string) (positional []string, code int, done bool) {
	positional, err := f.Parse(args)
	switch {
	case errors.Is(err, cliflag.ErrHelp):
		f.WriteHelp(e.stdout)
		return nil, exitOK, true
	case err != nil:
		return nil, e.usageError(f.name, "%v", err), true
	}
	return positional, exitOK, false
}

// given reports whether the command line set flag name, to tell a value
// given as 0 from one left out.
func given(f *cmdFlags, name string) bool {
	set := false
	f.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// usageError writes "solroute CMD: MESSAGE (see 'solroute CMD --help')" on
// one line and returns exitUsage.
func (e *env) usageError(cmd, format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(e.stderr, "solroute %s: %s (see 'solroute %s --help')\n", cmd, msg, cmd)
	return exitUsage
}
