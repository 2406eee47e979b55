package pubsub_test

import (
	"strings"
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/pubsub"
)

// TestSlotSubscribeAllDownNamesTheMethodOnce: a slot subscribe that no
// endpoint can take fails with a *SubscribeError naming the method once,
// not "pubsub: slotSubscribe: pubsub: slotSubscribe: ..." (a review saw
// the prefix twice).
func TestSlotSubscribeAllDownNamesTheMethodOnce(t *testing.T) {
	e := newEnv(t, []member{{name: "a"}, {name: "b"}}, func(eps []pubsub.Endpoint, _ *pubsub.Settings, _ *pubsub.Options) {
		for i := range eps {
			eps[i].URL = endpoint.NewSecret("ws://127.0.0.1:1/ws") // nothing listens: every dial refused
		}
	})
	done := make(chan error, 1)
	go func() {
		_, err := e.eng.SlotSubscribe(ctxT(t))
		done <- err
	}()
	for range 120 {
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("SlotSubscribe succeeded with every endpoint down")
			}
			if n := strings.Count(err.Error(), "slotSubscribe"); n != 1 {
				t.Fatalf("the method is named %d times: %v", n, err)
			}
			return
		default:
		}
		e.step(500 * time.Millisecond)
	}
	t.Fatal("SlotSubscribe still waiting after 60 s with every endpoint down")
}
