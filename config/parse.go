package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/solroute/solroute/endpoint"
)

// ParseOptions tune Parse. The zero value is valid.
type ParseOptions struct {
	// LookupEnv resolves the ${NAME} references in url and header values.
	// Nil means os.LookupEnv. A variable that is set to "" expands to "".
	LookupEnv func(name string) (string, bool)
	// Filename names the document in a *ValidationError. "" means none.
	Filename string
}

// Load reads the TOML document at path and parses it with the process
// environment. A document that is not valid yields a *ValidationError whose
// File is path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(data, ParseOptions{Filename: path})
}

// Parse decodes a TOML document strictly and checks all of it. It returns a
// *ValidationError listing every problem at once — unknown keys, values of
// the wrong type, bad durations, negative numbers, missing environment
// variables, and every problem endpoint.Validate finds — each with its key
// path and line. Only a TOML syntax error (or a table given where a value
// belongs, or the reverse) stops the check early, as the only problem.
func Parse(data []byte, opts ParseOptions) (*Config, error) {
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	c := &checker{problems: problems{pos: indexPositions(data)}, lookup: lookup}
	if c.tooManyUnknown() {
		return nil, &ValidationError{File: opts.Filename, Problems: c.sorted()}
	}

	var d document
	err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(&d)
	var strict *toml.StrictMissingError
	var decode *toml.DecodeError
	switch {
	case err == nil:
	case errors.As(err, &strict):
		// Every unknown key at once; the rest of the document was decoded.
		for i := range strict.Errors {
			e := &strict.Errors[i]
			line, _ := e.Position()
			path := c.pos.pathAt(line, e.Key())
			c.list = append(c.list, Problem{Path: path, Line: line, Message: "unknown key"})
		}
	case errors.As(err, &decode):
		return nil, &ValidationError{File: opts.Filename, Problems: []Problem{decodeProblem(c.pos, decode)}}
	default:
		return nil, fmt.Errorf("config: %w", err)
	}

	cfg := c.config(&d)
	var verr *endpoint.ValidationError
	if _, err := cfg.EndpointSpecs(); errors.As(err, &verr) {
		for _, p := range verr.Problems {
			// A problem the checks above already reported at this key
			// (a value they rejected and left at its zero) is not
			// repeated.
			if !c.has(p.Path) {
				c.add(p.Path, p.Message)
			}
		}
	} else if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if len(c.list) > 0 {
		return nil, &ValidationError{File: opts.Filename, Problems: c.sorted()}
	}
	return cfg, nil
}

// decodeProblem turns go-toml's error into a Problem. Its String() form is
// never used: it shows lines of the document, which may hold secrets.
func decodeProblem(pos *positions, e *toml.DecodeError) Problem {
	line, _ := e.Position()
	// The message may name a key ("key a is already defined") as the
	// document wrote it: escape it as paths are.
	p := Problem{Line: line, Message: printable(strings.TrimPrefix(e.Error(), "toml: "))}
	if key := e.Key(); len(key) > 0 {
		p.Path = pos.pathAt(line, key)
	}
	// A type mismatch on a table (every leaf is decoded as any) reads
	// "cannot decode TOML integer into struct field config.rolesDoc...":
	// keep the TOML side and say what the document wants instead of naming
	// Go types.
	if msg, _, found := strings.Cut(p.Message, " into "); found && strings.HasPrefix(msg, "cannot decode TOML ") {
		p.Message = "must be " + wantAt(p.Path) + ", not a TOML " + strings.TrimPrefix(msg, "cannot decode TOML ")
	}
	return p
}

// wantAt names what the document expects at a structural key.
func wantAt(path string) string {
	if stripIndexes(path) == "endpoints" {
		return "an array of tables ([[endpoints]])"
	}
	return "a table"
}
