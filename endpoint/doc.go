// Package endpoint describes the RPC endpoints solroute routes to and holds
// their live, per-role state.
//
// A [Spec] is what an operator configures: a non-secret Name, a secret URL
// and Headers, a Tier (0 is most preferred), capability tags and per-role
// [Limits]. [Validate] reports every problem of a configuration at once. The
// Name is the only way an endpoint is ever shown: no error, log line,
// snapshot or metric built by solroute carries the URL or a header value.
// Those are [Secret]s, which print as "[redacted]" under every fmt verb,
// log/slog and encoding/json, even inside a struct that holds a Spec in an
// unexported field (Spec's own String, GoString and LogValue leave them out
// too).
//
// The live state of each (endpoint, role) is the pool's (pool/internal/
// rolestate); this package holds what describes it: its [Health], why an
// admission was refused ([Block]), whether an endpoint is ejected after
// consecutive failures ([Ejection]), and a [Snapshot], a copy of one pair's
// state at one instant. It reads no clock.
package endpoint
