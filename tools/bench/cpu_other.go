//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package bench

import "time"

// processCPU reports that the CPU time cannot be read on this system.
func processCPU() (time.Duration, bool) { return 0, false }
