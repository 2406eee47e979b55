package endpoint

import (
	"fmt"
	"log/slog"
)

// Spec is one configured RPC endpoint. The toml tags name each field in a
// configuration document's [[endpoints]] table (Roles by Role's text form).
type Spec struct {
	// Name is a unique, non-secret label: the only way the endpoint is ever
	// named in errors, logs, snapshots and metrics. Required.
	Name string `toml:"name"`
	// URL is the endpoint's HTTP(S) address. Its user info, host name, path
	// or query may carry an API key, so it is a Secret: it prints as
	// "[redacted]" every way. User info is sent as Basic authentication
	// unless Headers has an Authorization. Required.
	URL Secret `toml:"url"`
	// Headers are sent with every request (for example Authorization). Their
	// values are Secrets; their names are not secret. Nil means none.
	Headers map[string]Secret `toml:"headers"`
	// Provider is a non-secret label naming whose nodes serve URL, for
	// endpoints that may share them: two URLs of one provider (a staked
	// and a public one, two regions of one fleet) can reach the same
	// backend, so one lagging or forked backend speaks through both. The
	// resolver (confirm) counts endpoints of one Provider as one witness
	// of an expiry, and its quorum as that many providers, unless every
	// read endpoint names the same one (confirm.Options.Quorum). Empty means
	// the endpoint shares nodes with no other (it is its own provider).
	// The same rules as Name apply: no control characters, valid UTF-8,
	// no spaces at either end.
	Provider string `toml:"provider"`
	// Tier orders endpoints by preference: 0 is tried first, then 1, and so
	// on. Negative tiers are invalid.
	Tier int `toml:"tier"`
	// Capabilities are tags a request may require, such as "archive".
	Capabilities []string `toml:"capabilities"`
	// History declares that the endpoint keeps the ledger's whole history
	// (an archive: transaction history on, long-term storage behind it).
	// A history read (getTransaction, getBlock, getSignaturesForAddress,
	// ...; methods.Method.History) tries such endpoints first, in any tier,
	// then the others; other requests ignore it. False: not declared.
	History bool `toml:"history"`
	// Roles maps each role the endpoint serves to its limits. An endpoint
	// serves exactly the roles present; at least one is required.
	Roles map[Role]Limits `toml:"roles"`
	// WSURL is the endpoint's PubSub (WebSocket) address, for its
	// subscribe role: a ws or wss URL, a Secret like URL. Empty means URL
	// with http turned to ws and https to wss, the same host, path and
	// query (where providers serve it).
	WSURL Secret `toml:"ws_url"`
	// Subscribe, when not nil, is the subscribe role's limits: the
	// endpoint holds subscriptions (slotSubscribe, accountSubscribe, ...)
	// at WSURL. Nil means it holds none.
	Subscribe *SubscribeLimits `toml:"subscribe"`
	// SkipPreflight marks a sender that accepts sendTransaction only with
	// skipPreflight true and maxRetries 0 (Helius Sender): every
	// sendTransaction the pool routes here carries both, whatever the
	// caller asked. Needs the send role (sendonly.go).
	SkipPreflight bool `toml:"skip_preflight"`
	// BlockEngine marks a Jito-style block engine: URL is its
	// transactions path (…/api/v1/transactions, any query kept), and its
	// bundle methods (sendBundle, getBundleStatuses,
	// getInflightBundleStatuses, getTipAccounts) go to the bundles path
	// beside it (…/api/v1/bundles, the same host and query). Needs the
	// send role and the capability "bundles" (sendonly.go).
	BlockEngine bool `toml:"block_engine"`
}

// String names the spec without its URL or headers, so that printing a Spec
// by mistake (%v, %+v, %s) leaks no secret. (Where fmt cannot call String,
// through an unexported field, the Secrets still print as addresses; and
// encoding/json shows them as "[redacted]".)
func (s Spec) String() string {
	return fmt.Sprintf("endpoint %q (tier %d)", s.Name, s.Tier)
}

// LogValue names the spec in structured logs without its URL or headers.
func (s Spec) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", s.Name), slog.Int("tier", s.Tier))
}
