package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/endpoint"
)

// sendEndpoints counts the endpoints with a send role.
func sendEndpoints(specs []endpoint.Spec) int {
	n := 0
	for i := range specs {
		if _, ok := specs[i].Roles[endpoint.RoleSend]; ok {
			n++
		}
	}
	return n
}

// copyLine is one endpoint's outcome of a fan-out, as printed.
type copyLine struct {
	Endpoint string `json:"endpoint"`
	Outcome  string `json:"outcome"`
	Error    string `json:"error,omitempty"`
}

// copyLines describes each copy: accepted, refused (nothing sent there)
// or ambiguous.
func copyLines(copies []confirm.Copy) []copyLine {
	out := make([]copyLine, 0, len(copies))
	for _, c := range copies {
		l := copyLine{Endpoint: c.Endpoint}
		switch {
		case c.Accepted > 0:
			l.Outcome = "accepted"
		case c.Sent == 0:
			l.Outcome = "skipped"
		case c.Sent == c.Refused:
			l.Outcome = "refused"
		default:
			l.Outcome = "ambiguous"
		}
		if c.Err != nil && c.Accepted == 0 {
			l.Error = c.Err.Error()
		}
		out = append(out, l)
	}
	return out
}

// sendToMany is "solroute send --fan-out K" without --confirm: the
// signature, then one line per endpoint; the exit code as for one send
// (0 some endpoint accepted, 3 none did but one may have the
// transaction, 1 every copy refused).
func (e *env) sendToMany(ctx context.Context, c *solroute.Client, tx *solana.Transaction, k int, skip bool, preflight rpc.CommitmentType, cfgPath string, x expiry, asJSON bool) int {
	opts := rpc.TransactionOpts{SkipPreflight: skip}
	if !skip {
		opts.PreflightCommitment = preflight
	}
	copies, err := c.SendToMany(ctx, tx, k, opts)
	var input *solroute.InputError
	if errors.As(err, &input) {
		return e.usageError("send", "%v", err)
	}
	lines := copyLines(copies)
	sig := tx.Signatures[0].String()
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Signature string     `json:"signature"`
			Copies    []copyLine `json:"copies"`
		}{sig, lines})
	} else {
		fmt.Fprintln(e.stdout, sig)
		for _, l := range lines {
			if l.Error != "" {
				fmt.Fprintf(e.stdout, "copy  %s  %s: %s\n", l.Endpoint, l.Outcome, l.Error)
			} else {
				fmt.Fprintf(e.stdout, "copy  %s  %s\n", l.Endpoint, l.Outcome)
			}
		}
	}
	if err != nil {
		return e.sendFailed(err, cfgPath, sig, x)
	}
	return exitOK
}
