package admission

import (
	"maps"
	"slices"

	"github.com/solroute/solroute/endpoint"
)

// Serves reports whether the endpoint s serves role r: it has limits for
// it.
func Serves(s *endpoint.Spec, r endpoint.Role) bool {
	_, ok := s.Roles[r]
	return ok
}

// hasCapabilities reports whether s carries every tag in caps.
func hasCapabilities(s *endpoint.Spec, caps []string) bool {
	for _, c := range caps {
		if !slices.Contains(s.Capabilities, c) {
			return false
		}
	}
	return true
}

// cloneSpec returns a deep copy of s: its Headers, Capabilities, Roles and
// Subscribe limits are not shared with s.
func cloneSpec(s endpoint.Spec) endpoint.Spec {
	s.Headers = maps.Clone(s.Headers)
	s.Capabilities = slices.Clone(s.Capabilities)
	s.Roles = maps.Clone(s.Roles)
	if s.Subscribe != nil {
		l := *s.Subscribe
		s.Subscribe = &l
	}
	return s
}
