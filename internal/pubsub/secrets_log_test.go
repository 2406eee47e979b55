package pubsub_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/jonboulle/clockwork"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/pubsub"
)

// TestLoggedMethodHidesSecrets: an endpoint whose ws URL carries an API
// key in path and query answers the heartbeat, then sends a notification
// whose method (the server's text, as a refusal's message is) echoes the
// key. The engine logs that it did not understand it, and the log line
// holds no marker.
func TestLoggedMethodHidesSecrets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		var req struct{ ID uint64 }
		if err := ws.ReadJSON(&req); err != nil {
			return
		}
		_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","result":7,"id":`+itoa(req.ID)+`}`))
		_ = ws.WriteMessage(websocket.TextMessage, []byte(
			`{"jsonrpc":"2.0","method":"`+markPath+`/`+markQuery+`Notification","params":{"subscription":7,"result":{}}}`))
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	logs := &signalingBuffer{wrote: make(chan struct{}, 1)}
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + "/v1/" + markPath + "?api-key=" + markQuery
	eng, err := pubsub.New([]pubsub.Endpoint{{Name: "a", URL: endpoint.NewSecret(u)}}, pubsub.Settings{},
		pubsub.Options{Clock: clockwork.NewFakeClockAt(epoch), Seed: 1,
			Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close) // before the server closes
	ctx := ctxT(t)
	for !strings.Contains(logs.String(), "not understood") {
		select {
		case <-logs.wrote:
		case <-ctx.Done():
			t.Fatalf("no log of the notification: %s", logs.String())
		}
	}
	for _, m := range []string{markPath, markQuery} {
		if strings.Contains(logs.String(), m) {
			t.Errorf("%q leaks in the log: %s", m, logs.String())
		}
	}
}

// signalingBuffer is a log sink safe for concurrent use that signals
// each write on wrote.
type signalingBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func (s *signalingBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		select {
		case s.wrote <- struct{}{}:
		default:
		}
	}()
	return s.b.Write(p)
}

func (s *signalingBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// itoa spells an id as JSON does.
func itoa(id uint64) string {
	b, _ := json.Marshal(id)
	return string(b)
}
