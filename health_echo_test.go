package solroute_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/solroute/solroute"
	"github.com/solroute/solroute/endpoint"
)

// TestUnhealthyResultIsNotQuoted: a gateway answering getHealth with a
// result other than "ok" that echoes its request (the URL's path and
// query, a header) was quoted whole in UnhealthyError.Message, so `solroute
// probe` and every caller logging the error printed the key. The message
// says what was wrong without quoting the answer.
func TestUnhealthyResultIsNotQuoted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":"degraded for %s %s"}`, r.RequestURI, r.Header.Get("X-Api-Key"))
	}))
	defer srv.Close()
	c, err := solroute.New(solroute.Options{Endpoints: []solroute.Endpoint{{Name: "gw", URL: srv.URL + "/PATHSECRET?api-key=QUERYSECRET",
		Headers: map[string]string{"X-Api-Key": "HEADERSECRET"}, Read: &endpoint.Limits{}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.GetHealth(context.Background())
	var ue *solroute.UnhealthyError
	if !errors.Is(err, solroute.ErrUnhealthy) || !errors.As(err, &ue) {
		t.Fatalf("GetHealth: %v, want an *UnhealthyError", err)
	}
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", ue), ue.Message} {
		if strings.Contains(s, "SECRET") {
			t.Fatalf("the error shows a secret: %s", s)
		}
	}
}
