package solroute_test

import (
	"errors"
	"testing"

	"github.com/solroute/solroute"
)

// TestLogsMentionsWithVotesRefusedBeforeAnyConnection: the README: "Bad input ...
// [is] refused before any WebSocket opens". A LogsFilter with both
// Mentions and WithVotes is bad input (the engine refuses it), but the
// root checks only the commitment: the engine is started, every subscribe
// endpoint dialed, and the error is no *InputError.
func TestLogsMentionsWithVotesRefusedBeforeAnyConnection(t *testing.T) {
	e := newSubEnv(t, []string{"a"}, nil)
	k := testKey(1)
	_, err := e.client.LogsSubscribe(subCtx(t), solroute.LogsFilter{Mentions: &k, WithVotes: true}, "")
	if err == nil {
		t.Fatal("mentions with votes was accepted")
	}
	var ie *solroute.InputError
	_, started := solroute.SubscribeActivity(e.client)
	if started {
		e.settle()
	}
	hs := e.cluster.PubSub("a").Stats().Handshakes
	if !errors.As(err, &ie) || started || hs != 0 {
		t.Errorf("LogsFilter{Mentions, WithVotes}: err %q (InputError %v); engine started %v, %d WebSocket handshake(s); want an *InputError before any connection",
			err, ie != nil, started, hs)
	}
}
