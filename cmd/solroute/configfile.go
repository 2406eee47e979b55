package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/solroute/solroute/config"
)

// loadConfig loads the --config file of a command. On failure it writes
// what is wrong to stderr — one line, or one line per problem for an
// invalid document, a variable missing from the environment once however
// many values use it (see mergeMissingVars) — and returns exitUsage.
// Problems never quote a URL or a header value (package config guarantees
// it).
func (e *env) loadConfig(cmd, path string) (*config.Document, int) {
	if path == "" {
		return nil, e.usageError(cmd, "--config FILE is required")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err
		}
		fmt.Fprintf(e.stderr, "solroute %s: cannot read config file %q: %v\n", cmd, path, err)
		return nil, exitUsage
	}
	cfg, err := config.Parse(data, config.ParseOptions{Filename: path})
	if err == nil {
		return cfg, exitOK
	}
	var invalid *config.ValidationError
	if errors.As(err, &invalid) {
		merged := *invalid
		merged.Problems = mergeMissingVars(invalid.Problems, endpointNames(data))
		err = &merged
	}
	fmt.Fprintf(e.stderr, "solroute %s: %v\n", cmd, err)
	return nil, exitUsage
}
