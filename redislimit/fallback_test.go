package redislimit

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/solroute/solroute/config"
)

// downAt spends b's lease (its first one) after the server is killed until
// a request fails: the limiter is down then.
func (r *rig) downAt(b *bucket) {
	r.t.Helper()
	deadline := r.clock.Now().Add(time.Minute)
	for !r.l.Stats().Down {
		if r.clock.Now().After(deadline) {
			r.t.Fatal("still not down a minute after the kill")
		}
		r.takeOrWait(b)
	}
}

// toGrid advances the clock to the next multiple of RetryInterval (the
// next probe) and waits for what that starts.
func (r *rig) toGrid() {
	r.t.Helper()
	now := r.clock.Now()
	r.advance(nextGrid(now, r.l.retry).Sub(now))
}

// TestShareChargedAtReturn: a bucket that admitted from its share and then
// fell idle charges those admissions to the shared bucket when the probe
// finds Redis back, without a call to it: Stats.Charged counts every one
// (all within the last burst / rate = 4 s), and the key's TAT stands that
// many intervals past the probe's instant.
func TestShareChargedAtReturn(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:", Replicas: 4}, Options{})
	b := r.bucket("a", 10, 40) // share: 2.5/s, burst 10
	r.takeOrWait(b)
	r.srv.Kill()
	r.downAt(b)
	for r.l.Stats().FallbackTaken < 5 {
		r.takeOrWait(b)
	}
	r.srv.Restart()
	r.toGrid()
	grid := r.clock.Now()
	st := r.l.Stats()
	if st.Down || st.Charged != st.FallbackTaken {
		t.Fatalf("stats %+v after the probe: want up, every admission from the share charged", st)
	}
	ahead := time.Duration(tatOf(t, r, "t:a:read")*1e3) - time.Duration(grid.UnixNano())
	if want := time.Duration(st.Charged) * 100 * time.Millisecond; ahead != want {
		t.Errorf("TAT %v past the probe's instant, want %v (%d tokens at 10/s)", ahead, want, st.Charged)
	}
}

// tatOf returns the TAT the server holds under key (µs since the epoch).
func tatOf(t *testing.T, r *rig, key string) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), answerWait)
	defer cancel()
	// One argument in double quotes for the inline protocol.
	v, err := r.srv.Do(ctx, "EVAL", `"return redis.status_reply(tostring(redis.call('GET',KEYS[1])))"`, "1", key)
	if err != nil || len(v) < 2 || v[0] != '+' {
		t.Fatalf("GET %s: %q, %v", key, v, err)
	}
	us, err := strconv.ParseFloat(v[1:], 64)
	if err != nil {
		t.Fatalf("GET %s: %q: the shared bucket holds nothing", key, v)
	}
	return us
}

// TestNoShareOnceRedisAnswers: once the probe finds Redis back, a bucket
// admits nothing more from its share, though the share holds tokens: the
// next admission is a lease, no earlier than the settle after the answer.
func TestNoShareOnceRedisAnswers(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:", Replicas: 4}, Options{})
	b := r.bucket("a", 10, 40)
	r.takeOrWait(b)
	r.srv.Kill()
	r.downAt(b)
	for leased(b) > 0 {
		r.takeOrWait(b)
	}
	// Idle for 5 s on the fallback: the share fills to its burst (10).
	r.advance(5 * time.Second)
	if got := b.TokensAt(r.clock.Now()); got != 10 {
		t.Fatalf("TokensAt = %v on the idle fallback, want 10", got)
	}
	r.srv.Restart()
	r.toGrid()
	back := r.clock.Now()
	taken := r.l.Stats().FallbackTaken
	if r.take(b) {
		t.Fatal("admitted at the probe's answer: from the share, or a lease before the settle")
	}
	at := r.takeOrWait(b)
	if at.Before(back.Add(r.l.settle)) {
		t.Errorf("first admission +%v after Redis answered, before the settle (%v)", at.Sub(back), r.l.settle)
	}
	if st := r.l.Stats(); st.FallbackTaken != taken || st.Down {
		t.Errorf("stats %+v: want no admission from the share once Redis answered", st)
	}
}

// TestProbesOnTheGrid: two replicas that lose Redis at different instants
// (+300 ms and +700 ms) both ask again at the next whole second, and come
// back together there.
func TestProbesOnTheGrid(t *testing.T) {
	r := newRig(t, nil, config.Limits{KeyPrefix: "t:", Replicas: 2}, Options{Clock: clockwork.NewFakeClockAt(epoch)})
	s := newRig(t, r.srv, config.Limits{KeyPrefix: "t:", Replicas: 2}, Options{Clock: r.clock})
	ba, bs := r.bucket("a", 10, 10), s.bucket("a", 10, 10)
	r.takeOrWait(ba)
	s.takeOrWait(bs)
	r.srv.Kill()
	r.advance(300*time.Millisecond - r.clock.Since(epoch))
	r.downAt(ba)
	r.advance(700*time.Millisecond - r.clock.Since(epoch))
	s.downAt(bs)
	if a, b := r.l.nextProbe.Load(), s.l.nextProbe.Load(); a != b || a != epoch.Add(time.Second).UnixNano() {
		t.Fatalf("next probes at +%v and +%v, want both at +1s", time.Unix(0, a).Sub(epoch), time.Unix(0, b).Sub(epoch))
	}
	r.srv.Restart()
	r.clock.Advance(time.Second - r.clock.Since(epoch))
	r.settle()
	s.settle()
	if r.l.Stats().Down || s.l.Stats().Down {
		t.Errorf("down after the probe at +1s: %+v, %+v", r.l.Stats(), s.l.Stats())
	}
}
