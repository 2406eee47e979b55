package endpoint

import (
	"net/url"
	"slices"
	"strings"
)

// capabilityBundles is the capability a Client's SendBundle and its
// bundle-status calls require (internal/bundles.Capability): an endpoint
// that serves Jito's bundle methods (a block engine, a provider's RPC
// that proxies them) carries it.
const capabilityBundles = "bundles"

// blockEnginePath is the path a block engine's URL ends with; the
// engine sends its bundle methods to the bundles path beside it.
const blockEnginePath = "/api/v1/transactions"

// sendOnly checks the fields of a send-only service: skip_preflight and
// block_engine need the send role; a block engine's URL is its
// transactions path, and it carries the bundles capability.
func (v *validator) sendOnly(base string, s *Spec) {
	_, sends := s.Roles[RoleSend]
	if s.SkipPreflight && !sends {
		v.add(base+".skip_preflight", "needs the send role: only sendTransaction is adjusted")
	}
	if !s.BlockEngine {
		return
	}
	if !sends {
		v.add(base+".block_engine", "needs the send role")
	}
	if !slices.Contains(s.Capabilities, capabilityBundles) {
		v.add(base+".block_engine", "needs the capability %q, which SendBundle requires", capabilityBundles)
	}
	if u, err := url.Parse(s.URL.Reveal()); err == nil && !strings.HasSuffix(u.Path, blockEnginePath) {
		v.add(base+".url", "of a block engine must be its transactions path, ending in %s", blockEnginePath)
	}
}
