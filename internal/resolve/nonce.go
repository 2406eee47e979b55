package resolve

import (
	"context"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/internal/durablenonce"
)

// The durable-nonce rule (plans/011-confirmation.md, "Durable nonces"): a
// transaction whose first instruction advances a nonce account carries
// that account's nonce as its blockhash and can land until the nonce moves
// on, whatever the height. A witness vouches for Expired once it reported,
// at finalized commitment, the account holding the transaction's nonce at
// one slot and another nonce (or none) at a later one, and then did not
// know the signature, history searched, in an answer rootDepth slots past
// that later slot.
// Finalized banks form one line, so the nonce moved on after the
// transaction could last have landed, and the status search covers every
// slot it could have landed in. A witness that never saw the nonce held
// cannot tell a nonce that moved on from one its finalized bank has not
// reached yet, and does not vouch.

// withNonce returns o with the nonce fields of tx, when it is a
// durable-nonce transaction (durablenonce.Of), and an error when o's
// disagree with it.
func withNonce(tx *solana.Transaction, o confirm.Options) (confirm.Options, error) {
	acct, nonce, ok := durablenonce.Of(tx)
	switch {
	case !ok && (!o.NonceAccount.IsZero() || !o.Nonce.IsZero()):
		return o, errors.New("confirm: Options.NonceAccount or Nonce is set, but the transaction's first instruction does not advance a nonce account: it is not a durable-nonce transaction")
	case !ok:
		return o, nil
	case acct.IsZero() && o.NonceAccount.IsZero():
		return o, errors.New("confirm: the transaction advances a nonce account its message loads from an address lookup table: set Options.NonceAccount to it")
	case !acct.IsZero() && !o.NonceAccount.IsZero() && !acct.Equals(o.NonceAccount):
		return o, fmt.Errorf("confirm: Options.NonceAccount is %s, but the transaction advances the nonce account %s", o.NonceAccount, acct)
	case !o.Nonce.IsZero() && o.Nonce != nonce:
		return o, fmt.Errorf("confirm: Options.Nonce is %s, but the transaction carries the nonce %s", o.Nonce, nonce)
	}
	if o.NonceAccount.IsZero() {
		o.NonceAccount = acct
	}
	o.Nonce = nonce
	return o, nil
}

// checkNonce checks the nonce fields of o against lastValidBlockHeight.
func checkNonce(o confirm.Options, lvbh uint64) error {
	nonced := !o.NonceAccount.IsZero() || !o.Nonce.IsZero()
	switch {
	case nonced && (o.NonceAccount.IsZero() || o.Nonce.IsZero()):
		return errors.New("confirm: Options.NonceAccount and Options.Nonce go together: a durable-nonce transaction needs both")
	case nonced && lvbh != 0:
		return fmt.Errorf("confirm: lastValidBlockHeight %d given for a durable-nonce transaction: it expires when its nonce moves on, not by height; pass 0", lvbh)
	case !nonced && lvbh == 0:
		return errors.New("confirm: lastValidBlockHeight is 0: pass the one getLatestBlockhash returned with the transaction's blockhash (0 is for a durable-nonce transaction: set Options.NonceAccount and Options.Nonce)")
	}
	return nil
}

// nonceRead is one finalized read of the nonce account.
type nonceRead struct {
	// slot is the answer's context slot, a finalized one.
	slot uint64
	// held reports that the account holds the transaction's nonce; else
	// moved says what it holds.
	held  bool
	moved string
}

// nonceInfo reads the nonce account at finalized commitment through ctx.
func (r *resolver) nonceInfo(ctx context.Context) (nonceRead, error) {
	var out rpc.GetAccountInfoResult
	params := []any{r.res.NonceAccount.String(), map[string]any{"commitment": "finalized", "encoding": "base64"}}
	if err := r.tc.CallForInto(ctx, &out, "getAccountInfo", params); err != nil {
		return nonceRead{}, err
	}
	nr := nonceRead{slot: out.Context.Slot}
	if out.Value == nil {
		nr.moved = "the nonce account does not exist"
		return nr, nil
	}
	var data []byte
	if out.Value.Data != nil {
		data = out.Value.Data.GetBinary()
	}
	switch s, ok := durablenonce.Decode(out.Value.Owner, data); {
	case !ok:
		nr.moved = "the account is not an initialized nonce account"
	case s.Legacy:
		nr.moved = "the account is a legacy nonce account, whose nonces agave no longer accepts"
	case s.Nonce == r.res.Nonce:
		nr.held = true
	default:
		nr.moved = "the nonce account holds another nonce"
	}
	return nr, nil
}

