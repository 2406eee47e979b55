package solroute_test

import (
	"time"

	"github.com/solroute/solroute/retrypolicy"
)

// retrySettings makes backoffs 0 so tests never wait on the clock.
func retrySettings() retrypolicy.Settings {
	s := retrypolicy.DefaultSettings()
	s.Jitter = func(time.Duration) time.Duration { return 0 }
	return s
}
