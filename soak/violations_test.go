package soak

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

// maxReported bounds the violations printed; the rest are counted.
const maxReported = 20

// violations collects invariant violations from many goroutines.
type violations struct {
	mu    sync.Mutex
	n     int
	first []string
}

func (v *violations) add(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.n++
	if len(v.first) < maxReported {
		v.first = append(v.first, fmt.Sprintf(format, args...))
	}
}

// report fails t with every violation kept.
func (v *violations) report(t *testing.T) {
	t.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, m := range v.first {
		t.Error(m)
	}
	if v.n > len(v.first) {
		t.Errorf("... and %d more violations", v.n-len(v.first))
	}
}

// lockedBuffer is the log sink shared by the pool and the transport.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
