// Package config reads solroute's standard TOML document and builds the
// other packages from it.
//
// The model: a document is checked all at once. Parse (or Load) decodes it
// strictly with go-toml/v2 — an unknown key is an error — and collects every
// problem into one *ValidationError: each Problem names the key path the way
// the document spells it ("endpoints[2].roles.send.burst_capacity", a key
// that is not a bare key quoted and escaped) and its line. Messages never
// quote a value of the document: they say what was expected.
//
// ${NAME} references are expanded in url and header values only, from
// ParseOptions.LookupEnv (the process environment by default); "$${" is a
// literal "${". A missing variable is a problem naming the variable.
//
// The result is a *Config: plain data whose secrets (URLs, header values)
// are endpoint.Secrets and print as "[redacted]". The adapter methods turn
// it into endpoint specs, retry settings, transport settings and the method
// registry (the built-in one plus the document's [methods] tables), and
// NewClient / NewSolanaClient build a ready client in one call.
//
// config imports every library package of solroute; none of them imports
// config (a test checks it with go list -deps). The document is described by
// schema.json (JSON Schema 2020-12) next to this file, and example documents
// live in examples/.
package config
