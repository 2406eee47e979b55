package rolestate

import (
	"testing"
	"time"

	"github.com/solroute/solroute/endpoint"
)

func TestCooldownOf(t *testing.T) {
	tests := []struct {
		name     string
		pause    time.Duration
		provider time.Duration
		want     time.Duration
	}{
		{"no provider delay: configured pause", 2 * time.Second, 0, 2 * time.Second},
		{"no pause configured: default", 0, 0, endpoint.Limits{}.Normalized().PauseAfterRateLimit},
		{"shorter provider delay: pause", 2 * time.Second, time.Second, 2 * time.Second},
		{"longer provider delay extends", 2 * time.Second, 5 * time.Second, 5 * time.Second},
		{"provider delay capped at 60s", time.Second, time.Hour, 60 * time.Second},
		{"pause above the cap is kept", 2 * time.Minute, time.Hour, 2 * time.Minute},
		{"negative provider delay ignored", time.Second, -time.Hour, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cooldownOf(endpoint.Limits{PauseAfterRateLimit: tt.pause}, tt.provider); got != tt.want {
				t.Errorf("cooldownOf(%v) = %v, want %v", tt.provider, got, tt.want)
			}
		})
	}
}

func TestEjectionLength(t *testing.T) {
	if !ejects(endpoint.DefaultEjection()) {
		t.Fatal("the default Ejection does not eject")
	}
	if ejects(endpoint.Ejection{}) {
		t.Fatal("the zero Ejection must never eject")
	}
	ms := time.Millisecond
	e := endpoint.Ejection{After: 1, Base: 100 * ms, Max: 700 * ms}
	for prior, want := range []time.Duration{100 * ms, 200 * ms, 400 * ms, 700 * ms, 700 * ms} {
		if got := ejectionLength(e, prior); got != want {
			t.Errorf("ejectionLength(%d) = %v, want %v", prior, got, want)
		}
	}
	if got := ejectionLength(e, 1<<30); got != 700*ms {
		t.Errorf("ejectionLength(2^30) = %v, want the cap", got)
	}
}
