package engine

import (
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Bounds of the default response budget: 1/16 of memory, clamped.
const (
	budgetFloor   = 64 << 20
	budgetCeiling = 256 << 20
)

// budgetLimit is the response budget of settings: set, as set; 0, the
// default (defaultBudget) raised to one largest response (maxBody).
func budgetLimit(set, maxBody int64) int64 {
	if set > 0 {
		return set
	}
	return max(defaultBudget(memoryTotal()), maxBody)
}

// defaultBudget is 1/16 of total bytes of memory, clamped to
// [budgetFloor, budgetCeiling]; total 0 (unknown) gives the floor.
func defaultBudget(total uint64) int64 {
	return int64(min(max(total/16, budgetFloor), budgetCeiling))
}

// memoryTotal is the memory this process may use: the least of the
// machine's RAM (systemMemory: Linux's sysinfo; 0 elsewhere), its cgroup
// v2 limit (memory.max) and the Go memory limit (GOMEMLIMIT,
// debug.SetMemoryLimit), those that are known; 0 when none is.
func memoryTotal() uint64 {
	total := uint64(math.MaxUint64)
	for _, v := range []uint64{systemMemory(), cgroupMemory(), goMemoryLimit()} {
		if v > 0 {
			total = min(total, v)
		}
	}
	if total == math.MaxUint64 {
		return 0
	}
	return total
}

// cgroupMemory is the cgroup v2 memory limit of this process's cgroup
// when it is mounted at the usual place; 0 when absent or "max".
func cgroupMemory() uint64 {
	b, err := os.ReadFile("/sys/fs/cgroup/memory.max")
	if err != nil {
		return 0
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// goMemoryLimit is the Go runtime's soft memory limit; 0 when unset.
func goMemoryLimit() uint64 {
	if l := debug.SetMemoryLimit(-1); l > 0 && l != math.MaxInt64 {
		return uint64(l)
	}
	return 0
}
