package redislimit

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind. go-redis's redial
// probe (started after a pool's every dial failed) sleeps a second between
// tries and exits at its next wake after Close: not a leak of ours.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/redis/go-redis/v9/internal/pool.(*ConnPool).tryDial"))
}
