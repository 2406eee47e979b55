package config

import (
	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/genesis"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// Document is a configuration document, parsed and checked: the settings of every package.
//
// Parse and Load fill every field, starting from the defaults
// (transport.DefaultSettings, pool.DefaultSettings, DefaultLimits), with
// every key the document sets taken as written. It is plain data: code may
// build or change one. A Document written by hand gets the same defaults
// as a parsed one: a nil Transport or Pool means its DefaultSettings, as
// in solroute.Options, and the zero Limits is local buckets. Printing a
// Document with any fmt verb, log/slog or encoding/json never shows a URL
// or a header value: those are endpoint.Secrets.
type Document struct {
	Cluster   string                    // "" (not checked), mainnet-beta, devnet, testnet, or a base58 genesis hash
	Endpoints []endpoint.Spec           // [[endpoints]], in document order, secrets ${VAR}-expanded
	Transport *transport.Settings       // [transport]; its Retry is the [retry] table. Nil: transport.DefaultSettings()
	Pool      *pool.Settings            // [pool] and [pool.ejection]. Nil: pool.DefaultSettings()
	Methods   map[string]methods.Method // [methods.NAME] (nil: none)
	Limits    Limits                    // [limits]: local buckets (the zero value), or shared through Redis
	Subscribe Subscribe                 // [subscribe]: the zero value takes every default
	Send      Send                      // [send]: the zero value takes every default
}

// layout is the document's top level: each key and the settings it fills.
// The keys inside each table are the toml tags of the settings types;
// these top-level names (and movedKeys, those of an earlier layout) are
// the only key names config writes itself. A pointer field is decoded
// into what it points to.
type layout struct {
	Cluster   *string                    `toml:"cluster"`
	Retry     *retrypolicy.Settings      `toml:"retry"`
	Transport *transport.Settings        `toml:"transport"`
	Pool      *pool.Settings             `toml:"pool"`
	Methods   *map[string]methods.Method `toml:"methods"`
	Endpoints *[]endpoint.Spec           `toml:"endpoints"`
	Limits    *Limits                    `toml:"limits"`
	Subscribe *Subscribe                 `toml:"subscribe"`
	Send      *Send                      `toml:"send"`
}

// layoutOf points a layout at d's fields; d.Transport and d.Pool must not
// be nil.
func layoutOf(d *Document) *layout {
	return &layout{
		Cluster:   &d.Cluster,
		Retry:     &d.Transport.Retry,
		Transport: d.Transport,
		Pool:      d.Pool,
		Methods:   &d.Methods,
		Endpoints: &d.Endpoints,
		Limits:    &d.Limits,
		Subscribe: &d.Subscribe,
		Send:      &d.Send,
	}
}

// ExpectedGenesisHash resolves Cluster to the genesis hash every endpoint
// must report. It reports false when Cluster is "" or not understood (Parse
// rejects the latter).
func (d *Document) ExpectedGenesisHash() (solana.Hash, bool) {
	return genesis.Of(d.Cluster)
}
