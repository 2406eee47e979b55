package config

import (
	"reflect"
	"strconv"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/methods"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// checkCoalesce checks [transport] coalesce against the methods a client
// built from d knows: each entry must be a read that may be resent, built
// in (methods.Default) or declared under [methods] with role "read" and
// class "idempotent", as the client refuses any other (a send is never
// coalesced). transport.Settings.Validate checks the names themselves.
func (p *parser) checkCoalesce(d *Document) {
	path := pathOf(reflect.TypeFor[transport.Settings]()) + "." + fieldKeyOf[transport.Settings]("Coalesce")
	if p.hasAtOrBelow(path) {
		return
	}
	base := methods.Default()
	for i, name := range d.Transport.Coalesce {
		e, known := d.Methods[name]
		if !known {
			e, known = base.Lookup(name)
		}
		if !known || e.Role != endpoint.RoleRead || e.Class != retrypolicy.Idempotent {
			p.add(path+"["+strconv.Itoa(i)+"]", coalesceRule)
		}
	}
}

// coalesceRule says what a coalesce entry must be.
const coalesceRule = `is not a read that may be resent: want a built-in read or a method declared under [methods] with role = "read" and class = "idempotent" (a send is never coalesced)`
