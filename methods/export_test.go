package methods

// Test-only doors into the registry's unexported parts.

// HeavyTimeout is heavyTimeout, for tests.
const HeavyTimeout = heavyTimeout

// HeavyMethods is heavyMethods, for tests.
func HeavyMethods() []string { return heavyMethods() }

// With is with, naming the method name, for tests that build a registry
// without Declare's checks.
func (r *Registry) With(name string, m Method) *Registry {
	m.Name = name
	return r.with(m)
}

// Len is how many methods r holds, for tests.
func (r *Registry) Len() int { return len(r.Names()) }
