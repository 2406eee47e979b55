package config

// Subscribe is the [subscribe] table: how a client holds its
// subscriptions across the endpoints that serve the subscribe role
// ([endpoints.subscribe]). The zero value takes every default.
type Subscribe struct {
	// Redundancy is how many distinct endpoints hold each subscription at
	// once (best tier first): its notifications are deduplicated, so a
	// second endpoint costs a provider subscription and buys an update
	// that a cut or stalled endpoint would have lost. 0 means the default:
	// 2, or 1 with a single subscribe endpoint. Written, it must be from
	// 1 to 16 and at most the number of subscribe endpoints.
	Redundancy int `toml:"redundancy"`
}

// maxRedundancy bounds Subscribe.Redundancy: more legs than this multiply
// a provider's subscriptions for no fault a bot meets.
const maxRedundancy = 16

// checkSubscribe checks [subscribe] against the endpoints: a redundancy
// written must fit in the subscribe endpoints (one that cannot be met is a
// mistake, not a wish to clamp). Its range is the decoder's.
func (p *parser) checkSubscribe(d *Document) {
	n := 0
	for i := range d.Endpoints {
		if d.Endpoints[i].Subscribe != nil {
			n++
		}
	}
	p.checkSpread("subscribe.redundancy", d.Subscribe.Redundancy, maxRedundancy, n,
		"endpoint(s) with an [endpoints.subscribe] table: each subscription is held on that many distinct endpoints")
}
