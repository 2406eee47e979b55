//go:build !linux

package engine

// systemMemory is 0 (unknown) outside Linux: the default budget is then
// the floor, unless a cgroup or Go memory limit says less.
func systemMemory() uint64 { return 0 }
