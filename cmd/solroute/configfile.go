package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/solroute/solroute/config"
)

// loadConfig loads the --config file of a command. On failure it writes
// what is wrong to stderr — one line, or one line per problem for an
// invalid document — and returns exitUsage. Problems never quote a URL or a
// header value (package config guarantees it).
func (e *env) loadConfig(cmd, path string) (*config.Document, int) {
	if path == "" {
		return nil, e.usageError(cmd, "--config FILE is required")
	}
	cfg, err := config.Load(path)
	if err == nil {
		return cfg, exitOK
	}
	var pathErr *fs.PathError
	var invalid *config.ValidationError
	switch {
	case errors.As(err, &invalid):
		fmt.Fprintf(e.stderr, "solroute %s: %v\n", cmd, invalid)
	case errors.As(err, &pathErr):
		fmt.Fprintf(e.stderr, "solroute %s: cannot read config file %q: %v\n", cmd, path, pathErr.Err)
	default:
		fmt.Fprintf(e.stderr, "solroute %s: %v\n", cmd, err)
	}
	return nil, exitUsage
}
