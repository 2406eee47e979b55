//go:build !race

package soak

// raceEnabled reports a -race build.
const raceEnabled = false
