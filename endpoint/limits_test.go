package endpoint

import (
	"testing"
	"time"
)

func TestNormalizedDerivesBurstAndDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   Limits
		want Limits
	}{
		{"unlimited", Limits{}, Limits{RequestTimeout: DefaultRequestTimeout, PauseAfterRateLimit: DefaultPauseAfterRateLimit}},
		{"implicit burst is one second of rate", Limits{RequestsPerSecond: 10}, Limits{RequestsPerSecond: 10, BurstCapacity: 10, RequestTimeout: DefaultRequestTimeout, PauseAfterRateLimit: DefaultPauseAfterRateLimit}},
		{"implicit burst rounds down", Limits{RequestsPerSecond: 2.5}, Limits{RequestsPerSecond: 2.5, BurstCapacity: 2, RequestTimeout: DefaultRequestTimeout, PauseAfterRateLimit: DefaultPauseAfterRateLimit}},
		{"implicit burst at least 1", Limits{RequestsPerSecond: 0.2}, Limits{RequestsPerSecond: 0.2, BurstCapacity: 1, RequestTimeout: DefaultRequestTimeout, PauseAfterRateLimit: DefaultPauseAfterRateLimit}},
		{"explicit values kept", Limits{RequestsPerSecond: 3, BurstCapacity: 7, MaxConcurrentRequests: 2, RequestTimeout: time.Second, PauseAfterRateLimit: time.Minute}, Limits{RequestsPerSecond: 3, BurstCapacity: 7, MaxConcurrentRequests: 2, RequestTimeout: time.Second, PauseAfterRateLimit: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.Normalized(); got != tt.want {
				t.Errorf("Normalized() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCooldown(t *testing.T) {
	tests := []struct {
		name     string
		pause    time.Duration
		provider time.Duration
		want     time.Duration
	}{
		{"no provider delay: configured pause", 2 * time.Second, 0, 2 * time.Second},
		{"no pause configured: default", 0, 0, DefaultPauseAfterRateLimit},
		{"shorter provider delay: pause", 2 * time.Second, time.Second, 2 * time.Second},
		{"longer provider delay extends", 2 * time.Second, 5 * time.Second, 5 * time.Second},
		{"provider delay capped at 60s", time.Second, time.Hour, maxProviderDelay},
		{"pause above the cap is kept", 2 * time.Minute, time.Hour, 2 * time.Minute},
		{"negative provider delay ignored", time.Second, -time.Hour, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Limits{PauseAfterRateLimit: tt.pause}).Cooldown(tt.provider); got != tt.want {
				t.Errorf("Cooldown(%v) = %v, want %v", tt.provider, got, tt.want)
			}
		})
	}
}

func TestEjectionDefaultsAndDuration(t *testing.T) {
	d := DefaultEjection()
	if d != (Ejection{After: 5, Base: 250 * time.Millisecond, Max: 2 * time.Second}) || !d.Enabled() || d.Validate() != nil {
		t.Fatalf("DefaultEjection() = %+v", d)
	}
	if (Ejection{}).Enabled() || (Ejection{}).Validate() != nil {
		t.Fatal("the zero Ejection must be valid and never eject")
	}
	ms := time.Millisecond
	e := Ejection{After: 1, Base: 100 * ms, Max: 700 * ms}
	for prior, want := range []time.Duration{100 * ms, 200 * ms, 400 * ms, 700 * ms, 700 * ms} {
		if got := e.Duration(prior); got != want {
			t.Errorf("Duration(%d) = %v, want %v", prior, got, want)
		}
	}
	if got := e.Duration(1 << 30); got != 700*ms {
		t.Errorf("Duration(2^30) = %v, want the cap", got)
	}
	if err := (Ejection{After: -1, Base: 2 * time.Hour}).Validate(); err == nil {
		t.Fatal("out of range accepted")
	}
	if err := (Ejection{After: 3}).Validate(); err == nil {
		t.Fatal("an ejection with no length accepted")
	}
}
