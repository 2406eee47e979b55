package config

import (
	"strconv"

	"github.com/solroute/solroute/endpoint"
)

// Send is the [send] table: how SendAndConfirm sends. The zero value
// takes every default.
type Send struct {
	// FanOut is how many distinct send endpoints each SendAndConfirm
	// sends the same signed bytes to at once, best tier first, each copy
	// under its endpoint's limits and the send rule (see
	// confirm.Options.FanOut, which overrides it when set). 0 means the
	// default, 1: one send through the pool. Written, it must be from 1
	// to 16 and at most the number of endpoints with a send role.
	FanOut int `toml:"fan_out"`
}

// maxFanOut bounds Send.FanOut: more copies than this multiply a
// provider's send quota for no route a bot has.
const maxFanOut = 16

// checkSend checks [send] against the endpoints: a fan-out written must
// fit in the send endpoints (one that cannot be met is a mistake, not a
// wish to clamp).
func (p *parser) checkSend(d *Document) {
	n := 0
	for i := range d.Endpoints {
		if _, ok := d.Endpoints[i].Roles[endpoint.RoleSend]; ok {
			n++
		}
	}
	p.checkSpread("send.fan_out", d.Send.FanOut, maxFanOut, n,
		"endpoint(s) with a send role: each copy goes to a distinct one")
}

// checkSpread checks a count written at key (0: left out, the default;
// a written 0 is refused by the decoder) that spreads over distinct
// endpoints: from 1 to max, and at most the have endpoints that can take
// a part, described by what.
func (p *parser) checkSpread(key string, v, max, have int, what string) {
	switch {
	case v == 0:
	case v < 0 || v > max:
		p.add(key, "must be between 1 and "+strconv.Itoa(max))
	case v > have:
		p.add(key, "is more than the "+strconv.Itoa(have)+" "+what)
	}
}
