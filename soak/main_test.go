package soak

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run when a goroutine outlives the tests: a leaked
// net/http connection (its read and write loops), a fixture handler or a
// pool waiter.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
