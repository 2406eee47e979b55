package metrics_test

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/fixtures"
)

// TestFanOutSeries: SendToMany over an endpoint that accepts and one that
// answers 429 counts one copy sent to each, accepted by the first,
// refused by the second, labelled by endpoint name alone.
func TestFanOutSeries(t *testing.T) {
	limited := member("limited", 0, "send")
	limited.Options.Script = fixtures.ByMethod(map[string]fixtures.Fault{"sendTransaction": fixtures.Status(429, "")})
	e := newEnv(t, []fixtures.Member{member("good", 0), limited})
	tx, err := fixtures.SignedTransaction(1, "")
	if err != nil {
		t.Fatal(err)
	}
	copies, err := e.client.SendToMany(context.Background(), tx, 2, rpc.TransactionOpts{SkipPreflight: true})
	if err != nil || len(copies) != 2 {
		t.Fatalf("%v, %+v", err, copies)
	}
	body, s := e.scrape()
	s.want(t, body, map[string]float64{
		series("solroute_send_copies_total", "endpoint=good"):            1,
		series("solroute_send_copies_total", "endpoint=limited"):         1,
		series("solroute_send_copies_accepted_total", "endpoint=good"):   1,
		series("solroute_send_copies_refused_total", "endpoint=limited"): 1,
	})
	for _, k := range []string{series("solroute_send_copies_accepted_total", "endpoint=limited"), series("solroute_send_copies_refused_total", "endpoint=good")} {
		if _, ok := s[k]; ok {
			t.Errorf("%s exported", k)
		}
	}
}
