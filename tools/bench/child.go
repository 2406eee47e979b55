package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
)

// ChildEnv is the environment variable that makes cmd/solroute-bench (or
// a test's TestMain), through ServeChild, serve one cell's cluster to its
// parent instead of running a benchmark; see Options.Isolate.
const ChildEnv = "SOLROUTE_BENCH_CLUSTER_CHILD"

// childMessage is one line of the parent/child protocol, both ways:
//
//	child:  {"urls": [...]}                  the cluster is up
//	parent: {"apply": "resetting", "seed": 1} give "a" the scenario's fault
//	child:  {"applied": true, "requests": [...], "slots": [...]} with the
//	                                         requests each endpoint had
//	                                         received until then, and each
//	                                         one's confirmed slot
//	parent: {"finish": true}
//	child:  {"counts": {...}}                then the child exits
//
// A child whose stdin ends closes its cluster and exits.
type childMessage struct {
	URLs     []string      `json:"urls,omitempty"`
	Apply    string        `json:"apply,omitempty"`
	Seed     uint64        `json:"seed,omitempty"`
	Applied  bool          `json:"applied,omitempty"`
	Requests []int         `json:"requests,omitempty"`
	Slots    []uint64      `json:"slots,omitempty"`
	Finish   bool          `json:"finish,omitempty"`
	Counts   *serverCounts `json:"counts,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// ServeChild serves one cell's cluster to the parent process over in (the
// parent's messages) and out (the child's), until the parent finishes or
// in ends. A program that runs with Options.Isolate (cmd/solroute-bench,
// a test binary) calls it when ChildEnv is set, before anything else, and
// exits.
func ServeChild(ctx context.Context, in io.Reader, out io.Writer) error {
	l := startLocalCluster()
	defer l.c.Close()
	dec, enc := json.NewDecoder(in), json.NewEncoder(out)
	if err := enc.Encode(childMessage{URLs: l.urls()}); err != nil {
		return fmt.Errorf("bench: child: %w", err)
	}
	for ctx.Err() == nil {
		var m childMessage
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("bench: child: %w", err)
		}
		var reply childMessage
		switch {
		case m.Finish:
			counts, _ := l.finish()
			return enc.Encode(childMessage{Counts: &counts})
		case m.Apply != "":
			if a, err := l.apply(m.Apply, m.Seed); err != nil {
				reply.Error = err.Error()
			} else {
				reply.Applied, reply.Requests, reply.Slots = true, a.Requests, a.Slots
			}
		default:
			reply.Error = "unknown message"
		}
		if err := enc.Encode(reply); err != nil {
			return fmt.Errorf("bench: child: %w", err)
		}
	}
	return ctx.Err()
}

// childCluster is a cell's cluster in a child process: this program
// re-executed with ChildEnv set.
type childCluster struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	dec    *json.Decoder
	enc    *json.Encoder
	stderr lockedBuffer
	u      []string
}

// lockedBuffer is a bytes.Buffer written by exec's stderr copier while the
// parent may read it for an error message.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// tail returns the last bytes written, for error messages.
func (l *lockedBuffer) tail() string {
	const keep = 512
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.b.Bytes()
	if len(b) > keep {
		b = b[len(b)-keep:]
	}
	return string(b)
}

func startChildCluster(ctx context.Context) (*childCluster, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("bench: find this program to run the cluster: %w", err)
	}
	c := &childCluster{cmd: exec.CommandContext(ctx, exe, os.Args[1:]...)}
	c.cmd.Env = append(os.Environ(), ChildEnv+"=1")
	c.cmd.Stderr = &c.stderr
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start the cluster child process: %w", err)
	}
	c.dec, c.enc = json.NewDecoder(out), json.NewEncoder(c.in)
	m, err := c.read()
	if err != nil {
		c.kill()
		return nil, err
	}
	if len(m.URLs) != clusterSize {
		c.kill()
		return nil, &errChild{msg: fmt.Sprintf("started %d endpoints, want %d", len(m.URLs), clusterSize)}
	}
	c.u = m.URLs
	return c, nil
}

func (c *childCluster) read() (childMessage, error) {
	var m childMessage
	if err := c.dec.Decode(&m); err != nil {
		return m, &errChild{msg: fmt.Sprintf("%v (stderr: %q)", err, c.stderr.tail())}
	}
	if m.Error != "" {
		return m, &errChild{msg: m.Error}
	}
	return m, nil
}

func (c *childCluster) urls() []string { return c.u }

func (c *childCluster) apply(name string, seed uint64) (applied, error) {
	if err := c.enc.Encode(childMessage{Apply: name, Seed: seed}); err != nil {
		return applied{}, &errChild{msg: err.Error()}
	}
	m, err := c.read()
	switch {
	case err != nil:
		return applied{}, err
	case !m.Applied:
		return applied{}, &errChild{msg: "scenario not applied"}
	case len(m.Requests) != clusterSize || len(m.Slots) != clusterSize:
		return applied{}, &errChild{msg: fmt.Sprintf("request counts of %d endpoints and slots of %d, want %d", len(m.Requests), len(m.Slots), clusterSize)}
	}
	return applied{Requests: m.Requests, Slots: m.Slots}, nil
}

func (c *childCluster) finish() (serverCounts, error) {
	if err := c.enc.Encode(childMessage{Finish: true}); err != nil {
		c.kill()
		return serverCounts{}, &errChild{msg: err.Error()}
	}
	m, err := c.read()
	_ = c.in.Close()
	if werr := c.cmd.Wait(); err == nil && werr != nil {
		err = &errChild{msg: fmt.Sprintf("%v (stderr: %q)", werr, c.stderr.tail())}
	}
	if err == nil && (m.Counts == nil || len(m.Counts.Requests) != clusterSize || len(m.Counts.Answered) != clusterSize) {
		err = &errChild{msg: "no counts, or not one per endpoint"}
	}
	if err != nil {
		return serverCounts{}, err
	}
	return *m.Counts, nil
}

// kill ends a child that broke the protocol.
func (c *childCluster) kill() {
	_ = c.in.Close()
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}
