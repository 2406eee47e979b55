package main

import (
	"fmt"
	"net/url"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/redact"
)

// shownVersion is a node's solana-core version as probe prints it: as
// answered when it looks like one (at most 64 letters, digits, '.', '-'
// and '+': "2.1.13", "2.2.0-beta+abc") and holds none of ep's secrets,
// else a note of its length. The text is the server's: a gateway that
// echoes the request there would print the URL's path and query, or the
// key alone (two reviews found them printed).
func shownVersion(v string, ep *endpoint.Spec) string {
	ok := v != "" && len(v) <= 64
	for i := 0; ok && i < len(v); i++ {
		c := v[i]
		ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '-' || c == '+'
	}
	if ok && specSecrets(ep).Redact(v) == v {
		return v
	}
	return fmt.Sprintf("(not a version: %d bytes, not shown)", len(v))
}

// specSecrets is the set of ep's secrets the transport hides (its URL's
// and its headers' values), for text a server sent back that probe
// prints.
func specSecrets(ep *endpoint.Spec) *redact.Set {
	raw := ep.URL.Reveal()
	u, err := url.Parse(raw)
	if err != nil {
		u = &url.URL{}
	}
	var values []string
	for _, h := range ep.Headers {
		values = append(values, h.Reveal())
	}
	return redact.Secrets(raw, u, values)
}
