package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/mr-tron/base58"
)

// maxTransactionSize is the largest transaction a node accepts, in
// bytes: one network packet (agave's PACKET_DATA_SIZE).
const maxTransactionSize = 1232

// txWanted ends every message about a TX that holds no transaction: what
// it must be instead.
const txWanted = "want a signed transaction's wire bytes in base64 (solana-go: tx.ToBase64()) or base58"

// txDecoding is TX read in one encoding.
type txDecoding struct {
	encoding string // "base64" or "base58"
	raw      []byte
}

// parseTransaction decodes TX: a whole signed transaction, of at most
// maxTransactionSize bytes, carrying every signature its message
// requires, each valid, in base64 or base58 (an argument can be both: a
// base58 string whose length is a multiple of 4 is valid base64 too; the
// reading that is a transaction wins). It returns the transaction and its
// wire bytes in base64, as sendTransaction is sent. Errors never quote the
// argument (it is long) nor solana-go's decoder (its text names its own
// fields: "mx.Header.NumReadonlyUnsignedAccounts").
func parseTransaction(s string) (*solana.Transaction, string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, "", errors.New("TX is empty: " + txWanted)
	}
	var ds []txDecoding
	if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
		ds = append(ds, txDecoding{"base64", raw})
	}
	if raw, err := base58.Decode(s); err == nil {
		ds = append(ds, txDecoding{"base58", raw})
	}
	if len(ds) == 0 {
		return nil, "", errors.New("TX is neither base64 nor base58: " + txWanted)
	}
	var firstErr error
	for _, d := range ds {
		tx, err := wholeTransaction(d)
		if err == nil {
			return tx, base64.StdEncoding.EncodeToString(d.raw), nil
		}
		if firstErr == nil || errors.Is(firstErr, errNotWhole) && !errors.Is(err, errNotWhole) {
			firstErr = err // a transaction that is wrong says more than bytes that are none
		}
	}
	if errors.Is(firstErr, errNotWhole) {
		return nil, "", notWhole(ds)
	}
	return nil, "", firstErr
}

// errNotWhole marks bytes that do not decode as one transaction.
var errNotWhole = errors.New("not a whole transaction")

// notWhole says that none of the readings of TX is a transaction, with
// their sizes: a 64-byte one is likely a signature given for the
// transaction.
func notWhole(ds []txDecoding) error {
	sizes := make([]string, len(ds))
	signature := false
	for i, d := range ds {
		unit := "bytes"
		if len(d.raw) == 1 {
			unit = "byte"
		}
		sizes[i] = fmt.Sprintf("%d %s as %s", len(d.raw), unit, d.encoding)
		signature = signature || len(d.raw) == solana.SignatureLength
	}
	msg := fmt.Sprintf("TX is not a whole transaction (%s): %s", strings.Join(sizes, ", "), txWanted)
	if signature {
		msg += "; 64 bytes is a signature's size: send wants the signed transaction itself"
	}
	return errors.New(msg)
}

// wholeTransaction checks that d is one whole signed transaction in its
// canonical encoding, at most maxTransactionSize bytes, every signature
// its message requires present and valid. Bytes that are no transaction
// at all give an error matching errNotWhole.
func wholeTransaction(d txDecoding) (*solana.Transaction, error) {
	raw := d.raw
	switch {
	case len(raw) == 0:
		return nil, errors.New("TX is empty: " + txWanted)
	case len(raw) > maxTransactionSize:
		return nil, fmt.Errorf("TX is %d bytes (as %s): a transaction is at most %d", len(raw), d.encoding, maxTransactionSize)
	}
	tx, err := decodeTransaction(raw)
	if err != nil {
		return nil, errNotWhole
	}
	again, err := tx.MarshalBinary()
	switch {
	case err != nil:
		return nil, errNotWhole
	case len(again) < len(raw) && bytes.Equal(again, raw[:len(again)]):
		return nil, fmt.Errorf("TX is not one transaction: %d bytes follow its %d (as %s)", len(raw)-len(again), len(again), d.encoding)
	case !bytes.Equal(again, raw):
		return nil, errors.New("TX is not a transaction in its canonical encoding")
	}
	signers := tx.Message.Signers()
	if len(tx.Signatures) == 0 || len(tx.Signatures) != len(signers) {
		return nil, fmt.Errorf("TX is not signed: its message needs %d signature(s), it carries %d", len(signers), len(tx.Signatures))
	}
	for i, sig := range tx.Signatures {
		if sig.IsZero() {
			return nil, fmt.Errorf("TX is not signed: the signature of %s is missing", signers[i])
		}
	}
	if err := tx.VerifySignatures(); err != nil {
		return nil, fmt.Errorf("TX is not validly signed: %v", err)
	}
	return tx, nil
}

// decodeTransaction is solana.TransactionFromBytes, with a decoder panic
// (a length past the data, say) turned into an error.
func decodeTransaction(raw []byte) (tx *solana.Transaction, err error) {
	defer func() {
		if p := recover(); p != nil {
			tx, err = nil, fmt.Errorf("undecodable: %v", p)
		}
	}()
	return solana.TransactionFromBytes(raw)
}
