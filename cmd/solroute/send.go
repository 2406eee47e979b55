package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	"github.com/solroute/solroute"
)

const sendAbout = `
Send a signed transaction through the pool built from the configuration:
sendTransaction on the send endpoints, tier 0 first. A send that fails
before any server can have acted on it is retried elsewhere; once it may
have reached a server it is never resent.

TX is the signed transaction's wire bytes in base64 (solana-go's
tx.ToBase64(), web3.js's Buffer.from(tx.serialize()).toString("base64"))
or base58; it is sent as base64. It is checked before any request: it
must decode to one whole transaction of at most 1232 bytes that carries
every signature its message requires, each valid.

Without --confirm the signature the endpoint answered is printed. A send
that may have reached a server without an answer exits 3: find out
whether it landed with 'solroute confirm' before sending it again.

With --confirm (which needs --last-valid-block-height, but for a
durable-nonce transaction, whose first instruction advances a nonce
account: it expires when its nonce moves on, read from the transaction
itself), the send is
followed, as 'solroute confirm' does, until the transaction has landed at
--commitment or expired, or --timeout passes; an ambiguous send is
resolved the same way, never resent. --rebroadcast D re-sends the
identical signed bytes every D while it is not yet confirmed and its
blockhash is valid: the chain keeps one transaction per signature, so this
can land it once, never twice; the report counts the rebroadcasts.

--fan-out K sends the same signed bytes to K distinct send endpoints at
once, best tier first among those that can take one now, each copy under
its endpoint's limits and never resent once it may have reached a server;
a copy refused before dispatch goes to the next endpoint. The chain keeps
one transaction per signature: the copies land it once at most. Without
--confirm, a line per endpoint follows the signature: accepted, refused
(nothing sent there) or ambiguous. With --confirm, every rebroadcast goes
to the same endpoints. K above the configuration's send endpoints is a
usage error, before any request.

The node simulates the transaction first (preflight) on the bank at
--preflight-commitment, confirmed by default: the node's own default,
finalized, refuses a blockhash fetched at confirmed as not found.
--skip-preflight sends without simulating.

Exit codes: 0 sent (with --confirm: landed), 1 the send was refused
before any server acted on it (a preflight failure, say: nothing to
confirm), 2 a usage or configuration error, before any request; without
--confirm 3 the send may have reached a server and was not resent; with
--confirm 4 landed with an on-chain error, 5 expired, 6 unknown (no
verdict within --timeout).`

const sendExample = `
solroute send --config rpc.toml "$(cat signed-tx.b64)"
solroute send --config rpc.toml --confirm --last-valid-block-height 312104467 --rebroadcast 2s "$(cat signed-tx.b64)"
solroute send --config rpc.toml --fan-out 3 --confirm --last-valid-block-height 312104467 "$(cat signed-tx.b64)"`

