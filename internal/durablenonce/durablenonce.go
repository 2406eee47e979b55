// Package durablenonce tells a durable-nonce transaction and reads a nonce
// account, as agave does: the resolver judges such a transaction's expiry
// by its nonce (plans/011-confirmation.md, "Durable nonces"), and the test
// kit's ledger lands it by the same rule.
package durablenonce

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// advanceNonceAccount is the system program's AdvanceNonceAccount
// instruction: its index in SystemInstruction, a little-endian u32.
const advanceNonceAccount = 4

// Size is a nonce account's data size: version (u32), state (u32),
// authority, durable nonce, lamports per signature (u64).
const Size = 80

// Of reports whether tx is a durable-nonce transaction, told as agave's
// get_durable_nonce tells it: its first instruction is the system
// program's AdvanceNonceAccount (its data starts with the u32 4; bytes
// after it are ignored, as limited_deserialize ignores them) and that
// instruction's first account, the nonce account, is writable. account is
// that account, zero when the message loads it from an address lookup
// table (the table is needed to name it); nonce is the durable nonce the
// transaction carries as its recent blockhash. A nil transaction is none.
func Of(tx *solana.Transaction) (account solana.PublicKey, nonce solana.Hash, ok bool) {
	if tx == nil || len(tx.Message.Instructions) == 0 {
		return solana.PublicKey{}, solana.Hash{}, false
	}
	m := &tx.Message
	ix := m.Instructions[0]
	keys := m.AccountKeys
	if int(ix.ProgramIDIndex) >= len(keys) || !keys[ix.ProgramIDIndex].Equals(solana.SystemProgramID) {
		return solana.PublicKey{}, solana.Hash{}, false
	}
	if len(ix.Data) < 4 || binary.LittleEndian.Uint32(ix.Data) != advanceNonceAccount || len(ix.Accounts) == 0 {
		return solana.PublicKey{}, solana.Hash{}, false
	}
	i := int(ix.Accounts[0])
	if !writable(m, i) {
		return solana.PublicKey{}, solana.Hash{}, false
	}
	if i < len(keys) {
		account = keys[i]
	}
	return account, m.RecentBlockhash, true
}

// writable reports whether the message's account at index i is writable:
// a signer before the read-only signers, an unsigned static account before
// the read-only ones, or a loaded account among the lookups' writable ones.
func writable(m *solana.Message, i int) bool {
	n, h := len(m.AccountKeys), m.Header
	signers := int(h.NumRequiredSignatures)
	switch {
	case i < 0 || signers > n:
		return false
	case i < signers:
		return i < signers-int(h.NumReadonlySignedAccounts)
	case i < n:
		return i-signers < n-signers-int(h.NumReadonlyUnsignedAccounts)
	}
	return i-n < m.AddressTableLookups.NumWritableLookups()
}

// State is an initialized nonce account's state.
type State struct {
	// Authority may advance the nonce.
	Authority solana.PublicKey
	// Nonce is the durable nonce a transaction must carry as its recent
	// blockhash to be processed.
	Nonce solana.Hash
	// LamportsPerSignature is the fee the nonce was stored with.
	LamportsPerSignature uint64
	// Legacy marks an account of the legacy version (0), whose nonce
	// agave no longer accepts: a transaction on it is never processed.
	Legacy bool
}

// Decode reads an account owned by owner with data as a nonce account,
// and reports false unless it is one that is initialized: owned by the
// system program, Size bytes or more, a known version (0 legacy, 1
// current) and the state initialized (1).
func Decode(owner solana.PublicKey, data []byte) (State, bool) {
	if !owner.Equals(solana.SystemProgramID) || len(data) < Size {
		return State{}, false
	}
	if v := binary.LittleEndian.Uint32(data[0:4]); v > 1 {
		return State{}, false
	}
	if binary.LittleEndian.Uint32(data[4:8]) != 1 {
		return State{}, false
	}
	s := State{Legacy: binary.LittleEndian.Uint32(data[0:4]) == 0}
	copy(s.Authority[:], data[8:40])
	copy(s.Nonce[:], data[40:72])
	s.LamportsPerSignature = binary.LittleEndian.Uint64(data[72:80])
	return s, true
}

// Encode is s as an initialized nonce account holds it, of the current
// version unless s.Legacy: the data Decode reads.
func Encode(s State) []byte {
	b := make([]byte, Size)
	if !s.Legacy {
		binary.LittleEndian.PutUint32(b[0:4], 1)
	}
	binary.LittleEndian.PutUint32(b[4:8], 1)
	copy(b[8:40], s.Authority[:])
	copy(b[40:72], s.Nonce[:])
	binary.LittleEndian.PutUint64(b[72:80], s.LamportsPerSignature)
	return b
}
