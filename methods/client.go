package methods

import "github.com/solroute/solroute/transport"

// Client makes typed calls through a transport.Client. It is safe for
// concurrent use; its zero value is not usable (use New).
type Client struct {
	t *transport.Client
}

// New returns a Client over t.
func New(t *transport.Client) *Client { return &Client{t: t} }

// Transport returns the transport the Client calls through.
func (c *Client) Transport() *transport.Client { return c.t }
