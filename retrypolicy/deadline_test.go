package retrypolicy

import (
	"context"
	"testing"
	"time"
)

func TestTimeLeft(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if got := TimeLeft(context.Background(), now); got != NoDeadline {
		t.Fatalf("no deadline: got %v, want NoDeadline", got)
	}
	for _, off := range []time.Duration{3 * time.Second, 0, -time.Second} {
		ctx, cancel := context.WithDeadline(context.Background(), now.Add(off))
		if got := TimeLeft(ctx, now); got != off {
			t.Errorf("deadline now%+v: got %v", off, got)
		}
		cancel()
	}
}
