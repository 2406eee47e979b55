package admission

import "sync/atomic"

// wakeList wakes every waiter of one role at once. A waiter takes the
// current channel before it scans the candidates; a release that may unblock
// someone closes that channel and clears it, so the next waiter makes a
// fresh one. Because the channel is taken before the scan, a release that
// lands between the scan and the wait still closes the channel the waiter
// holds: no wakeup is lost. Nothing is locked: one atomic pointer, read
// (and found nil) on releases when nobody waits.
type wakeList struct {
	ch atomic.Pointer[chan struct{}]
}

// channel returns the channel the next broadcast closes.
func (w *wakeList) channel() <-chan struct{} {
	for {
		if p := w.ch.Load(); p != nil {
			return *p
		}
		c := make(chan struct{})
		if w.ch.CompareAndSwap(nil, &c) {
			return c
		}
	}
}

// broadcast wakes every waiter that took a channel before this call.
func (w *wakeList) broadcast() {
	if p := w.ch.Load(); p != nil && w.ch.CompareAndSwap(p, nil) {
		close(*p)
	}
}
