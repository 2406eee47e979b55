package rolestate

import (
	"math"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

func TestDoubtWindow(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{}, Options{DoubtWindow: 30 * time.Second})
	if r.InDoubtAt(t0) {
		t.Fatal("in doubt before any mark")
	}
	r.DoubtedAt(t0.Add(time.Second))
	for _, tc := range []struct {
		at   time.Duration
		want bool
		left time.Duration
	}{
		{time.Second, true, 30 * time.Second},
		{31*time.Second - 1, true, 1},
		{31 * time.Second, false, 0},
	} {
		if got := r.InDoubtAt(t0.Add(tc.at)); got != tc.want {
			t.Errorf("at %v: in doubt %v, want %v", tc.at, got, tc.want)
		}
		if got := r.SnapshotAt(t0.Add(tc.at)).DoubtRemaining; got != tc.left {
			t.Errorf("at %v: remaining %v, want %v", tc.at, got, tc.left)
		}
	}
	// An older mark reported late does not move the window back.
	r.DoubtedAt(t0.Add(40 * time.Second))
	r.DoubtedAt(t0.Add(35 * time.Second))
	if !r.InDoubtAt(t0.Add(70*time.Second - 1)) {
		t.Error("a late, older mark shortened the window")
	}
}

func TestDoubtOff(t *testing.T) {
	for _, w := range []time.Duration{0, -time.Second} {
		r := newRuntime(t, endpoint.Limits{}, Options{DoubtWindow: w})
		r.DoubtedAt(t0)
		if r.InDoubtAt(t0) {
			t.Errorf("window %v: in doubt", w)
		}
	}
}

func TestDoubtWindowSaturates(t *testing.T) {
	r := newRuntime(t, endpoint.Limits{}, Options{DoubtWindow: math.MaxInt64})
	r.DoubtedAt(t0.Add(time.Hour))
	if !r.InDoubtAt(t0.Add(1000 * time.Hour)) {
		t.Fatal("a huge window overflowed into no doubt")
	}
}
