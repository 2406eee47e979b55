package main

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// attemptLine is the JSON line "call --attempts" writes per attempt.
type attemptLine struct {
	Method     string                    `json:"method"`
	Attempt    int                       `json:"attempt"`
	Endpoint   string                    `json:"endpoint"`
	Tier       int                       `json:"tier"`
	Cause      retrypolicy.Cause         `json:"cause"`
	Dispatch   retrypolicy.DispatchState `json:"dispatch"`
	HTTPStatus int                       `json:"http_status"`
	RPCCode    int                       `json:"rpc_code"`
	DurationMS float64                   `json:"duration_ms"`
	// WaitMS is how long the pool took to admit the attempt; TimeoutMS
	// the attempt's own bound (adaptive or fixed, cut to the call's time).
	WaitMS    float64 `json:"wait_ms"`
	TimeoutMS float64 `json:"timeout_ms"`
	Hedge     bool    `json:"hedge,omitempty"`
	// Decision is "success" for a successful attempt, otherwise the
	// retry policy's rule: "retry", "transparent-retry", "max-retries",
	// "maybe-dispatched", ...
	Decision string  `json:"decision"`
	Retry    bool    `json:"retry"`
	Reason   string  `json:"reason,omitempty"`
	DelayMS  float64 `json:"delay_ms,omitempty"`
}

// attemptWriter writes one attemptLine per attempt. Safe for concurrent
// use.
type attemptWriter struct {
	mu  sync.Mutex
	enc *json.Encoder
	n   map[string]int // attempts so far, by method
}

func newAttemptWriter(w io.Writer) *attemptWriter {
	return &attemptWriter{enc: json.NewEncoder(w), n: make(map[string]int)}
}

// write receives each attempt, through onAttempt (an Observer).
func (w *attemptWriter) write(_ context.Context, method string, a transport.Attempt) {
	line := attemptLine{
		Method:     method,
		Endpoint:   a.Endpoint,
		Tier:       a.Tier,
		Cause:      a.Cause,
		Dispatch:   a.Dispatch,
		HTTPStatus: a.HTTPStatus,
		RPCCode:    a.RPCCode,
		DurationMS: milliseconds(a.Duration),
		WaitMS:     milliseconds(a.Wait),
		TimeoutMS:  milliseconds(a.Timeout),
		Hedge:      a.Hedge,
		Decision:   "success",
		Retry:      a.Decision.Retry,
		Reason:     a.Decision.Reason,
		DelayMS:    milliseconds(a.Decision.Delay),
	}
	if a.Cause != 0 {
		line.Decision = a.Decision.Rule.String()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n[method]++
	line.Attempt = w.n[method]
	_ = w.enc.Encode(line)
}
