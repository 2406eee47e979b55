package transport

// CONTRACT FILE written by the lead: the exported names and signatures below
// are shared with methods/, config/ and cmd/. Implement the bodies; add what
// you need; do not rename or change these signatures without telling the
// lead. Split into files named for what they hold and delete this comment.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/solroute/solroute/methods/registry"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
)

// Settings tune a Client. The zero value is valid.
type Settings struct {
	// Retry tunes the retry policy; zero fields mean its defaults.
	Retry retrypolicy.Settings
	// MaxResponseBytes bounds one response body, read as a stream. 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Logger receives one structured line per attempt naming endpoints by
	// Name only. Nil discards.
	Logger *slog.Logger
	// Registry maps method names to role and class. Nil means
	// registry.Default().
	Registry *registry.Registry
	// OnAttempt, when set, is called after every attempt (success or not),
	// from the calling goroutine.
	OnAttempt func(method string, a Attempt)
}

// DefaultMaxResponseBytes is the response size limit when
// Settings.MaxResponseBytes is 0.
const DefaultMaxResponseBytes = 64 << 20

// ErrAmbiguousDispatch is matched (errors.Is) by a *CallError of a
// NeverAfterDispatch call that stopped because an attempt may have reached a
// server.
var ErrAmbiguousDispatch = errors.New("transport: request may have reached a server; not resent")

// Attempt is one attempt of one call.
type Attempt struct {
	Endpoint   string
	Tier       int
	Cause      retrypolicy.Cause // 0 on success
	Dispatch   retrypolicy.DispatchState
	HTTPStatus int // 0 when no status line arrived
	RPCCode    int // 0 when no JSON-RPC error
	Duration   time.Duration
	Decision   retrypolicy.Decision // zero on success
}

// CallError is a failed call: its method, final cause and every attempt.
type CallError struct {
	Method   string
	Cause    retrypolicy.Cause
	Attempts []Attempt
}

// RPCError is a JSON-RPC error answered by an endpoint.
type RPCError struct {
	Code    int
	Message string
	Data    json.RawMessage
}

// Client routes JSON-RPC calls through a pool. It implements solana-go's
// rpc.JSONRPCClient. It is safe for concurrent use.
type Client struct{}

// New builds a Client over p.
func New(p *pool.Pool, s Settings) (*Client, error) { panic("TODO") }

// CallForInto calls method with params and decodes the result into out.
func (c *Client) CallForInto(ctx context.Context, out any, method string, params []any) error {
	panic("TODO")
}

// CallWithCallback calls method and hands the raw HTTP exchange to callback.
func (c *Client) CallWithCallback(ctx context.Context, method string, params []any, callback func(*http.Request, *http.Response) error) error {
	panic("TODO")
}

// CallBatch sends requests as one batch to one endpoint under one permit.
func (c *Client) CallBatch(ctx context.Context, requests jsonrpc.RPCRequests) (jsonrpc.RPCResponses, error) {
	panic("TODO")
}

// Close releases every idle connection.
func (c *Client) Close() error { panic("TODO") }
