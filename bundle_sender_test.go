package solroute_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute"
)

// TestSenderSendCarriesSkipPreflight: a sendTransaction without
// skipPreflight, routed to an endpoint declared SkipPreflight, goes out
// with skipPreflight true and maxRetries 0 and lands once; declared
// without it, the sender's refusal (HTTP 500) leaves the send ambiguous.
func TestSenderSendCarriesSkipPreflight(t *testing.T) {
	for _, declared := range []bool{true, false} {
		r := newBundleRig(t)
		c := r.client(t, "", true, declared)
		tx := txs(t, c, 50, 1)[0]
		sig := tx.Signatures[0].String()
		_, err := c.RPC().SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentProcessed})
		if n := r.sender.Deliveries(sig); n != 1 {
			t.Fatalf("declared %v: %d deliveries to the sender, want 1", declared, n)
		}
		if !declared {
			if !errors.Is(err, solroute.ErrAmbiguousDispatch) || r.ledger.Tx(sig).Landed {
				t.Fatalf("undeclared sender: %v, %+v; want ambiguous and not landed", err, r.ledger.Tx(sig))
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		p := string(r.sender.Requests()[0].Params)
		if !strings.Contains(p, `"skipPreflight":true`) || !strings.Contains(p, `"maxRetries":0`) ||
			!strings.Contains(p, `"encoding":"base64"`) || !strings.Contains(p, `"preflightCommitment":"processed"`) {
			t.Fatalf("on the wire: %s", p)
		}
		if tx := r.ledger.Tx(sig); !tx.Landed || tx.Arrivals != 1 {
			t.Fatalf("%+v", tx)
		}
	}
}
