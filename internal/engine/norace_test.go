//go:build !race

package engine_test

// raceEnabled: the race detector is on (allocation counts differ).
const raceEnabled = false
