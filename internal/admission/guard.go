package admission

// The cluster guard's side of the pool: an endpoint is held until its
// genesis hash is checked, then verified or excluded for good.

// Hold keeps the named endpoint from every request but those that name
// it (Request.Endpoint) until Verify or Exclude: the cluster guard holds
// every endpoint until its genesis hash is checked. It reports false for
// an unknown name.
func (p *Pool) Hold(name string) bool {
	sh := p.byName[name]
	if sh != nil {
		sh.Hold()
	}
	return sh != nil
}

// Verify lets a held endpoint serve, and wakes the requests waiting for
// one.
func (p *Pool) Verify(name string) {
	if sh := p.byName[name]; sh != nil && sh.Verify() {
		p.wakeAll()
	}
}

// Unchecked records why the named held endpoint's check has no answer yet
// (secret-free: it is printed as is), for the requests that give up
// waiting for it to say.
func (p *Pool) Unchecked(name, why string) {
	if sh := p.byName[name]; sh != nil {
		sh.NoteUnchecked(why)
	}
}

// Exclude takes the named endpoint out for good: no request uses it
// again, and snapshots show reason (secret-free: it is printed as is).
func (p *Pool) Exclude(name, reason string) {
	if sh := p.byName[name]; sh != nil {
		sh.Exclude(reason)
		p.wakeAll() // waiters re-scan, and may give up sooner
	}
}

// wakeAll wakes every request waiting in Acquire.
func (p *Pool) wakeAll() {
	for _, rs := range p.roles {
		if rs != nil {
			rs.queue.all()
		}
	}
}
