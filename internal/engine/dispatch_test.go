package engine

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/solroute/solroute/retrypolicy"
)

// post sends one POST through a fresh transport with a dispatch tracker and
// returns the tracker's final state and the error.
func post(t *testing.T, ctx context.Context, tr *http.Transport, url string) (retrypolicy.DispatchState, bool, error) {
	t.Helper()
	tracker := newDispatchTracker()
	// The test's own write hooks, beside the tracker's: the proof that a
	// write happened, finer than the state (which counts GotConn alone as
	// maybe dispatched). httptrace runs both.
	var wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteHeaders: func() { wrote.Store(true) },
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(true) },
	})
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["AQ=="]}`)
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, &tracker.trace),
		http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.GetBody = nil
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	return tracker.state(), wrote.Load(), err
}

// rawServer accepts connections on loopback and runs serve on each.
func rawServer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			serve(c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	return "http://" + ln.Addr().String() + "/"
}

// reset closes c with an RST (SO_LINGER 0).
func reset(c net.Conn) {
	_ = c.(*net.TCPConn).SetLinger(0)
	_ = c.Close()
}

// holdingServer is a rawServer that reads one request, closes got and
// holds the connection open until release is closed. It serves one
// connection.
func holdingServer(t *testing.T) (url string, got <-chan struct{}, release chan<- struct{}) {
	gotc, releasec := make(chan struct{}), make(chan struct{})
	url = rawServer(t, func(c net.Conn) {
		readRequest(t, c)
		close(gotc)
		<-releasec
		c.Close()
	})
	return url, gotc, releasec
}

// readRequest reads one whole HTTP request from c.
func readRequest(t *testing.T, c net.Conn) {
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		t.Errorf("server: read request: %v", err)
		return
	}
	_, _ = io.Copy(io.Discard, req.Body)
}

func TestDispatchState(t *testing.T) {
	tests := []struct {
		name      string
		url       func(t *testing.T) string
		want      retrypolicy.DispatchState
		wantWrote bool
		wantErr   bool
		// orNotDispatched also accepts NotDispatched with no write hook.
		orNotDispatched bool
	}{
		{
			name: "refused connection",
			url: func(t *testing.T) string {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				addr := ln.Addr().String()
				ln.Close()
				return "http://" + addr + "/"
			},
			want: retrypolicy.NotDispatched, wantErr: true,
		},
		{
			name: "TLS handshake to a plain listener",
			url: func(t *testing.T) string {
				s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					t.Error("handler ran: the request was dispatched")
				}))
				t.Cleanup(s.Close)
				return strings.Replace(s.URL, "http://", "https://", 1)
			},
			want: retrypolicy.NotDispatched, wantErr: true,
		},
		{
			name: "reset on accept",
			url: func(t *testing.T) string {
				return rawServer(t, reset)
			},
			// The RST may beat the dial's completion (not dispatched, no
			// write) or follow the write (maybe dispatched).
			want: retrypolicy.MaybeDispatched, orNotDispatched: true, wantErr: true,
		},
		{
			name: "read then reset",
			url: func(t *testing.T) string {
				return rawServer(t, func(c net.Conn) {
					readRequest(t, c)
					reset(c)
				})
			},
			want: retrypolicy.MaybeDispatched, wantWrote: true, wantErr: true,
		},
		{
			name: "answered",
			url: func(t *testing.T) string {
				s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.WriteString(w, `{"jsonrpc":"2.0","result":"ok","id":1}`)
				}))
				t.Cleanup(s.Close)
				return s.URL
			},
			want: retrypolicy.Answered, wantWrote: true,
		},
		{
			name: "answered then body cut",
			url: func(t *testing.T) string {
				return rawServer(t, func(c net.Conn) {
					readRequest(t, c)
					_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
					reset(c)
				})
			},
			want: retrypolicy.Answered, wantWrote: true, wantErr: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			got, wrote, err := post(t, context.Background(), tr, tc.url(t))
			if tc.orNotDispatched && got == retrypolicy.NotDispatched && !wrote && err != nil {
				return
			}
			if got != tc.want || (err != nil) != tc.wantErr || (tc.wantWrote && !wrote) {
				t.Fatalf("state %v, wrote %v, err %v; want %v, wrote %v, err %v",
					got, wrote, err, tc.want, tc.wantWrote, tc.wantErr)
			}
		})
	}
}

// TestDispatchStateHang: a server that reads the request and never answers;
// the attempt is cancelled once the server has the request.
func TestDispatchStateHang(t *testing.T) {
	url, got, release := holdingServer(t)
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-got
		cancel()
	}()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	state, wrote, err := post(t, ctx, tr, url)
	if state != retrypolicy.MaybeDispatched || !wrote || err == nil {
		t.Fatalf("state %v, wrote %v, err %v; want maybe-dispatched, wrote, an error", state, wrote, err)
	}
}

// TestDispatchStateConnWait: a request waiting for a free connection
// (MaxConnsPerHost) when its context ends was never handed to a connection.
func TestDispatchStateConnWait(t *testing.T) {
	url, got, release := holdingServer(t)
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	first := make(chan error, 1)
	go func() {
		_, _, err := post(t, context.Background(), tr, url)
		first <- err
	}()
	<-got // the only connection is busy
	ctx, cancel := context.WithCancel(context.Background())
	tracker := newDispatchTracker()
	waiting := make(chan struct{})
	tracker.trace.GetConn = func(string) { close(waiting) }
	req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, &tracker.trace),
		http.MethodPost, url, strings.NewReader("{}"))
	errc := make(chan error, 1)
	go func() {
		_, err := (&http.Client{Transport: tr}).Do(req)
		errc <- err
	}()
	<-waiting // the request is queued for the busy connection
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("second request succeeded")
	}
	if s := tracker.state(); s != retrypolicy.NotDispatched {
		t.Fatalf("state %v, want not-dispatched", s)
	}
	close(release)
	<-first
}

// newDispatchTracker returns a tracker whose trace is ready to install with
// httptrace.WithClientTrace, on its own (an attempt's is
// part of its attemptTimer: dispatchTracker.init).
func newDispatchTracker() *dispatchTracker {
	t := &dispatchTracker{}
	t.init()
	return t
}
