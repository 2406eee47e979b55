package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/transport"
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
func Load(path string) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(data, ParseOptions{Filename: path})
}

// Parse decodes a TOML document into the settings of every package and
// checks all of it. Decoding starts from the defaults
// (transport.DefaultSettings, pool.DefaultSettings, DefaultLimits) and
// sets the keys the
// document has, as written. Parse returns a *ValidationError listing every
// problem at once — unknown keys (with the key meant, when one is close,
// or where a key of an earlier layout moved), values of the wrong type,
// bad durations, missing environment variables, the document's own rules
// and every problem the settings' Validate methods and endpoint.Validate
// find — each with its key path and line. Only a TOML syntax error (a key
// defined twice, a table where a value belongs, ...) stops the check
// early, as the only problem. A Document returned passes
// endpoint.Validate, transport.Settings.Validate, pool.Settings.Validate,
// Limits.Validate and Registry(nil); its Transport and Pool are not nil.
func Parse(data []byte, opts ParseOptions) (*Document, error) {
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	pos := indexPositions(data)
	var tree map[string]any
	if err := toml.Unmarshal(data, &tree); err != nil {
		var decode *toml.DecodeError
		if !errors.As(err, &decode) {
			return nil, fmt.Errorf("config: %w", err)
		}
		return nil, &ValidationError{File: opts.Filename, Problems: []Problem{decodeProblem(pos, decode)}}
	}

	ts, ps := transport.DefaultSettings(), pool.DefaultSettings()
	d := &Document{Transport: &ts, Pool: &ps, Limits: DefaultLimits()}
	p := &parser{problems: problems{pos: pos}, lookup: lookup, present: map[string]bool{},
		root: reflect.ValueOf(layoutOf(d)).Elem()}
	p.value("", tree, p.root)
	unknown, tooMany := p.unknownProblems()
	if tooMany {
		return nil, &ValidationError{File: opts.Filename, Problems: unknown}
	}
	p.list = append(p.list, unknown...)
	p.checkCluster(d)
	p.checkHeaders(d)
	p.checkMethods(d)
	p.checkCoalesce(d)
	p.checkEjectionOrder(d)
	p.checkSettings(d)
	p.checkSubscribe(d)
	p.checkSend(d)
	p.checkWide()
	if len(p.list) > 0 {
		return nil, &ValidationError{File: opts.Filename, Problems: p.sorted()}
	}
	return d, nil
}

// decodeProblem turns go-toml's error into a Problem: its line from
// Position, its path from Key. Its String() form is never used: it shows
// lines of the document, which may hold secrets.
func decodeProblem(pos *positions, e *toml.DecodeError) Problem {
	line, col := e.Position()
	// The message may name a key ("key a is already defined") as the
	// document wrote it: escape it as paths are.
	p := Problem{Line: line, Message: printable(numberMessage(strings.TrimPrefix(e.Error(), "toml: ")))}
	if key := e.Key(); len(key) > 0 {
		p.Path = pos.pathAt(line, key)
	} else {
		p.Path = pos.pathBefore(line, col) // a value the decoder could not convert
	}
	return p
}

// numberMessage drops strconv's part of a number the decoder could not
// convert ("unable to parse float: strconv.ParseFloat: parsing "1e400":
// value out of range"), which quotes the value, and keeps why.
func numberMessage(msg string) string {
	i := strings.Index(msg, ": strconv.")
	if i < 0 {
		return msg
	}
	why := "not a number"
	if strings.HasSuffix(msg, "value out of range") {
		why = "out of range"
	}
	return msg[:i] + ": " + why
}
