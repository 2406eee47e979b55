package soak

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// maxReported bounds the violations printed; the rest are counted.
const maxReported = 20

// maxPerKind bounds the violations printed of one kind (addAs), so that
// a flood of one kind does not hide the others.
const maxPerKind = 3

// violations collects invariant violations from many goroutines.
type violations struct {
	mu    sync.Mutex
	n     int
	first []string
	kinds map[string]int // violations by kind (addAs)
}

func (v *violations) add(format string, args ...any) { v.addAs("", format, args...) }

// addAs adds a violation of a kind: at most maxPerKind of each kind are
// kept for the report, and every kind's total is reported.
func (v *violations) addAs(kind, format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.n++
	if kind != "" {
		if v.kinds == nil {
			v.kinds = map[string]int{}
		}
		if v.kinds[kind]++; v.kinds[kind] > maxPerKind {
			return
		}
	}
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
	for _, k := range slices.Sorted(maps.Keys(v.kinds)) {
		t.Errorf("%d violations in all: %s", v.kinds[k], k)
	}
}

// logSink is the log sink shared by the pool and the transport. It checks
// every line for a secret marker as it is written and keeps only counts
// and the first line that carries one: slog's handlers write one whole
// record per Write. It takes no lock of its own: the handler holds one
// around Write, and every caller that logs queues on it. (A sink that kept
// every line in one growing buffer held that queue for each doubling of
// the buffer: 750 ms at 32 MiB under -race, and the deadline check saw
// the calls waiting behind it return late.)
type logSink struct {
	lines atomic.Int64
	leaks atomic.Int64
	first atomic.Pointer[string] // the first line that carries a marker
}

func (l *logSink) Write(p []byte) (int, error) {
	l.lines.Add(int64(bytes.Count(p, []byte{'\n'})))
	if secretInBytes(p) {
		line := string(p)
		l.first.CompareAndSwap(nil, &line)
		l.leaks.Add(1)
	}
	return len(p), nil
}

// result returns the lines written, how many carried a secret marker, and
// the first of them.
func (l *logSink) result() (lines, leaks int64, first string) {
	if p := l.first.Load(); p != nil {
		first = *p
	}
	return l.lines.Load(), l.leaks.Load(), first
}

// secretInBytes reports whether p carries a secret marker, without
// copying it.
func secretInBytes(p []byte) bool {
	for _, m := range [...]string{markPath, markQuery, markHeader} {
		if bytes.Contains(p, []byte(m)) {
			return true
		}
	}
	return false
}

// timedHandler is the soak's log handler: it times every record its
// handler takes and keeps the longest in longest (nanoseconds; the
// heartbeat takes it at each beat). Every caller that logs waits on the
// handler's one lock: under load that queue holds a call up as surely as
// a run queue does, and no runtime metric measures it.
type timedHandler struct {
	slog.Handler
	longest *atomic.Int64
}

func (h timedHandler) Handle(ctx context.Context, r slog.Record) error {
	start := time.Now()
	err := h.Handler.Handle(ctx, r)
	d := int64(time.Since(start))
	for {
		if cur := h.longest.Load(); d <= cur || h.longest.CompareAndSwap(cur, d) {
			return err
		}
	}
}

func (h timedHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return timedHandler{h.Handler.WithAttrs(as), h.longest}
}

func (h timedHandler) WithGroup(name string) slog.Handler {
	return timedHandler{h.Handler.WithGroup(name), h.longest}
}
