package durablenonce_test

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/solroute/solroute/internal/durablenonce"
)

func key(seed byte) solana.PrivateKey {
	return solana.PrivateKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, 32)))
}

// build signs a transaction of instructions on blockhash, paid by payer.
func build(t *testing.T, payer solana.PrivateKey, blockhash solana.Hash, ixs ...solana.Instruction) *solana.Transaction {
	t.Helper()
	tx, err := solana.NewTransaction(ixs, blockhash, solana.TransactionPayer(payer.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Sign(func(k solana.PublicKey) *solana.PrivateKey {
		if k.Equals(payer.PublicKey()) {
			return &payer
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestOf tells a durable-nonce transaction as agave does: the first
// instruction advances a writable nonce account.
func TestOf(t *testing.T) {
	auth, nonceAcct := key(1), key(2).PublicKey()
	nonce := solana.Hash{7, 7, 7}
	advance := system.NewAdvanceNonceAccountInstruction(nonceAcct, solana.SysVarRecentBlockHashesPubkey, auth.PublicKey()).Build()
	transfer := system.NewTransferInstruction(1, auth.PublicKey(), key(3).PublicKey()).Build()

	tx := build(t, auth, nonce, advance, transfer)
	acct, got, ok := durablenonce.Of(tx)
	if !ok || !acct.Equals(nonceAcct) || got != nonce {
		t.Fatalf("advance first: got %v %v %v, want %v %v true", acct, got, ok, nonceAcct, nonce)
	}
	if _, _, ok := durablenonce.Of(build(t, auth, nonce, transfer, advance)); ok {
		t.Error("advance second: told as a durable-nonce transaction (agave reads the first instruction only)")
	}
	if _, _, ok := durablenonce.Of(build(t, auth, nonce, transfer)); ok {
		t.Error("a transfer alone: told as a durable-nonce transaction")
	}
	if _, _, ok := durablenonce.Of(nil); ok {
		t.Error("nil: told as a durable-nonce transaction")
	}

	// The nonce account read-only: agave's is_writable check refuses it.
	ro := build(t, auth, nonce, solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{
		solana.Meta(nonceAcct), solana.Meta(solana.SysVarRecentBlockHashesPubkey), solana.Meta(auth.PublicKey()).SIGNER(),
	}, []byte{4, 0, 0, 0}))
	if _, _, ok := durablenonce.Of(ro); ok {
		t.Error("a read-only nonce account: told as a durable-nonce transaction")
	}
	// Trailing bytes after the u32 are ignored (limited_deserialize).
	trailing := build(t, auth, nonce, solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{
		solana.Meta(nonceAcct).WRITE(), solana.Meta(solana.SysVarRecentBlockHashesPubkey), solana.Meta(auth.PublicKey()).SIGNER(),
	}, []byte{4, 0, 0, 0, 9}))
	if acct, _, ok := durablenonce.Of(trailing); !ok || !acct.Equals(nonceAcct) {
		t.Error("trailing data bytes: not told as a durable-nonce transaction")
	}
	// Another system instruction (a transfer is 2) or another program.
	for _, ix := range []solana.Instruction{
		solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{solana.Meta(nonceAcct).WRITE()}, []byte{2, 0, 0, 0}),
		solana.NewInstruction(key(9).PublicKey(), solana.AccountMetaSlice{solana.Meta(nonceAcct).WRITE()}, []byte{4, 0, 0, 0}),
		solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{solana.Meta(nonceAcct).WRITE()}, []byte{4, 0}),
	} {
		if _, _, ok := durablenonce.Of(build(t, auth, nonce, ix)); ok {
			t.Errorf("instruction %v: told as a durable-nonce transaction", ix)
		}
	}
}

// TestDecodeReadsSolanaGosLayout: Encode and Decode agree with solana-go's
// system.NonceAccount, byte for byte.
func TestDecodeReadsSolanaGosLayout(t *testing.T) {
	want := durablenonce.State{Authority: key(1).PublicKey(), Nonce: solana.Hash{1, 2, 3, 4}, LamportsPerSignature: 5000}
	var buf bytes.Buffer
	acct := system.NonceAccount{Version: 1, State: 1, AuthorizedPubkey: want.Authority,
		Nonce: solana.PublicKeyFromBytes(want.Nonce[:]), FeeCalculator: system.FeeCalculator{LamportsPerSignature: 5000}}
	if err := acct.MarshalWithEncoder(bin.NewBinEncoder(&buf)); err != nil {
		t.Fatal(err)
	}
	if got := durablenonce.Encode(want); !bytes.Equal(got, buf.Bytes()) {
		t.Fatalf("Encode = %x, solana-go writes %x", got, buf.Bytes())
	}
	got, ok := durablenonce.Decode(solana.SystemProgramID, buf.Bytes())
	if !ok || got != want {
		t.Fatalf("Decode = %+v %v, want %+v", got, ok, want)
	}
	uninit := bytes.Clone(buf.Bytes())
	uninit[4] = 0
	for name, c := range map[string]struct {
		owner solana.PublicKey
		data  []byte
	}{
		"another owner": {key(9).PublicKey(), buf.Bytes()},
		"short":         {solana.SystemProgramID, buf.Bytes()[:79]},
		"uninitialized": {solana.SystemProgramID, uninit},
		"version 2":     {solana.SystemProgramID, append([]byte{2}, buf.Bytes()[1:]...)},
	} {
		if _, ok := durablenonce.Decode(c.owner, c.data); ok {
			t.Errorf("%s: decoded as a nonce account", name)
		}
	}
}
