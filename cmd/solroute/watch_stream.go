package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"
	"github.com/solroute/solroute"
)

// watchLine is one notification as watch prints it.
type watchLine struct {
	slot     uint64
	summary  string // what it says, without the slot
	endpoint string // the endpoint that delivered it first; "" for a read back
	readBack bool
	gap      *solroute.GapError
}

// watchStream is a subscription of any kind, read a line at a time.
type watchStream interface {
	next(ctx context.Context) (watchLine, error)
	stats() solroute.SubscriptionCounts
	close()
}

// typedStream reads a Subscription[T] as lines.
type typedStream[T any] struct {
	sub      *solroute.Subscription[T]
	describe func(T) string
}

// typed curries a subscribe call's result with the function that
// describes its notifications.
func typed[T any](sub *solroute.Subscription[T], err error) func(func(T) string) (watchStream, error) {
	return func(describe func(T) string) (watchStream, error) {
		if err != nil {
			return nil, err
		}
		return &typedStream[T]{sub: sub, describe: describe}, nil
	}
}

func (s *typedStream[T]) next(ctx context.Context) (watchLine, error) {
	n, err := s.sub.Next(ctx)
	if err != nil {
		return watchLine{}, err
	}
	l := watchLine{slot: n.Slot, endpoint: n.Endpoint, readBack: n.ReadBack, gap: n.Gap}
	if n.Gap == nil {
		l.summary = s.describe(n.Value)
	}
	return l, nil
}

func (s *typedStream[T]) stats() solroute.SubscriptionCounts { return s.sub.Counts() }
func (s *typedStream[T]) close()                             { s.sub.Close() }

func describeSlot(r *ws.SlotResult) string {
	return fmt.Sprintf("parent %d, root %d", r.Parent, r.Root)
}

func describeRoot(*ws.RootResult) string { return "rooted" }

// describeAccount says what an account's state is.
func describeAccount(key solana.PublicKey) func(*ws.AccountResult) string {
	return func(r *ws.AccountResult) string { return key.String() + " " + describeState(r.Value) }
}

func describeProgram(r *ws.ProgramResult) string {
	return r.Value.Pubkey.String() + " " + describeState(r.Value.Account)
}

// describeState is an account's lamports, data size and owner.
func describeState(a *rpc.Account) string {
	if a == nil {
		return "closed (no account)"
	}
	data := "parsed data"
	if a.Data != nil {
		if b := a.Data.GetBinary(); b != nil || a.Data.GetRawJSON() == nil {
			data = fmt.Sprintf("%d bytes", len(b))
		}
	}
	return fmt.Sprintf("%d lamports, %s, owner %s", a.Lamports, data, a.Owner)
}

// describeSignature says whether the transaction succeeded.
func describeSignature(sig solana.Signature) func(*ws.SignatureResult) string {
	return func(r *ws.SignatureResult) string { return sig.String() + " " + txOutcome(r.Value.Err) }
}

func describeLogs(r *ws.LogResult) string {
	return fmt.Sprintf("%s %d log lines, %s", r.Value.Signature, len(r.Value.Logs), txOutcome(r.Value.Err))
}

// txOutcome is "ok", or the transaction's on-chain error as the node wrote
// it.
func txOutcome(txErr any) string {
	if txErr == nil {
		return "ok"
	}
	b, err := json.Marshal(txErr)
	if err != nil {
		return "failed"
	}
	return "failed: " + string(b)
}
