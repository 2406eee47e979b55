package rolestate

import (
	"sync/atomic"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/slots"
)

// Shared is the state the roles of one endpoint share: where it is on the
// chain (slots.Marks: a node has one ledger whatever role a request
// plays) and its cluster verification. The zero value is an endpoint with
// no slot seen, not lagging, and verified (no cluster check). All methods
// are safe for concurrent use.
type Shared struct {
	slots.Marks
	// verification is an endpoint.Verification; excluded says why, once
	// set.
	verification atomic.Uint32
	excluded     atomic.Pointer[string]
	// unchecked says why the cluster check has no answer yet (its last
	// attempt's error, secret-free), while unverified.
	unchecked atomic.Pointer[string]
	// avoid holds, per history method (the pool's index), until when the
	// endpoint is avoided for it (avoid.go).
	avoid []atomic.Int64
}

// Verification returns where the endpoint stands with the cluster guard,
// and why it was excluded ("" unless WrongCluster).
func (sh *Shared) Verification() (endpoint.Verification, string) {
	v := endpoint.Verification(sh.verification.Load())
	if p := sh.excluded.Load(); p != nil {
		return v, *p
	}
	return v, ""
}

// NoteUnchecked records why the cluster check has no answer yet: its last
// attempt's failure, secret-free (it is printed as is).
func (sh *Shared) NoteUnchecked(why string) { sh.unchecked.Store(&why) }

// Unchecked returns what NoteUnchecked recorded last ("" if nothing),
// while the endpoint is unverified.
func (sh *Shared) Unchecked() string {
	if p := sh.unchecked.Load(); p != nil && endpoint.Verification(sh.verification.Load()) == endpoint.Unverified {
		return *p
	}
	return ""
}

// Hold marks the endpoint unverified: no request may use it until Verify.
func (sh *Shared) Hold() { sh.verification.CompareAndSwap(0, uint32(endpoint.Unverified)) }

// Verify marks a held endpoint verified. It reports whether it changed
// anything (an excluded endpoint stays excluded).
func (sh *Shared) Verify() bool {
	return sh.verification.CompareAndSwap(uint32(endpoint.Unverified), uint32(endpoint.Verified))
}

// Exclude takes the endpoint out for good, for reason. The first reason
// stays.
func (sh *Shared) Exclude(reason string) {
	sh.excluded.CompareAndSwap(nil, &reason)
	sh.verification.Store(uint32(endpoint.WrongCluster))
}

// Admissible reports whether a request may use the endpoint: verified, or
// unverified and the request is the check itself (verifying).
func (sh *Shared) Admissible(verifying bool) bool {
	switch endpoint.Verification(sh.verification.Load()) {
	case endpoint.Verified:
		return true
	case endpoint.Unverified:
		return verifying
	}
	return false
}
