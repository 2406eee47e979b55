package pubsub

import (
	"errors"
	"net/url"

	"github.com/solroute/solroute/internal/redact"
)

// secrets is every text of one endpoint that must never appear in an
// error or a log: the set the HTTP transport builds for its endpoints
// (redact.Secrets), over the WebSocket URL and the upgrade's headers.
type secrets struct {
	set *redact.Set
}

// newSecrets builds the set of rawURL, a ws(s) URL (its user info, host
// and port, path, query and fragment, whole and in parts), and headers,
// the header values sent with the upgrade (the Basic one built from the
// user info included), each in every form a server can echo it; and,
// when httpURL is not "", that URL's (Endpoint.HTTPURL).
func newSecrets(rawURL string, headers []string, httpURL string) *secrets {
	u, err := url.Parse(rawURL)
	if err != nil {
		// checkEndpoints refuses such a URL; were one here, it would
		// still be hidden whole.
		u = new(url.URL)
	}
	// Its address too, an IP one included, which the HTTP transport
	// leaves readable: PubSub errors, logs and snapshots name an endpoint
	// by its label alone (Endpoint.Name).
	set := redact.Secrets(rawURL, u, headers).With(u.Host)
	if httpURL != "" {
		hu, err := url.Parse(httpURL)
		if err != nil {
			hu = new(url.URL)
		}
		set = set.Join(redact.Secrets(httpURL, hu, nil))
	}
	return &secrets{set: set}
}

// redact replaces every secret in msg.
func (s *secrets) redact(msg string) string { return s.set.Redact(msg) }

// redactedError is an error whose text held a secret: its redacted text,
// and nothing a caller could unwrap to the original.
type redactedError struct{ msg string }

func (e *redactedError) Error() string { return e.msg }

// clean returns err safe to show: a *url.Error (which quotes the URL) is
// replaced by its cause; an error whose text still holds a secret (a DNS
// error naming the host, a close reason echoing the key) by its redacted
// text. An error that names no secret is kept, so errors.Is and
// errors.As still reach *net.OpError, context errors and the like.
func (s *secrets) clean(err error) error {
	if err == nil {
		return nil
	}
	var ue *url.Error
	for errors.As(err, &ue) {
		err = ue.Err
	}
	text := err.Error()
	if msg := s.redact(text); msg != text {
		return &redactedError{msg: msg}
	}
	return err
}
