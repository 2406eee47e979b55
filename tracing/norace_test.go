//go:build !race

package tracing_test

// raceEnabled is set when the race detector is on: it changes
// allocation counts.
const raceEnabled = false