// askNonce is ask for a durable-nonce transaction: name's finalized read
// of the nonce account and, when the nonce moved on after the slot it
// last saw it held at (heldAt), the signature's status with history
// search, through pinned; ctx is the round's. searched: foundAnyway has
// asked this endpoint already.
func (r *resolver) askNonce(ctx, pinned context.Context, a answer, heldAt uint64, searched bool) answer {
	nr, err := r.nonceInfo(pinned)
	if err != nil {
		a.reason = r.failure(ctx, "getAccountInfo", err)
		return a
	}
	a.nonce, a.read = nr, true
	switch {
	case nr.held:
		a.reason = fmt.Sprintf("nonce still held at finalized slot %d: it may still land", nr.slot)
		return a
	case heldAt == 0:
		a.reason = fmt.Sprintf("%s at finalized slot %d, but it never reported the transaction's held: its finalized bank may not have reached it, or it moved on before the resolution began", nr.moved, nr.slot)
		return r.foundAnyway(pinned, a, searched)
	case nr.slot <= heldAt:
		a.reason = fmt.Sprintf("%s at finalized slot %d, not after slot %d where it held the transaction's", nr.moved, nr.slot, heldAt)
		return r.foundAnyway(pinned, a, searched)
	}
	return r.unknownPast(ctx, pinned, a, nr.slot, "the finalized slot where the nonce had moved on,")
}

// foundAnyway is askNonce where the endpoint cannot vouch: the nonce
// moved on, but not after it saw it held. The transaction may be what
// moved it, longer ago than a status cache holds (a resolution begun
// after the landing): one status read with history search, pinned, once
// a resolution (searched: done already), finds it; anything else keeps
// a's reason. A later landing is the polls' and the vouching path's to
// find.
func (r *resolver) foundAnyway(pinned context.Context, a answer, searched bool) answer {
	if searched {
		return a
	}
	a.searched = true
	if st, _, err := r.status(pinned, true); err == nil && st != nil {
		a.status = st
		a.reason = fmt.Sprintf("status found (%s in slot %d)", statusOf(st), st.Slot)
	}
	return a
}

// heardNonce records a finalized read of the nonce account w answered.
func heardNonce(w *reader, nr nonceRead) {
	w.Slot = max(w.Slot, nr.slot)
	switch {
	case nr.held && nr.slot > w.NonceHeldAt:
		w.NonceHeldAt = nr.slot
		if w.NonceMovedAt <= nr.slot {
			w.NonceMovedAt = 0
		}
	case !nr.held && w.NonceHeldAt > 0 && nr.slot > w.NonceHeldAt:
		w.NonceMovedAt = nr.slot
	}
}

// nonceMoved counts the witnesses (vouches' count: a provider once) that
// saw the nonce move on after holding it.
func (r *resolver) nonceMoved() int {
	return r.witnesses(func(w *reader) bool { return w.NonceMovedAt > 0 })
}

// nonceReason is Result.Reason for a durable-nonce transaction.
func (r *resolver) nonceReason() string {
	q, acct := r.res.Quorum, r.res.NonceAccount
	switch r.res.Status {
	case confirm.Landed, confirm.Failed:
		return ""
	case confirm.Expired:
		return fmt.Sprintf("%s vouched (%d needed) that the nonce account %s moved on from the transaction's nonce and that the signature is unknown to them: %s",
			r.counted(r.vouches()), q, acct, r.witnessed(true))
	}
	return fmt.Sprintf("expired needs %s to vouch that the nonce account %s moved on from the transaction's nonce after holding it and that the signature is unknown to them, and %d did: %s",
		r.counted(q), acct, r.vouches(), r.witnessed(false))
}
