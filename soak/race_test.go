//go:build race

package soak

// raceEnabled reports a -race build, which slows the code under test
// several times: the deadline tolerance grows with it.
const raceEnabled = true
