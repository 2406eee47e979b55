package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/engine"
)

// TestCallErrorIsOneShortLine: Error is one line naming the method, the
// cause, the attempts and the last endpoint; %+v adds a line per attempt.
func TestCallErrorIsOneShortLine(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{}, nil)
	for _, n := range []string{"a", "b"} {
		e.server(n).SetFault(fixtures.Status(503, ""))
	}
	_, err := getBalance(context.Background(), e.client)
	ce := callErr(t, err)
	msg := err.Error()
	if strings.Contains(msg, "\n") || len(msg) > 200 || !strings.HasPrefix(msg, "transport: getBalance failed: temporary-http (") ||
		!strings.Contains(msg, "attempts, last on ") {
		t.Fatalf("Error() = %q", msg)
	}
	long := fmt.Sprintf("%+v", err)
	lines := strings.Split(long, "\n")
	if lines[0] != msg || len(lines) != 1+len(ce.Attempts) || !strings.HasPrefix(lines[1], "  [1] a (tier 0): temporary-http, answered, HTTP 503") {
		t.Fatalf("%%+v =\n%s", long)
	}
	if fmt.Sprintf("%v", err) != msg || fmt.Sprintf("%s", err) != msg {
		t.Fatal("the v and s verbs differ from Error")
	}
}

// TestAmbiguousErrorSaysWhatToDo: the library's own error tells the
// caller to check before sending again, as the CLI does.
func TestAmbiguousErrorSaysWhatToDo(t *testing.T) {
	e := newEnv(t, []fixtures.Member{member("a", 0), member("b", 1)}, conf{}, nil)
	e.server("a").SetFault(fixtures.Fault{Kind: fixtures.ResetAfterRead})
	params, _ := signedTx(t, 2000)
	var sig solana.Signature
	err := e.client.CallForInto(context.Background(), &sig, "sendTransaction", params)
	if !errors.Is(err, engine.ErrAmbiguousDispatch) ||
		!strings.HasPrefix(err.Error(), "transport: sendTransaction may have reached a server and was not resent: check whether it landed before sending it again (1 attempt, last on a)") {
		t.Fatalf("error %q", err)
	}
	if strings.Count(err.Error(), "may have reached a server") != 1 {
		t.Fatalf("said twice: %q", err)
	}
}
