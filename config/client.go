package config

import (
	"fmt"
	"log/slog"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/registry"
	"github.com/solroute/solroute/transport"
)

// ClientOptions carry what a document does not: time, logging and hooks.
// The zero value is valid.
type ClientOptions struct {
	// Clock is the pool's source of time. Nil means the real clock.
	Clock clockwork.Clock
	// Logger receives the pool's and the transport's lines, which name
	// endpoints only by Name. Nil discards.
	Logger *slog.Logger
	// Registry maps method names to role and class. Nil means
	// registry.Default(). The document's [methods] tables (Config.Methods)
	// are added to it (see Config.MethodRegistry).
	Registry *registry.Registry
	// OnAttempt, when set, is called after every attempt (see
	// transport.Settings).
	OnAttempt func(method string, a transport.Attempt)
}

// NewPool builds the endpoint pool described by cfg: its endpoints, its
// ejection and its doubt settings.
func NewPool(cfg *Config, opts ClientOptions) (*pool.Pool, error) {
	specs, err := cfg.EndpointSpecs()
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	p, err := pool.New(specs, cfg.PoolSettings(), pool.Options{Clock: opts.Clock, Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return p, nil
}

// NewClient builds the pool and the transport described by cfg: a ready
// JSON-RPC client that routes every call across the configured endpoints,
// by the method registry cfg.MethodRegistry(opts.Registry) returns. Close
// it when done.
func NewClient(cfg *Config, opts ClientOptions) (*transport.Client, error) {
	reg := opts.Registry
	if len(cfg.Methods) > 0 {
		var err error
		if reg, err = cfg.MethodRegistry(opts.Registry); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
	}
	p, err := NewPool(cfg, opts)
	if err != nil {
		return nil, err
	}
	c, err := transport.New(p, cfg.TransportSettings(),
		transport.Options{Logger: opts.Logger, Registry: reg, OnAttempt: opts.OnAttempt})
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

// NewSolanaClient is NewClient wrapped in solana-go's *rpc.Client, so that
// every typed solana-go call goes through the pool. The *transport.Client
// is returned for Close and for the transport's typed errors.
func NewSolanaClient(cfg *Config, opts ClientOptions) (*rpc.Client, *transport.Client, error) {
	c, err := NewClient(cfg, opts)
	if err != nil {
		return nil, nil, err
	}
	return rpc.NewWithCustomRPCClient(c), c, nil
}
