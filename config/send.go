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
	k := d.Send.FanOut
	switch {
	case k == 0:
		return // left out: the default (a written 0 is refused by the decoder)
	case k < 0 || k > maxFanOut:
		p.add("send.fan_out", "must be between 1 and "+strconv.Itoa(maxFanOut))
		return
	}
	n := 0
	for i := range d.Endpoints {
		if _, ok := d.Endpoints[i].Roles[endpoint.RoleSend]; ok {
			n++
		}
	}
	if k > n {
		p.add("send.fan_out", "is more than the "+strconv.Itoa(n)+
			" endpoint(s) with a send role: each copy goes to a distinct one")
	}
}
