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
		{"unlimited", Limits{}, Limits{RequestTimeout: defaultRequestTimeout, PauseAfterRateLimit: defaultPauseAfterRateLimit}},
		{"implicit burst is one second of rate", Limits{RequestsPerSecond: 10}, Limits{RequestsPerSecond: 10, BurstCapacity: 10, RequestTimeout: defaultRequestTimeout, PauseAfterRateLimit: defaultPauseAfterRateLimit}},
		{"implicit burst rounds down", Limits{RequestsPerSecond: 2.5}, Limits{RequestsPerSecond: 2.5, BurstCapacity: 2, RequestTimeout: defaultRequestTimeout, PauseAfterRateLimit: defaultPauseAfterRateLimit}},
		{"implicit burst at least 1", Limits{RequestsPerSecond: 0.2}, Limits{RequestsPerSecond: 0.2, BurstCapacity: 1, RequestTimeout: defaultRequestTimeout, PauseAfterRateLimit: defaultPauseAfterRateLimit}},
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

func TestEjectionDefaults(t *testing.T) {
	d := DefaultEjection()
	// Whether an Ejection ejects and for how long is internal/rolestate's
	// (TestEjectionLength there).
	if d != (Ejection{After: 5, Base: 250 * time.Millisecond, Max: 2 * time.Second}) || d.Validate() != nil {
		t.Fatalf("DefaultEjection() = %+v", d)
	}
	if (Ejection{}).Validate() != nil {
		t.Fatal("the zero Ejection must be valid")
	}
	if err := (Ejection{After: -1, Base: 2 * time.Hour}).Validate(); err == nil {
		t.Fatal("out of range accepted")
	}
	if err := (Ejection{After: 3}).Validate(); err == nil {
		t.Fatal("an ejection with no length accepted")
	}
}
