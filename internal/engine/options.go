package engine

import (
	"log/slog"

	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/transport"
)

// Options carry what code supplies and a document does not. The zero value
// is valid.
type Options struct {
	// Logger receives one structured line per attempt naming endpoints by
	// Name only. Nil discards.
	Logger *slog.Logger
	// Observers observe every call from the start, after the logger (see
	// Engine.Observe).
	Observers []transport.Observer
	// Registry maps method names to role and class. Nil means
	// methods.Default().
	Registry *methods.Registry
	// Genesis, when set, is the base58 genesis hash every endpoint must
	// report (the cluster guard): each endpoint is held until one
	// getGenesisHash through its own limits says so, and excluded for good
	// when it says otherwise. "" checks nothing.
	Genesis string
}
