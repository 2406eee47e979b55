//go:build !race

package solroute_test

// raceEnabled: the race detector is on (allocation counts differ).
const raceEnabled = false
