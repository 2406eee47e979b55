package fixturedata

import (
	"crypto/ed25519"
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/solroute/solroute/internal/durablenonce"
)

// nonceKey is the key numbered which of the nonce account drawn from seed:
// 0 the account, 1 its authority (the fee payer), 2 and up a transfer's
// destination.
func nonceKey(seed, which uint64) solana.PrivateKey {
	var s [ed25519.SeedSize]byte
	copy(s[:], "solroute-nonce")
	binary.LittleEndian.PutUint64(s[16:24], seed)
	binary.LittleEndian.PutUint64(s[24:32], which)
	return solana.PrivateKey(ed25519.NewKeyFromSeed(s[:]))
}

// NonceAccount is the key of the durable-nonce account drawn from seed.
func NonceAccount(seed uint64) solana.PublicKey { return nonceKey(seed, 0).PublicKey() }

// NonceAccountData is the data of seed's nonce account holding nonce, its
// authority seed's: what a test lands with Ledger.Apply (owner the system
// program) to put the account on a fake chain.
func NonceAccountData(seed uint64, nonce solana.Hash) []byte {
	return durablenonce.Encode(durablenonce.State{Authority: nonceKey(seed, 1).PublicKey(), Nonce: nonce, LamportsPerSignature: 5000})
}

// NonceTransaction builds a signed durable-nonce transaction on seed's
// nonce account: AdvanceNonceAccount first, then a transfer of 1 lamport
// from the authority to a key drawn from n, with nonce as its recent
// blockhash. Different n give different signatures on one nonce.
func NonceTransaction(seed, n uint64, nonce solana.Hash) (*solana.Transaction, error) {
	auth := nonceKey(seed, 1)
	advance := system.NewAdvanceNonceAccountInstruction(NonceAccount(seed), solana.SysVarRecentBlockHashesPubkey, auth.PublicKey()).Build()
	transfer := system.NewTransferInstruction(1, auth.PublicKey(), nonceKey(seed, 2+n).PublicKey()).Build()
	tx, err := solana.NewTransaction([]solana.Instruction{advance, transfer}, nonce, solana.TransactionPayer(auth.PublicKey()))
	if err != nil {
		return nil, fmt.Errorf("fixturedata: build nonce transaction: %w", err)
	}
	if _, err := tx.Sign(func(k solana.PublicKey) *solana.PrivateKey {
		if k.Equals(auth.PublicKey()) {
			return &auth
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("fixturedata: sign nonce transaction: %w", err)
	}
	return tx, nil
}
