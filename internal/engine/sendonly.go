package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/solroute/solroute/endpoint"
)

// Send-only services (plans/017, "Send-only endpoints and bundles"): what
// an endpoint's spec asks of the requests sent to it beyond its template.
// A plain endpoint has none (endpointClient.sendOnly nil): its requests
// pay one nil check.

// sendOnly is the per-endpoint adjustment of requests.
type sendOnly struct {
	// skipPreflight: every sendTransaction carries skipPreflight true and
	// maxRetries 0 (endpoint.Spec.SkipPreflight).
	skipPreflight bool
	// bundles is a block engine's bundles URL, where its bundle methods
	// go (endpoint.Spec.BlockEngine); nil otherwise.
	bundles *url.URL
}

// blockEngineTransactions is the path a block engine's URL ends with.
const blockEngineTransactions = "/api/v1/transactions"

// newSendOnly returns the adjustment spec asks for, target being the
// URL its template posts to; nil when it asks for none.
func newSendOnly(spec *endpoint.Spec, target *url.URL) *sendOnly {
	if !spec.SkipPreflight && !spec.BlockEngine {
		return nil
	}
	so := &sendOnly{skipPreflight: spec.SkipPreflight}
	if spec.BlockEngine {
		so.bundles = bundlesURL(target)
	}
	return so
}

// bundlesURL is u with its transactions path turned into the bundles
// path beside it, host and query kept; nil when u's path does not end
// in it (endpoint.Validate refuses such a block engine).
func bundlesURL(u *url.URL) *url.URL {
	if !strings.HasSuffix(u.Path, blockEngineTransactions) {
		return nil
	}
	b := *u
	b.Path = strings.TrimSuffix(u.Path, "transactions") + "bundles"
	if u.RawPath != "" {
		b.RawPath = strings.TrimSuffix(u.RawPath, "transactions") + "bundles"
	}
	return &b
}

// bundleMethod reports whether a block engine serves method at its
// bundles path.
func bundleMethod(method string) bool {
	switch method {
	case "sendBundle", "getBundleStatuses", "getInflightBundleStatuses", "getTipAccounts":
		return true
	}
	return false
}

// shapedRequest is newRequest adjusted for ep's service: a sendTransaction
// to a sender skipping preflight, a bundle method to a block engine's
// bundles path. method is the call's ("" or a batch's name for a batch,
// which is never adjusted).
func (ep *endpointClient) shapedRequest(ctx context.Context, method string, body []byte, rewindable bool, rd *bytes.Reader) *http.Request {
	so := ep.sendOnly
	if so == nil {
		return ep.newRequest(ctx, body, rewindable, rd)
	}
	if so.skipPreflight && method == "sendTransaction" {
		if b, ok := skipPreflightBody(body); ok {
			body = b
		}
	}
	req := ep.newRequest(ctx, body, rewindable, rd)
	if so.bundles != nil && bundleMethod(method) {
		req.URL = so.bundles // req is the template's shallow copy: the template is untouched
	}
	return req
}

// skipPreflightBody returns the encoded sendTransaction request body with
// skipPreflight true and maxRetries 0 set in its config object (added
// when absent), every other member kept. ok is false when body is not a
// request with params.
func skipPreflightBody(body []byte) ([]byte, bool) {
	var req struct {
		JSONRPC string            `json:"jsonrpc"`
		ID      json.RawMessage   `json:"id"`
		Method  string            `json:"method"`
		Params  []json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Params) == 0 {
		return nil, false
	}
	cfg := map[string]json.RawMessage{}
	if len(req.Params) > 1 {
		if err := json.Unmarshal(req.Params[1], &cfg); err != nil {
			return nil, false
		}
		if cfg == nil { // "null"
			cfg = map[string]json.RawMessage{}
		}
	}
	cfg["skipPreflight"] = json.RawMessage("true")
	cfg["maxRetries"] = json.RawMessage("0")
	c, err := json.Marshal(cfg)
	if err != nil {
		return nil, false
	}
	req.Params = append(req.Params[:1], c)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&req); err != nil {
		return nil, false
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), true
}
