package engine

import "testing"

// TestDefaultBudget: 1/16 of memory, clamped to 64–256 MiB (the floor when
// memory is unknown), never under one largest response; a set budget is
// taken as set.
func TestDefaultBudget(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		total uint64
		want  int64
	}{{0, 64 * mib}, {512 * mib, 64 * mib}, {2048 * mib, 128 * mib}, {24 << 30, 256 * mib}, {1 << 40, 256 * mib}} {
		if got := defaultBudget(tt.total); got != tt.want {
			t.Errorf("defaultBudget(%d MiB) = %d MiB, want %d MiB", tt.total/mib, got/mib, tt.want/mib)
		}
	}
	if got := budgetLimit(0, 512*mib); got != 512*mib {
		t.Errorf("default under one largest response: %d MiB, want 512", got/mib)
	}
	if got := budgetLimit(3*mib, 1*mib); got != 3*mib {
		t.Errorf("a set budget: %d MiB, want 3", got/mib)
	}
	if got := budgetLimit(0, 64*mib); got < 64*mib || got > 256*mib {
		t.Errorf("this machine's default %d MiB, outside 64–256", got/mib)
	}
	t.Logf("this machine: memory %d MiB, default budget %d MiB", memoryTotal()/mib, budgetLimit(0, 64*mib)/mib)
}
