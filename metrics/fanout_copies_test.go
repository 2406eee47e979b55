package metrics_test

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/fixtures"
)

// TestFanOutCountsNoCopyNoEndpointGot: the only send endpoint answered
// 429 and cools down, so the next SendToMany has no endpoint that can take
// a copy now and goes through the pool's own choice (anyCopy). When that
// call makes no attempt (here the caller's context is already done; in
// production, its deadline passes during the cooldown), no copy was sent
// anywhere: SendToMany reports no Copy and no series counts one. (A
// review found a Copy with no endpoint name, Sent 1, counted in
// solroute_send_copies_total{endpoint=""}.)
func TestFanOutCountsNoCopyNoEndpointGot(t *testing.T) {
	e, tx := limitedSender(t)
	// First: refused (429), the endpoint now cools down on the fake clock.
	if _, err := e.client.SendToMany(context.Background(), tx, 1, rpc.TransactionOpts{SkipPreflight: true}); err == nil {
		t.Fatal("the 429 endpoint accepted")
	}
	before := e.server("limited").Stats().Calls["sendTransaction"]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	copies, err := e.client.SendToMany(ctx, tx, 1, rpc.TransactionOpts{SkipPreflight: true})
	if err == nil {
		t.Fatal("no error")
	}
	if got := e.server("limited").Stats().Calls["sendTransaction"]; got != before {
		t.Fatalf("the server read %d more sends", got-before)
	}
	for _, cp := range copies {
		if cp.Endpoint == "" {
			t.Errorf("Copy %+v: a copy reported sent to no endpoint (no request was made)", cp)
		}
	}
	body, s := e.scrape()
	if v, ok := s[series("solroute_send_copies_total", "endpoint=")]; ok {
		t.Errorf("solroute_send_copies_total{endpoint=\"\"} = %v: a copy counted with an empty endpoint label\n%s", v, body)
	}
}

// TestFanOutCopyRefusalCountedAsNoRetry: a fan-out copy refused with a
// 429 ends there (one attempt per copy), and the attempt's decision says
// so: solroute_retry_decisions_total{decision="retry"} (the dashboard's
// "retries per call") counts no retry that never happened. (A review
// found it counted: the copy's call was cancelled after the policy had
// decided a retry.)
func TestFanOutCopyRefusalCountedAsNoRetry(t *testing.T) {
	e, tx := limitedSender(t)
	if _, err := e.client.SendToMany(context.Background(), tx, 1, rpc.TransactionOpts{SkipPreflight: true}); err == nil {
		t.Fatal("the 429 endpoint accepted")
	}
	if n := e.server("limited").Stats().Calls["sendTransaction"]; n != 1 {
		t.Fatalf("server read %d sends, want 1", n)
	}
	body, s := e.scrape()
	attempts := s[series("solroute_attempts_total", "endpoint=limited", "role=send", "method=sendTransaction", "outcome=rate-limited")]
	retries := s[series("solroute_retry_decisions_total", "method=sendTransaction", "decision=retry")]
	stops := s[series("solroute_retry_decisions_total", "method=sendTransaction", "decision=max-retries")]
	if attempts != 1 || retries != 0 || stops != 1 {
		t.Errorf("attempts %v, retry decisions %v, max-retries %v: one attempt and no retry was made\n%s", attempts, retries, stops, body)
	}
}

// limitedSender is an env with a reader and one send endpoint, limited,
// that answers every sendTransaction 429, and a signed transaction.
func limitedSender(t *testing.T) (*env, *solana.Transaction) {
	t.Helper()
	limited := member("limited", 0, "send")
	limited.Options.Script = fixtures.ByMethod(map[string]fixtures.Fault{"sendTransaction": fixtures.Status(429, "")})
	e := newEnv(t, []fixtures.Member{member("reader", 0, "read"), limited})
	tx, err := fixtures.SignedTransaction(1, "")
	if err != nil {
		t.Fatal(err)
	}
	return e, tx
}
