// Package redistest starts a real redis-server for tests: on a free
// loopback port, with no persistence, stopped when the test ends. It is
// test tooling, like fixtures: no library package imports it.
//
// Without redis-server on PATH, Start skips the test with a message that
// names the install command, unless SOLROUTE_REQUIRE_REDIS=1 (which .ci/run
// sets) makes it fail instead.
package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RequireEnv is the variable that turns a missing redis-server from a skip
// into a failure.
const RequireEnv = "SOLROUTE_REQUIRE_REDIS"

// InstallHint is how to get redis-server on Debian and Ubuntu.
const InstallHint = "apt-get install -y redis-server"

// startTimeout bounds how long a server may take to answer PING.
const startTimeout = 10 * time.Second

// Options tune Start. The zero value is valid.
type Options struct {
	// Password, when set, is required of clients (--requirepass).
	Password string
}

// Server is a redis-server process of a test. Its methods are safe for
// concurrent use.
type Server struct {
	tb   testing.TB
	bin  string
	port int
	opts Options

	mu  sync.Mutex
	cmd *exec.Cmd // nil while killed
	// stopped is true while the process is stopped by Pause.
	stopped bool
}

// Start starts a redis-server on 127.0.0.1 at a free port and stops it
// when tb ends. It skips (or, with SOLROUTE_REQUIRE_REDIS=1, fails) tb
// when redis-server is not installed.
func Start(tb testing.TB, opts Options) *Server {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		msg := "redis-server is not installed: " + InstallHint + " (CI installs it; " + RequireEnv + "=1 makes this a failure)"
		if os.Getenv(RequireEnv) == "1" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	s := &Server{tb: tb, bin: bin, opts: opts}
	tb.Cleanup(s.Kill)
	// A free port can be taken by another process between the probe and
	// redis-server's bind: try a few.
	for attempt := 0; ; attempt++ {
		s.port = freePort(tb)
		if err := s.launch(); err == nil {
			return s
		} else if attempt == 4 {
			tb.Fatalf("redistest: redis-server did not start: %v", err)
		}
	}
}

// freePort returns a loopback port nobody listens on now.
func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("redistest: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// launch starts the process on s.port and waits for it to answer.
func (s *Server) launch() error {
	args := []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning", "--dir", s.tb.TempDir()}
	if s.opts.Password != "" {
		args = append(args, "--requirepass", s.opts.Password)
	}
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := s.waitReady(exited); err != nil {
		_ = cmd.Process.Kill()
		<-exited
		return err
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	// Reap the process when it ends (Kill waits for this).
	go func() {
		err := <-exited
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.cmd == cmd {
			s.cmd = nil
		}
		_ = err
	}()
	return nil
}

// waitReady polls the port with PING until the server answers PONG (or,
// with a password, asks for it), the process exits or startTimeout
// passes. Waiting on a real process is the one place these tests read the
// real clock.
func (s *Server) waitReady(exited <-chan error) error {
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("redis-server exited: %v", err)
		default:
		}
		if s.ping() {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("no answer to PING in " + startTimeout.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ping sends PING on a fresh connection and reports whether the server
// answered as a live one does.
func (s *Server) ping() bool {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && (strings.HasPrefix(line, "+PONG") || strings.HasPrefix(line, "-NOAUTH"))
}

// Addr returns 127.0.0.1:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL returns redis://[:password@]127.0.0.1:port/0.
func (s *Server) URL() string {
	if s.opts.Password != "" {
		return "redis://:" + s.opts.Password + "@" + s.Addr() + "/0"
	}
	return "redis://" + s.Addr() + "/0"
}

// Kill ends the process at once (SIGKILL), as a crash would, and waits
// for it. The port stays the server's: Restart starts a new one there.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd := s.cmd
	stopped := s.stopped
	s.stopped = false
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	if stopped {
		_ = cmd.Process.Signal(syscall.SIGCONT)
	}
	s.waitExit(cmd, "SIGKILL")
}

// Shutdown stops the server as an operator's restart does (SHUTDOWN
// NOSAVE: it closes every client's connection and exits, keeping
// nothing) and waits for the process to end. Restart starts it again.
func (s *Server) Shutdown() {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	// The server closes the connection instead of answering.
	_, _ = s.Do(ctx, "SHUTDOWN", "NOSAVE")
	s.waitExit(cmd, "SHUTDOWN NOSAVE")
}

// waitExit waits for the reaper to see cmd's exit, polling the process
// table, after what (a signal or a command) was sent to end it.
func (s *Server) waitExit(cmd *exec.Cmd, what string) {
	deadline := time.Now().Add(startTimeout)
	for {
		s.mu.Lock()
		gone := s.cmd != cmd
		s.mu.Unlock()
		if gone {
			return
		}
		if time.Now().After(deadline) {
			s.tb.Errorf("redistest: redis-server did not exit after %s", what)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Restart starts a fresh server (empty: no persistence) on the same port
// after Kill or Shutdown (it kills a server still running first).
func (s *Server) Restart() {
	s.tb.Helper()
	s.Kill()
	var err error
	for range 50 {
		if err = s.launch(); err == nil {
			return
		}
		// The old socket may linger a moment.
		time.Sleep(20 * time.Millisecond)
	}
	s.tb.Fatalf("redistest: restart on port %d: %v", s.port, err)
}

// Pause stops the process (SIGSTOP): connections stay open and nothing
// answers, as a server stuck in a long command or a network partition.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP, true) }

// Resume continues a paused process (SIGCONT).
func (s *Server) Resume() { s.signal(syscall.SIGCONT, false) }

// signal sends sig to the running process.
func (s *Server) signal(sig syscall.Signal, stopped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		s.tb.Errorf("redistest: no process to signal")
		return
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.tb.Errorf("redistest: %v", err)
	}
	s.stopped = stopped
}

// Do sends one command (RESP inline form, no spaces inside arguments) on
// a fresh connection and returns the first line of the reply: a test's
// look at the server without a client library.
func (s *Server) Do(ctx context.Context, args ...string) (string, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", s.Addr())
	if err != nil {
		return "", err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	r := bufio.NewReader(c)
	if s.opts.Password != "" {
		if _, err := c.Write([]byte("AUTH " + s.opts.Password + "\r\n")); err != nil {
			return "", err
		}
		if _, err := r.ReadString('\n'); err != nil {
			return "", err
		}
	}
	if _, err := c.Write([]byte(strings.Join(args, " ") + "\r\n")); err != nil {
		return "", err
	}
	line, err := r.ReadString('\n')
	return strings.TrimRight(line, "\r\n"), err
}
