package solroute_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/balancefloor"
	"github.com/solroute/solroute/transport"
)

// TestBusyWhenTheResponseBudgetIsFull: through the client, an answer that
// does not fit the response byte budget fails its call at once with an
// error matching ErrBusy (never waited for: the answer holding the budget
// is still held), naming the endpoint and the numbers and no URL; the
// client's ResponseBudget shows the bytes held, the limit and the refusal.
func TestBusyWhenTheResponseBudgetIsFull(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(balancefloor.Handler))
	t.Cleanup(srv.Close)
	ts := transport.DefaultSettings()
	ts.MaxResponseBytes, ts.ResponseBudgetBytes = 160, 160 // one getBalance answer (~106 bytes) fits, two do not
	c, err := solroute.New(solroute.Options{Transport: &ts,
		Endpoints: []solroute.Endpoint{{Name: "only", URL: srv.URL + "/?api-key=s3cr3t", Read: &endpoint.Limits{}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	key := solana.MustPublicKeyFromBase58("GE2qjioELXUH79KnRvXtJqqt9VSTMa4DkLb4eaHBRFkv")
	holding, release := make(chan int64), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- c.CallWithCallback(ctx, "getBalance", []any{key.String()}, func(_ *http.Request, r *http.Response) error {
			holding <- r.ContentLength
			<-release
			return nil
		})
	}()
	held := <-holding
	_, err = c.GetBalance(ctx, key, solroute.BalanceOptions{})
	u := c.ResponseBudget()
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("the held call: %v", err)
	}
	if !errors.Is(err, solroute.ErrBusy) || errors.Is(err, solroute.ErrAmbiguousDispatch) {
		t.Fatalf("error %v, want ErrBusy", err)
	}
	msg := err.Error()
	for _, want := range []string{"only: response byte budget full: getBalance wanted ", " available ", " of limit 160"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "s3cr3t") || strings.Contains(msg, "127.0.0.1") {
		t.Errorf("error %q quotes the URL", msg)
	}
	if u.Used != held || u.Limit != 160 || u.Refused != 1 {
		t.Errorf("budget while held %+v, want used %d of 160, 1 refused", u, held)
	}
	if u := c.ResponseBudget(); u.Used != 0 {
		t.Errorf("budget at rest %+v", u)
	}
}
