package pubsub

import (
	"fmt"
	"time"
)

// timeoutError is a deadline the engine's clock passed.
type timeoutError struct{ msg string }

func (e *timeoutError) Error() string { return e.msg }

// Timeout reports true, for net.Error-minded callers.
func (e *timeoutError) Timeout() bool { return true }

func errStalled(d time.Duration) error {
	return &timeoutError{fmt.Sprintf("no notification for %v while other endpoints moved", d.Round(time.Millisecond))}
}

func errSilent(d time.Duration) error {
	return &timeoutError{fmt.Sprintf("no notification for %v", d.Round(time.Millisecond))}
}

func errUnanswered(d time.Duration) error {
	return &timeoutError{fmt.Sprintf("a subscribe unanswered for %v", d)}
}
