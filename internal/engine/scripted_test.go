package engine_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/admission"
	"github.com/solroute/solroute/pool"
)

// scripted is a JSON-RPC server on loopback whose every answer is written
// by a test: reply(method, n) returns one response object for the n-th
// request (from 1) of method, with idToken standing for the request's id.
// A batch is answered member by member, in order, as an array. It counts
// the requests of each method it read in full (a batch counts each
// member): a send's deliveries.
type scripted struct {
	srv   *httptest.Server
	reply func(method string, n int) string
	mu    sync.Mutex
	count map[string]int
}

func newScripted(t *testing.T, reply func(method string, n int) string) *scripted {
	s := &scripted{reply: reply, count: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// request is what scripted reads of one request object.
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (s *scripted) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var reqs []request
	batch := len(bytes.TrimSpace(body)) > 0 && bytes.TrimSpace(body)[0] == '['
	if batch {
		_ = json.Unmarshal(body, &reqs)
	} else {
		var one request
		_ = json.Unmarshal(body, &one)
		reqs = []request{one}
	}
	answers := make([]string, len(reqs))
	for i, q := range reqs {
		s.mu.Lock()
		s.count[q.Method]++
		n := s.count[q.Method]
		s.mu.Unlock()
		answers[i] = strings.ReplaceAll(s.reply(q.Method, n), idToken, string(q.ID))
	}
	out := answers[0]
	if batch {
		out = "[" + strings.Join(answers, ",") + "]"
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, out)
}

// requests returns how many requests of method s read.
func (s *scripted) requests(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count[method]
}

// scriptedPool is a pool over the servers, the first in tier 0 and the
// others in tier 1 (so the first is asked first), named a, b, c ..., on a
// fake clock that no test needs to move (backoffs are 0).
func scriptedPool(t *testing.T, servers ...*scripted) *admission.Pool {
	t.Helper()
	l := endpoint.Limits{RequestTimeout: time.Second}
	specs := make([]endpoint.Spec, len(servers))
	for i, s := range servers {
		specs[i] = endpoint.Spec{Name: string(rune('a' + i)), URL: endpoint.NewSecret(s.srv.URL), Tier: min(i, 1),
			Roles: map[endpoint.Role]endpoint.Limits{endpoint.RoleRead: l, endpoint.RoleSend: l}}
	}
	p, err := admission.New(specs, pool.DefaultSettings(), admission.Options{Clock: clockwork.NewFakeClockAt(epoch)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rpcResult is a JSON-RPC response object carrying result.
func rpcResult(result string) string {
	return `{"jsonrpc":"2.0","id":` + idToken + `,"result":` + result + `}`
}
