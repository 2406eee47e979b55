package engine

import "syscall"

// systemMemory is the machine's total RAM in bytes (sysinfo(2)); 0 when
// it cannot be read.
func systemMemory() uint64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}
