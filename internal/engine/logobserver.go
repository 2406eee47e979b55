package engine

import (
	"context"
	"log/slog"

	"github.com/solroute/solroute/transport"
)

// logObserver is the engine's logger as one more Observer: one structured
// line per attempt, naming the endpoint by its Name only (debug for a
// success, info for a failure, with its decision and its secret-free
// error).
type logObserver struct{ l *slog.Logger }

// CallStarted returns ctx.
func (o logObserver) CallStarted(ctx context.Context, _ transport.CallInfo) context.Context {
	return ctx
}

// AttemptStarted returns ctx.
func (o logObserver) AttemptStarted(ctx context.Context, _ transport.CallInfo, _ transport.Attempt) context.Context {
	return ctx
}

// AttemptEnded logs a.
func (o logObserver) AttemptEnded(ctx context.Context, call transport.CallInfo, a transport.Attempt) {
	level := slog.LevelDebug
	if a.Cause != 0 {
		level = slog.LevelInfo
	}
	if !o.l.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", call.Method),
		slog.Int("attempt", a.Number),
		slog.String("endpoint", a.Endpoint),
		slog.Int("tier", a.Tier),
		slog.String("cause", a.Cause.String()),
		slog.String("dispatch", a.Dispatch.String()),
		slog.Int("http_status", a.HTTPStatus),
		slog.Int("rpc_code", a.RPCCode),
		slog.Duration("duration", a.Duration),
	}
	if a.Cause != 0 {
		attrs = append(attrs,
			slog.String("decision", a.Decision.Rule.String()),
			slog.Duration("delay", a.Decision.Delay),
			slog.String("reason", a.Decision.Reason))
	}
	if a.Err != nil {
		attrs = append(attrs, slog.String("error", a.Err.Error())) // secret-free by construction
	}
	o.l.LogAttrs(ctx, level, "transport: attempt", attrs...)
}

// CallEnded does nothing.
func (o logObserver) CallEnded(context.Context, transport.CallInfo, transport.CallResult) {}
