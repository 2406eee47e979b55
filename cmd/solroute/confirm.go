package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/internal/resolve"
)

const confirmAbout = `
Find out what became of a transaction already sent, by its signature and
the last valid block height of its blockhash: poll getSignatureStatuses
and the finalized block height through the pool until it has landed at
--commitment, or expired, or --timeout passes. Nothing is sent. "Expired"
is only concluded when --quorum endpoints (default 2, or 1 with one read
endpoint; one provider's endpoints count once beside others') each
report, asked one by one, a finalized block height past the last valid
one and no status for the signature, history searched, and no endpoint
knows it: one endpoint that lies about its height or missed the
transaction cannot make one that may still land look expired.

SIGNATURE is the transaction's first signature, in base 58 (what
sendTransaction answered, or what 'solroute send' printed);
--last-valid-block-height N is the lastValidBlockHeight that
getLatestBlockhash returned with the transaction's blockhash.

A durable-nonce transaction (its first instruction advances a nonce
account) has no last valid block height: give --nonce-account A (that
account) and --nonce N (the nonce it carries as its recent blockhash)
instead. It can land while the account holds that nonce, however many
blocks pass; "expired" then needs --quorum endpoints each to report, at
finalized commitment, the account holding the nonce and later another, and
no status for the signature 32 slots past that slot.

The report gives the status, the slot it landed in, the highest
confirmation seen, the on-chain error of a failed transaction, the
finalized block height a quorum of endpoints reached against the last
valid one, the polls made and, for expired and unknown, what each read
endpoint said (a "witness" line each) and why the verdict is what it is;
--json writes it as one JSON object.

Exit codes: 0 landed, 4 landed with an on-chain error (its fee was paid;
sending it again fails the same way), 5 expired (it can never land: sign it
again with a new blockhash), 6 unknown (no verdict within --timeout, or
interrupted: it may still land), 2 a usage or configuration error, before
any request.`

const confirmExample = `
solroute confirm --config rpc.toml 5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW --last-valid-block-height 312104467
solroute confirm --config rpc.toml --commitment finalized --timeout 3m --json SIGNATURE --last-valid-block-height 312104467
solroute confirm --config rpc.toml SIGNATURE --nonce-account NONCE_ACCOUNT --nonce NONCE`

// runConfirm is "solroute confirm".
func runConfirm(ctx context.Context, e *env, args []string) int {
	f := newFlags("confirm", "confirm --config FILE [--commitment C] [--quorum Q] [--timeout D] [--json] SIGNATURE "+
		"(--last-valid-block-height N | --nonce-account A --nonce N)", confirmAbout, confirmExample)
	cfgPath := f.String("config", "", "read the TOML configuration from `FILE` (required)")
	lvbh := f.Uint64("last-valid-block-height", 0, "`N`, "+lastValidHelp+" (required, but for a durable-nonce transaction)")
	nonceAccount := f.String("nonce-account", "", "for a durable-nonce transaction, the nonce account `A` its first instruction advances (with --nonce, instead of --last-valid-block-height)")
	nonce := f.String("nonce", "", "for a durable-nonce transaction, the nonce `N` it carries as its recent blockhash (with --nonce-account)")
	commitment := f.String("commitment", "confirmed", "the commitment `C` the transaction must reach to count as landed: processed, confirmed or finalized")
	quorum := f.Int("quorum", 0, "`Q` read endpoints must each vouch for expired (0: 2, or 1 with one read endpoint; one provider's endpoints count once beside other providers'; 1 takes one endpoint's word)")
	timeout := f.Duration("timeout", defaultResolveTimeout, "give up after `D` with the status unknown (exit 6)")
	asJSON := f.Bool("json", false, "write the report as JSON")
	pos, code, done := f.parse(e, args)
	if done {
		return code
	}
	switch {
	case len(pos) == 0:
		return e.usageError("confirm", "SIGNATURE is required: the transaction's first signature, in base 58")
	case len(pos) > 1:
		return e.usageError("confirm", "too many arguments: want one SIGNATURE, got %d arguments", len(pos))
	case (*nonceAccount == "") != (*nonce == ""):
		return e.usageError("confirm", "--nonce-account and --nonce go together: a durable-nonce transaction's account and the nonce it carries")
	case *nonce != "" && *lvbh != 0:
		return e.usageError("confirm", "--last-valid-block-height and --nonce contradict each other: a durable-nonce transaction has no last valid block height; give one")
	case *nonce == "" && *lvbh == 0 && given(f, "last-valid-block-height"):
		return e.usageError("confirm", "--last-valid-block-height: 0 is no last valid block height: write %s, above 0", lastValidHelp)
	case *nonce == "" && *lvbh == 0:
		return e.usageError("confirm", "--last-valid-block-height N is required: %s (or, for a durable-nonce transaction, --nonce-account A --nonce N)", lastValidHelp)
	case *timeout <= 0:
		return e.usageError("confirm", "--timeout must be positive")
	case *quorum < 0:
		return e.usageError("confirm", "--quorum must not be negative")
	}
	sig, err := parseSignature(pos[0])
	if err != nil {
		return e.usageError("confirm", "%v", err)
	}
	level, err := parseCommitment("commitment", *commitment)
	if err != nil {
		return e.usageError("confirm", "%v", err)
	}
	var x expiry
	if *nonce != "" {
		if x.nonceAccount, err = solana.PublicKeyFromBase58(*nonceAccount); err != nil || x.nonceAccount.IsZero() {
			return e.usageError("confirm", "invalid --nonce-account %q: want the nonce account's public key, in base 58", *nonceAccount)
		}
		if x.nonce, err = solana.HashFromBase58(*nonce); err != nil || x.nonce.IsZero() {
			return e.usageError("confirm", "invalid --nonce %q: want the nonce the transaction carries as its recent blockhash, in base 58", *nonce)
		}
	}
	cfg, code := e.loadConfig("confirm", *cfgPath)
	if cfg == nil {
		return code
	}
	c, code := e.openPool("confirm", *cfgPath, cfg, resolveMethods...)
	if c == nil {
		return code
	}
	defer c.Close()
	if readers, _ := resolve.Witnesses(cfg.Endpoints); *quorum > readers {
		return e.usageError("confirm", "--quorum %d exceeds the %d read endpoints in %s (a provider's counted once): expired could never be concluded", *quorum, readers, *cfgPath)
	}
	rs := &resolution{cfgPath: *cfgPath, commitment: level, timeout: *timeout, quorum: *quorum, nonce: x}
	ctx, cancel := e.withTimeout(ctx, *timeout)
	defer cancel()
	r, err := c.Resolve(ctx, sig, *lvbh, rs.options(e))
	if err != nil { // bad input, checked above: not expected
		fmt.Fprintf(e.stderr, "solroute confirm: %v\n", err)
		return exitUsage
	}
	rep := rs.report(ctx, r)
	rep.write(e.stdout, *asJSON)
	return rep.exitCode()
}

// parseSignature parses a transaction signature: 64 bytes in base 58, not
// all zero.
func parseSignature(s string) (solana.Signature, error) {
	if strings.TrimSpace(s) == "" {
		return solana.Signature{}, fmt.Errorf("invalid SIGNATURE %q: empty", s)
	}
	sig, err := solana.SignatureFromBase58(s)
	if err != nil {
		return solana.Signature{}, fmt.Errorf("invalid SIGNATURE %q: not a base-58 encoded 64-byte signature: %v", s, err)
	}
	if sig.IsZero() {
		return solana.Signature{}, fmt.Errorf("invalid SIGNATURE %q: all zeros, the signature of no transaction", s)
	}
	return sig, nil
}
