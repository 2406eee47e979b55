package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/config"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/transport"
)

const callAbout = `
Make one JSON-RPC call through the pool built from the configuration:
the method's role picks the endpoints, tier 0 first; failures are retried
on other endpoints as the retry policy allows, and a sendTransaction is
never resent once it may have reached a server. The JSON result is written
to stdout as the endpoint sent it.

PARAMS_JSON is the JSON array of the method's parameters (omit it for
methods without any). A method solroute does not know (nor the
configuration's [methods] tables) is refused when a known method is close
("getslot": did you mean "getSlot"?), exit 2, nothing sent: method names
are case-sensitive, and a node answers a typo "Method not found". Any
other unknown method (a provider's own) is called, and treated like a
send: never resent once it may have reached a server. To call a
near-miss as written, declare it in [methods]. With --attempts,
each attempt is written to stderr as one JSON line: endpoint, tier, cause,
dispatch, http_status, rpc_code, duration_ms, decision, reason and delay.

Exit codes: 0 success, 1 the call failed, 2 a usage or configuration
error (a configuration with no endpoint for the method's role is one, and
so is a near-miss of a known method),
3 the call is never resent after dispatch (sendTransaction) and may have
reached a server: find out whether it landed before sending it again.`

const callExample = `
solroute call --config rpc.toml getBalance '["11111111111111111111111111111111"]'
solroute call --config rpc.toml --attempts --timeout 5s getSlot '[{"commitment":"finalized"}]'`

// runCall is "solroute call".
func runCall(ctx context.Context, e *env, args []string) int {
	f := newFlags("call", "call --config FILE [--timeout D] [--attempts] METHOD [PARAMS_JSON]", callAbout, callExample)
	cfgPath := f.String("config", "", "read the TOML configuration from `FILE` (required)")
	timeout := f.Duration("timeout", 0, "bound the whole call, every attempt and backoff included, by `D` (such as 5s); 0 means the endpoints' request_timeout")
	showAttempts := f.Bool("attempts", false, "write one JSON line per attempt to stderr")
	pos, code, done := f.parse(e, args)
	if done {
		return code
	}
	switch {
	case len(pos) == 0:
		return e.usageError("call", "METHOD is required")
	case len(pos) > 2:
		return e.usageError("call", "too many arguments: want METHOD [PARAMS_JSON], got %d arguments", len(pos))
	case *timeout < 0:
		return e.usageError("call", "--timeout must not be negative")
	}
	method, params, err := methodAndParams(pos)
	if err != nil {
		return e.usageError("call", "%v", err)
	}
	cfg, code := e.loadConfig("call", *cfgPath)
	if cfg == nil {
		return code
	}
	if s, near := nearMiss(method, cfg); near {
		return e.usageError("call", "unknown method %q: did you mean %q? Nothing was sent; to call %q as written, declare it in %s's [methods]",
			method, s, method, *cfgPath)
	}
	var hooks solroute.Hooks
	if *showAttempts {
		hooks.Observers = []transport.Observer{onAttempt(newAttemptWriter(e.stderr).write)}
	}
	c, err := fromDocument(cfg, hooks)
	if err != nil {
		fmt.Fprintf(e.stderr, "solroute call: %v\n", err)
		return exitUsage
	}
	defer c.Close()
	client := c
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = clockwork.WithTimeout(ctx, e.clock, *timeout)
		defer cancel()
	}
	var result json.RawMessage
	if err := client.CallForInto(ctx, &result, method, params); err != nil {
		if errors.Is(err, solroute.ErrNoEndpoint) {
			return e.noEndpoint("call", *cfgPath, method, client.Registry(), err)
		}
		return e.callFailed("call", err)
	}
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	fmt.Fprintf(e.stdout, "%s\n", result)
	return exitOK
}

// nearMiss returns the known method close to method (see suggest) when
// method is neither built in nor declared in cfg's [methods]: a typo that
// would otherwise be sent, and treated like a send (see
// methods.Registry.Lookup), to be answered "Method not found". A method
// far from every known one is not a near miss: it may be a provider's
// own.
func nearMiss(method string, cfg *config.Document) (string, bool) {
	known := append(methods.Default().Names(), slices.Collect(maps.Keys(cfg.Methods))...)
	return suggest(method, known)
}

// methodAndParams splits call's arguments, METHOD [PARAMS_JSON], into
// the method and its decoded parameters (nil without PARAMS_JSON).
func methodAndParams(pos []string) (string, []any, error) {
	if len(pos) < 2 {
		return pos[0], nil, nil
	}
	params, err := parseParams(pos[1])
	return pos[0], params, err
}

// parseParams decodes PARAMS_JSON, which must be a JSON array. Each
// element is kept as raw JSON, so numbers keep every digit.
func parseParams(s string) ([]any, error) {
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(s), &items); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, fmt.Errorf("PARAMS_JSON must be a JSON array, not a JSON %s", typeErr.Value)
		}
		return nil, fmt.Errorf("PARAMS_JSON is not valid JSON: %v", err)
	}
	params := make([]any, len(items))
	for i, it := range items {
		params[i] = it
	}
	return params, nil
}

// noEndpoint reports, on one line, a configuration that has no endpoint
// for the method's role, and returns exitUsage: the configuration is wrong,
// not the call, and no request was sent. err matches solroute.ErrNoEndpoint;
// the role is the method's (reg; the commands ask for no capability).
// The method is the caller's: the pool's error may not name it.
func (e *env) noEndpoint(cmd, cfgPath, method string, reg *methods.Registry, _ error) int {
	entry, _ := reg.Lookup(method)
	role := entry.Role
	fmt.Fprintf(e.stderr, "solroute %s: configuration error: %s needs an endpoint that serves role %s, and none in %s does "+
		"(give one an [endpoints.roles.%s] table)\n", cmd, method, role, cfgPath, role)
	return exitUsage
}

// callFailed reports a failed call on one line and returns its exit code:
// exitAmbiguous when the call may have reached a server and was not resent,
// exitFailed otherwise. Transport errors name endpoints only by name.
func (e *env) callFailed(cmd string, err error) int {
	if errors.Is(err, solroute.ErrAmbiguousDispatch) {
		// The error itself says to check whether it landed.
		fmt.Fprintf(e.stderr, "solroute %s: %v\n", cmd, err)
		return exitAmbiguous
	}
	fmt.Fprintf(e.stderr, "solroute %s: %v\n", cmd, err)
	return exitFailed
}
