package admission

import (
	"reflect"
	"slices"

	"github.com/solroute/solroute/methods"
)

// statusesMethod reads history only when its config asks for it
// (searchTransactionHistory): otherwise it reads the recent status cache
// every node holds, and is the hot path of a bot confirming its sends.
const statusesMethod = "getSignatureStatuses"

// ReadsHistory reports whether a call of e (a registry entry) with params
// reads the ledger's history (Request.History): e.History, or
// getSignatureStatuses whose config (its second param: a map, as
// solana-go's rpc.M) sets searchTransactionHistory to true.
func ReadsHistory(e methods.Method, params []any) bool {
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

// historyNames returns, sorted, the name of every method of reg a call
// may read history with (ReadsHistory): those marked History, and
// getSignatureStatuses when reg holds it. The pool keeps its avoidances
// per endpoint for these.
func historyNames(reg *methods.Registry) []string {
	var out []string
	for _, name := range reg.Names() {
		if e, _ := reg.Lookup(name); e.History || name == statusesMethod {
			out = append(out, name)
		}
	}
	return slices.Clip(out)
}
