package redislimit

// DefaultLeaseTTL is Options.LeaseTTL's default, for the bounds the
// external tests check.
const DefaultLeaseTTL = defaultLeaseTTL