// runSend is "solroute send".
func runSend(ctx context.Context, e *env, args []string) int {
	f := newFlags("send", "send --config FILE [--confirm --last-valid-block-height N [--rebroadcast D] [--commitment C]] "+
		"[--fan-out K] [--preflight-commitment C | --skip-preflight] [--timeout D] [--json] TX", sendAbout, sendExample)
	cfgPath := f.String("config", "", "read the TOML configuration from `FILE` (required)")
	confirmIt := f.Bool("confirm", false, "after the send, wait for the verdict: landed, failed on chain, expired or unknown")
	lvbh := f.Uint64("last-valid-block-height", 0, "`N`, "+lastValidHelp+" (required with --confirm; without, it completes the 'solroute confirm' line an ambiguous send prints)")
	rebroadcast := f.Duration("rebroadcast", 0, "with --confirm, re-send the identical signed bytes every `D` while unconfirmed and valid; 0 means never")
	commitment := f.String("commitment", "confirmed", "with --confirm, the commitment `C` the transaction must reach to count as landed: processed, confirmed or finalized")
	preflight := f.String("preflight-commitment", "confirmed", "simulate the transaction on the bank at commitment `C` before sending (the node's own default, finalized, refuses a blockhash fetched at confirmed)")
	skipPreflight := f.Bool("skip-preflight", false, "send without the node's preflight simulation")
	fanOut := f.Int("fan-out", 0, "send the same signed bytes to `K` distinct send endpoints at once (1: one send through the pool; left out: the document's [send] fan_out, else 1)")
	timeout := f.Duration("timeout", defaultResolveTimeout, "bound the whole command by `D`: the send and, with --confirm, the wait for a verdict (then unknown, exit 6)")
	asJSON := f.Bool("json", false, "write the signature, or with --confirm the report, as JSON")
	pos, code, done := f.parse(e, args)
	if done {
		return code
	}
	set := make(map[string]bool)
	f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	switch {
	case len(pos) == 0:
		return e.usageError("send", "TX is required: a signed transaction's wire bytes in base64 or base58")
	case len(pos) > 1:
		return e.usageError("send", "too many arguments: want one TX, got %d arguments", len(pos))
	case set["rebroadcast"] && !*confirmIt:
		return e.usageError("send", "--rebroadcast needs --confirm: it re-sends while waiting for the verdict")
	case set["commitment"] && !*confirmIt:
		return e.usageError("send", "--commitment needs --confirm: it is the commitment the verdict waits for (the preflight's is --preflight-commitment)")
	case set["preflight-commitment"] && *skipPreflight:
		return e.usageError("send", "--preflight-commitment and --skip-preflight contradict each other: give one")
	case *rebroadcast < 0:
		return e.usageError("send", "--rebroadcast must not be negative")
	case *timeout <= 0:
		return e.usageError("send", "--timeout must be positive")
	case set["fan-out"] && *fanOut < 1:
		return e.usageError("send", "--fan-out must be at least 1: the number of send endpoints each copy goes to")
	}
	tx, wire, err := parseTransaction(pos[0])
	if err != nil {
		return e.usageError("send", "%v", err)
	}
	x := expiryOf(tx, *lvbh)
	switch {
	case x.lookup && *confirmIt:
		return e.usageError("send", "the transaction is a durable-nonce transaction whose message loads its nonce account from an address "+
			"lookup table, which this command cannot read to name it: send it without --confirm, then run 'solroute confirm --config %s %s "+
			"--nonce-account A --nonce %s' with A the account", *cfgPath, tx.Signatures[0], x.nonce)
	case x.nonced() && set["last-valid-block-height"]:
		which := "the nonce account " + x.nonceAccount.String()
		if x.lookup {
			which = "a nonce account its message loads from an address lookup table"
		}
		return e.usageError("send", "the transaction is a durable-nonce transaction (its first instruction advances %s): "+
			"it has no last valid block height and expires when its nonce moves on; drop --last-valid-block-height", which)
	case *confirmIt && !x.nonced() && *lvbh == 0:
		return e.usageError("send", "--confirm needs --last-valid-block-height N: %s", lastValidHelp)
	}
	level, err := parseCommitment("commitment", *commitment)
	if err != nil {
		return e.usageError("send", "%v", err)
	}
	preflightLevel, err := parseCommitment("preflight-commitment", *preflight)
	if err != nil {
		return e.usageError("send", "%v", err)
	}
	cfg, code := e.loadConfig("send", *cfgPath)
	if cfg == nil {
		return code
	}
	if !set["fan-out"] {
		*fanOut = max(cfg.Send.FanOut, 1) // the document's [send] fan_out
	}
	if n := sendEndpoints(cfg.Endpoints); *fanOut > 1 && *fanOut > n {
		return e.usageError("send", "--fan-out %d is more than the configuration's %d send endpoints: each copy goes to a distinct one", *fanOut, n)
	}
	needs := []string{"sendTransaction"}
	if *confirmIt {
		needs = append(needs, resolveMethods...)
	}
	c, code := e.openPool("send", *cfgPath, cfg, needs...)
	if c == nil {
		return code
	}
	defer c.Close()
	ctx, cancel := e.withTimeout(ctx, *timeout)
	defer cancel()
	sig := tx.Signatures[0].String()

	if !*confirmIt && *fanOut > 1 {
		return e.sendToMany(ctx, c.Client, tx, *fanOut, *skipPreflight, preflightLevel, *cfgPath, x, *asJSON)
	}
	if !*confirmIt {
		params := map[string]any{"encoding": "base64", "preflightCommitment": preflightLevel}
		if *skipPreflight {
			params = map[string]any{"encoding": "base64", "skipPreflight": true}
		}
		var answered string
		if err := c.CallForInto(ctx, &answered, "sendTransaction", []any{wire, params}); err != nil {
			return e.sendFailed(err, *cfgPath, sig, x)
		}
		if *asJSON {
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(struct {
				Signature string `json:"signature"`
			}{answered})
		} else {
			fmt.Fprintln(e.stdout, answered)
		}
		return exitOK
	}

	rs := &resolution{cfgPath: *cfgPath, commitment: level, timeout: *timeout, send: true, rebroadcast: *rebroadcast}
	o := rs.options(e)
	o.SkipPreflight, o.PreflightCommitment, o.FanOut = *skipPreflight, preflightLevel, *fanOut
	r, err := c.SendAndConfirm(ctx, tx, *lvbh, o)
	if err != nil {
		return e.sendFailed(err, *cfgPath, sig, x)
	}
	rep := rs.report(ctx, r)
	rep.write(e.stdout, *asJSON)
	return rep.exitCode()
}

// sendFailed reports a send that failed on one line and returns its exit
// code: exitAmbiguous, with the 'solroute confirm' command line that
// finds out whether it landed, when it may have reached a server (x its
// expiry flags); exitUsage when no endpoint serves sends (checked before,
// so not expected); exitFailed otherwise.
func (e *env) sendFailed(err error, cfgPath, sig string, x expiry) int {
	switch {
	case errors.Is(err, solroute.ErrAmbiguousDispatch):
		fmt.Fprintf(e.stderr, "solroute send: %v; find out whether it landed with: solroute confirm --config %s %s %s\n",
			err, cfgPath, sig, x.flags())
		return exitAmbiguous
	case errors.Is(err, solroute.ErrNoEndpoint):
		fmt.Fprintf(e.stderr, "solroute send: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(e.stderr, "solroute send: %v\n", err)
	return exitFailed
}
