package transport

import (
	"context"
	"slices"
)

// capabilitiesKey is the context key of WithCapabilities.
type capabilitiesKey struct{}

// WithCapabilities returns a context under which every call requires an
// endpoint carrying each of caps (for example "archive"). It is how callers
// that go through solana-go's client, which has no such parameter, route
// one call to capable endpoints.
func WithCapabilities(ctx context.Context, caps ...string) context.Context {
	return context.WithValue(ctx, capabilitiesKey{}, slices.Clone(caps))
}

// capabilitiesFrom returns the capabilities set by WithCapabilities, or nil.
func capabilitiesFrom(ctx context.Context) []string {
	caps, _ := ctx.Value(capabilitiesKey{}).([]string)
	return caps
}
