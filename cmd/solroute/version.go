package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

const versionAbout = `
Print the version of this solroute binary: the module version it was built
from ("(devel)" when built from a work tree without version control
information, as by go run), the VCS revision when the build recorded one
(with "modified" when the work tree had uncommitted changes), and the Go
release that built it.`

const versionExample = `
solroute version`

// runVersion is "solroute version".
func runVersion(_ context.Context, e *env, args []string) int {
	f := newFlags("version", "version", versionAbout, versionExample)
	pos, code, done := f.parse(e, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.usageError("version", "unexpected argument %q: version takes no arguments", pos[0])
	}
	info, ok := e.buildInfo()
	fmt.Fprintln(e.stdout, versionLine(info, ok))
	return exitOK
}

// versionLine describes a build in one line: "solroute v1.2.0, go1.26.8",
// or "solroute (devel), revision 0123…cdef (modified), go1.26.8". ok false
// (a binary without build information) reads "(unknown)".
func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "solroute (unknown), " + runtime.Version()
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var b strings.Builder
	b.WriteString("solroute ")
	b.WriteString(version)
	var revision string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if revision != "" {
		fmt.Fprintf(&b, ", revision %s", revision)
		if modified {
			b.WriteString(" (modified)")
		}
	}
	goVersion := info.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	b.WriteString(", ")
	b.WriteString(goVersion)
	return b.String()
}
