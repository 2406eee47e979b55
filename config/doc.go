// Package config reads solroute's standard TOML document into the settings
// of every package.
//
// The model: a document is the settings types written out. Parse (or Load)
// decodes it into a Document — endpoint.Spec for each [[endpoints]] table,
// transport.Settings for [transport] with retrypolicy.Settings for [retry],
// pool.Settings for [pool] and [pool.ejection], methods.Method for each
// [methods.NAME] table, Limits for [limits] — and the key names are
// those types' toml tags. Decoding starts from transport.DefaultSettings,
// pool.DefaultSettings and DefaultLimits and takes every value the
// document sets as written: an explicit 0 means 0 (no retries, no backoff, no doubt window,
// never eject). Where a
// settings type would read a zero as its default instead (a response size
// limit, a timeout), the document refuses the zero: leave the key out.
//
// A document is checked all at once. Every problem — an unknown key (with
// the key meant when one is close, or where a key of an earlier layout
// moved), a value of the wrong type, a bad duration, a missing environment
// variable, and every problem the settings' own Validate methods and
// endpoint.Validate find — is collected into one *ValidationError: each
// Problem names the key path the way the document spells it
// ("endpoints[2].roles.send.burst_capacity", a key that is not a bare key
// quoted and escaped) and its line. Messages never quote a value of the
// document: they say what was expected.
//
// ${NAME} references are expanded in url and header values only (the
// fields of type endpoint.Secret: an endpoint's url and headers, and
// [limits] url), from ParseOptions.LookupEnv (the process environment by
// default); "$${" is a literal "${". A missing
// variable is a problem naming the variable. Secrets print as
// "[redacted]" every way.
//
// config builds nothing: it imports the settings types of the other
// packages, not their constructors, and none of them imports config (a
// test checks both). Every key, its type, default and range is described
// in docs/config.md and by schema.json (JSON Schema 2020-12) next to this
// file; example documents live in examples/.
package config
