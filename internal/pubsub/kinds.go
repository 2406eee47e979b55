package pubsub

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"
)

// kind is what a stream watches.
type kind uint8

const (
	kSlot kind = iota
	kRoot
	kAccount
	kProgram
	kSignature
	kLogs
)

// methods are a kind's subscribe, unsubscribe and notification methods.
func (k kind) methods() (subscribe, unsubscribe, notification string) {
	names := [...][3]string{
		{"slotSubscribe", "slotUnsubscribe", "slotNotification"},
		{"rootSubscribe", "rootUnsubscribe", "rootNotification"},
		{"accountSubscribe", "accountUnsubscribe", "accountNotification"},
		{"programSubscribe", "programUnsubscribe", "programNotification"},
		{"signatureSubscribe", "signatureUnsubscribe", "signatureNotification"},
		{"logsSubscribe", "logsUnsubscribe", "logsNotification"},
	}
	n := names[k]
	return n[0], n[1], n[2]
}

// spec is one subscription as sent: its kind, params and what the read
// back needs.
type spec struct {
	kind       kind
	params     json.RawMessage // the params array; nil for none
	commitment rpc.CommitmentType
	encoding   solana.EncodingType
	account    solana.PublicKey // kAccount
	signature  solana.Signature // kSignature
}

// key identifies a stream: identical subscriptions share one.
func (s *spec) key() string {
	m, _, _ := s.kind.methods()
	return m + string(s.params)
}

// item is one thing a subscription delivers: a notification (or a value
// read back), or a gap.
type item struct {
	slot     uint64 // the context slot (a slot, a root: its number)
	key      string // program: the account; logs: the signature
	hash     uint64 // account and program: the account's content
	value    any    // *ws.SlotResult, *ws.AccountResult, ...
	gap      *GapError
	endpoint string // the first to deliver it; "" for a read back
	readBack bool
	at       time.Time
}

// decode reads one notification's result into its kind's solana-go type.
func (e *Engine) decode(k kind, raw json.RawMessage) (*item, error) {
	it := &item{}
	var err error
	switch k {
	case kSlot:
		var r ws.SlotResult
		err = json.Unmarshal(raw, &r)
		it.slot, it.value = r.Slot, &r
	case kRoot:
		var r ws.RootResult
		err = json.Unmarshal(raw, &r)
		it.slot, it.value = uint64(r), &r
	case kAccount:
		var r ws.AccountResult
		err = json.Unmarshal(raw, &r)
		it.slot, it.hash, it.value = r.Context.Slot, e.hashAccount(r.Value), &r
	case kProgram:
		var r ws.ProgramResult
		err = json.Unmarshal(raw, &r)
		it.slot, it.key, it.hash, it.value = r.Context.Slot, r.Value.Pubkey.String(), e.hashAccount(r.Value.Account), &r
	case kSignature:
		var r ws.SignatureResult
		err = json.Unmarshal(raw, &r)
		it.slot, it.value = r.Context.Slot, &r
	case kLogs:
		var r ws.LogResult
		err = json.Unmarshal(raw, &r)
		it.slot, it.key, it.value = r.Context.Slot, r.Value.Signature.String(), &r
	}
	if err != nil {
		return nil, fmt.Errorf("decode notification: %w", err)
	}
	return it, nil
}

// hashAccount sums what makes an account's state: lamports, owner,
// executable and data (not the rent epoch, which agave's notification and
// a read back may spell differently). A closed account (nil) sums as
// agave's default account, which is what it notifies for one.
func (e *Engine) hashAccount(a *rpc.Account) uint64 {
	var h maphash.Hash
	h.SetSeed(e.seed)
	if a == nil {
		a = closedAccount()
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], a.Lamports)
	_, _ = h.Write(n[:])
	_, _ = h.Write(a.Owner[:])
	if a.Executable {
		_ = h.WriteByte(1)
	} else {
		_ = h.WriteByte(0)
	}
	if a.Data == nil {
		_ = h.WriteByte('n')
	} else if raw := a.Data.GetRawJSON(); raw != nil {
		_ = h.WriteByte('j')
		_, _ = h.Write(raw)
	} else {
		_ = h.WriteByte('b')
		_, _ = h.Write(a.Data.GetBinary())
	}
	return h.Sum64()
}

// closedAccount is agave's default account: what it notifies when an
// account is closed, and what a read back that finds none delivers.
func closedAccount() *rpc.Account {
	return &rpc.Account{Owner: solana.SystemProgramID, Data: rpc.DataBytesOrJSONFromBytes([]byte{})}
}

// commitmentDepth is how many slots a commitment's bank trails the
// processed one, with a margin: a gap's first slot is moved back by it.
func commitmentDepth(c rpc.CommitmentType) uint64 {
	switch c {
	case rpc.CommitmentProcessed:
		return 0
	case rpc.CommitmentConfirmed:
		return 4
	}
	return 40 // finalized: 32, and a margin
}

// reached reports whether a status has reached a commitment.
func reached(st *rpc.SignatureStatusesResult, c rpc.CommitmentType) bool {
	if st == nil {
		return false
	}
	switch c {
	case rpc.CommitmentProcessed:
		return true
	case rpc.CommitmentConfirmed:
		return st.ConfirmationStatus == rpc.ConfirmationStatusConfirmed || st.ConfirmationStatus == rpc.ConfirmationStatusFinalized
	}
	return st.ConfirmationStatus == rpc.ConfirmationStatusFinalized
}
