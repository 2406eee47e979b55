package engine

import (
	"encoding/json"
	"errors"
	"net/url"

	"github.com/solroute/solroute/transport"
)

// redact removes every secret of ep from msg.
func (ep *endpointClient) redact(msg string) string { return ep.secrets.Redact(msg) }

// wrapErr turns an error from net/http, from decoding or from a callback
// into a secret-free attemptError: a *url.Error (which quotes the whole
// URL) is replaced by its inner error, so errors.As still reaches
// *net.OpError, *tls.RecordHeaderError and the like; an *RPCError whose
// message or data holds a secret becomes a redacted copy, so it keeps its
// type; any other error whose text still holds a secret (a *net.DNSError
// naming the host, a callback quoting req.URL) is replaced by its redacted
// text. It runs only when an attempt fails.
func (ep *endpointClient) wrapErr(err error) *attemptError {
	var ue *url.Error
	for errors.As(err, &ue) {
		err = ue.Err
	}
	if re, ok := err.(*transport.RPCError); ok {
		// The server's own words, which may echo the key it was sent (a
		// query value, a header).
		msg, data := ep.redact(re.Message), ep.redact(string(re.Data))
		if msg != re.Message || data != string(re.Data) {
			err = &transport.RPCError{Code: re.Code, Message: msg, Data: json.RawMessage(data)}
		}
	}
	text := err.Error()
	msg := ep.redact(text)
	if msg != text {
		// The error's own text carries a secret: callers could reach it
		// through Unwrap, so keep a redacted copy of a network error (the
		// DNS error naming the host), otherwise only the redacted text.
		if c, ok := ep.secrets.NetError(err); ok && c.Error() == msg {
			err = c
		} else {
			err = errors.New(msg)
		}
	}
	return &attemptError{endpoint: ep.name, msg: trimPrefix(msg), err: err}
}
