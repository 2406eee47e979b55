package methods

import (
	"reflect"
	"slices"
)

// History reads: the methods whose answer comes from the ledger's past
// (the blockstore, or long-term storage behind it), which a node keeps
// only if it was configured to (--enable-rpc-transaction-history, a
// ledger reaching back far enough, BigTable or another store). A read of
// one tries the endpoints that declare history (endpoint.Spec.History)
// first, and the pool avoids, for that method, an endpoint that answered
// it lacks the history asked for (plans/018-history-section.md).

// historyMethods lists the methods of Default that read history: agave
// refuses each with -32011 when history is off, or answers it from the
// blockstore and long-term storage (-32001, -32009, -32019 and -32018 for
// getInflationReward, which reads the epoch's first block), and their
// deprecated getConfirmed* forms. Every name is one Default holds.
func historyMethods() []string {
	return []string{
		"getBlock",
		"getBlockTime",
		"getBlocks",
		"getBlocksWithLimit",
		"getInflationReward",
		"getSignaturesForAddress",
		"getTransaction",
		"getConfirmedBlock",
		"getConfirmedBlocks",
		"getConfirmedBlocksWithLimit",
		"getConfirmedSignaturesForAddress2",
		"getConfirmedTransaction",
	}
}

// statusesMethod reads history only when its config asks for it
// (searchTransactionHistory): otherwise it reads the recent status cache
// every node holds, and is the hot path of a bot confirming its sends.
const statusesMethod = "getSignatureStatuses"

// withHistory marks the history methods of m.
func withHistory(m map[string]Method) map[string]Method {
	for _, name := range historyMethods() {
		e := m[name]
		e.History = true
		m[name] = e
	}
	return m
}

// ReadsHistory reports whether a call of e (a registry entry) with params
// reads the ledger's history: e.History, or getSignatureStatuses whose
// config (its second param: a map, as solana-go's rpc.M) sets
// searchTransactionHistory to true.
func ReadsHistory(e Method, params []any) bool {
	if e.History {
		return true
	}
	return e.Name == statusesMethod && len(params) > 1 && searchesHistory(params[1])
}

// searchesHistory reports whether config, a map with string keys
// (map[string]any or a named map type such as rpc.M), holds
// searchTransactionHistory: true.
func searchesHistory(config any) bool {
	if m, ok := config.(map[string]any); ok {
		v, _ := m["searchTransactionHistory"].(bool)
		return v
	}
	v := reflect.ValueOf(config)
	if v.Kind() != reflect.Map || v.Type().Key().Kind() != reflect.String {
		return false
	}
	x := v.MapIndex(reflect.ValueOf("searchTransactionHistory").Convert(v.Type().Key()))
	if !x.IsValid() {
		return false
	}
	if x.Kind() == reflect.Interface {
		x = x.Elem()
	}
	return x.Kind() == reflect.Bool && x.Bool()
}

// HistoryNames returns, sorted, the name of every method of r a call
// may read history with (ReadsHistory): those marked History, and
// getSignatureStatuses when r holds it. The pool keeps its avoidances
// per endpoint for these.
func (r *Registry) HistoryNames() []string {
	if r == nil {
		return nil
	}
	var out []string
	for name, e := range r.m {
		if e.History || name == statusesMethod {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
