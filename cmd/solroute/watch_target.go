package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
)

// watchKinds are the subscriptions watch makes, in the help's order.
var watchKinds = []string{"slot", "root", "account", "program", "signature", "logs"}

// watchTarget is what watch subscribes to, checked before any connection.
type watchTarget struct {
	kind       string
	key        solana.PublicKey // account, program, logs (unless all)
	sig        solana.Signature
	allLogs    bool
	commitment rpc.CommitmentType
	encoding   solana.EncodingType
}

// parseWatchTarget reads KIND [ARG] and the --commitment and --encoding
// flags ("" when not given). Its errors are usage errors.
func parseWatchTarget(pos []string, commitment, encoding string) (*watchTarget, error) {
	if len(pos) == 0 {
		return nil, errors.New("KIND is required: slot, root, account PUBKEY, program ID, signature SIG or logs PUBKEY|all")
	}
	t := &watchTarget{kind: pos[0], encoding: solana.EncodingType(encoding)}
	if !slices.Contains(watchKinds, t.kind) {
		msg := fmt.Sprintf("unknown KIND %q: want slot, root, account, program, signature or logs", t.kind)
		if s, ok := suggest(t.kind, watchKinds); ok {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return nil, errors.New(msg)
	}
	argName := map[string]string{"account": "PUBKEY", "program": "ID", "signature": "SIG", "logs": "PUBKEY or all"}[t.kind]
	switch {
	case argName == "" && len(pos) > 1:
		return nil, fmt.Errorf("%s takes no argument, got %q", t.kind, pos[1])
	case argName != "" && len(pos) < 2:
		return nil, fmt.Errorf("%s needs its %s", t.kind, argName)
	case len(pos) > 2:
		return nil, fmt.Errorf("too many arguments: want %s %s, got %d arguments", t.kind, argName, len(pos))
	}
	if err := t.parseArg(pos); err != nil {
		return nil, err
	}
	return t, t.parseOptions(commitment)
}

// parseArg reads the kind's argument.
func (t *watchTarget) parseArg(pos []string) error {
	var err error
	switch t.kind {
	case "signature":
		t.sig, err = parseSignature(pos[1])
		return err
	case "logs":
		if pos[1] == "all" {
			t.allLogs = true
			return nil
		}
	case "slot", "root":
		return nil
	}
	if t.key, err = solroute.ParsePubkey(pos[1]); err != nil {
		reason := "not a base-58 encoded 32-byte key"
		if ie := (*solroute.InputError)(nil); errors.As(err, &ie) {
			reason = ie.Reason
		}
		name := "PUBKEY"
		if t.kind == "program" {
			name = "ID"
		}
		return fmt.Errorf("invalid %s %q: %s", name, pos[1], reason)
	}
	if t.kind == "account" && t.key.IsZero() {
		return fmt.Errorf("invalid PUBKEY %q: the System Program's account, which never changes", pos[1])
	}
	return nil
}

// parseOptions checks --commitment (default confirmed where it applies)
// and --encoding (accounts and programs only).
func (t *watchTarget) parseOptions(commitment string) error {
	switch {
	case (t.kind == "slot" || t.kind == "root") && commitment != "":
		return fmt.Errorf("--commitment does not apply to %s: a node notifies every %s it processes", t.kind, t.kind)
	case t.kind != "account" && t.kind != "program" && t.encoding != "":
		return fmt.Errorf("--encoding applies to account and program only")
	}
	switch t.encoding {
	case "", solana.EncodingBase58, solana.EncodingBase64, solana.EncodingBase64Zstd, solana.EncodingJSONParsed:
	default:
		return fmt.Errorf("invalid --encoding %q: want base58, base64, base64+zstd or jsonParsed", t.encoding)
	}
	if t.kind == "slot" || t.kind == "root" {
		return nil
	}
	if commitment == "" {
		commitment = string(rpc.CommitmentConfirmed)
	}
	c, err := parseCommitment("commitment", commitment)
	t.commitment = c
	return err
}

// open subscribes on c.
func (t *watchTarget) open(ctx context.Context, c *solroute.Client) (watchStream, error) {
	switch t.kind {
	case "slot":
		return typed(c.SlotSubscribe(ctx))(describeSlot)
	case "root":
		return typed(c.RootSubscribe(ctx))(describeRoot)
	case "account":
		return typed(c.AccountSubscribe(ctx, t.key, &solroute.AccountSubscribeOptions{Commitment: t.commitment, Encoding: t.encoding}))(describeAccount(t.key))
	case "program":
		return typed(c.ProgramSubscribe(ctx, t.key, &solroute.ProgramSubscribeOptions{Commitment: t.commitment, Encoding: t.encoding}))(describeProgram)
	case "signature":
		return typed(c.SignatureSubscribe(ctx, t.sig, t.commitment))(describeSignature(t.sig))
	}
	f := solroute.LogsFilter{}
	if !t.allLogs {
		f.Mentions = &t.key
	}
	return typed(c.LogsSubscribe(ctx, f, t.commitment))(describeLogs)
}
