package redislimit

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// goRedisLog holds what go-redis wrote to its process-wide logger during
// the tests (it logs failed dials there): TestSecretsNeverShown reads it.
var goRedisLog syncBuffer

// goRedisLogger is go-redis's logger for the tests.
type goRedisLogger struct{}

func (goRedisLogger) Printf(_ context.Context, format string, v ...any) {
	fmt.Fprintf(&goRedisLog, format+"\n", v...)
}

// TestMain captures go-redis's log and checks that no test leaves a
// goroutine behind. go-redis's redial probe (started after a pool's every
// dial failed) sleeps a second between tries and exits at its next wake
// after Close: not a leak of ours.
func TestMain(m *testing.M) {
	redis.SetLogger(goRedisLogger{})
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/redis/go-redis/v9/internal/pool.(*ConnPool).tryDial"))
}
