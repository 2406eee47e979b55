package config

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/genesis"
	"github.com/solroute/solroute/internal/httpheader"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// The document's own rules: what a value means in a document beyond what
// the settings types check themselves (their Validate methods, mapped by
// validate.go).

// zeroMeansDefault reports whether the field name of struct type t reads
// a zero as its package's default rather than as zero. In the document a
// value means what it says, so an explicit zero there is refused: leaving
// the key out gives the default.
func zeroMeansDefault(t reflect.Type, name string) bool {
	for _, f := range zeroMeansDefaultFields() {
		if f.t == t && f.name == name {
			return true
		}
	}
	return false
}

// zeroMeansDefaultFields lists the fields zeroMeansDefault names
// (TestZeroMeansDefaultFieldsExist keeps the names honest).
func zeroMeansDefaultFields() []struct {
	t    reflect.Type
	name string
} {
	return []struct {
		t    reflect.Type
		name string
	}{
		{reflect.TypeFor[transport.Settings](), "MaxResponseBytes"},                 // 0: 64 MiB
		{reflect.TypeFor[transport.Settings](), "ResponseBudgetBytes"},              // 0: 1/16 of memory, 64-256 MiB
		{reflect.TypeFor[transport.Settings](), "AttemptTimeout"},                   // 0: adaptive for reads, half the call's budget otherwise
		{reflect.TypeFor[endpoint.Limits](), "RequestTimeout"},                      // 0: 10 s
		{reflect.TypeFor[endpoint.Limits](), "PauseAfterRateLimit"},                 // 0: 1 s
		{reflect.TypeFor[Limits](), "Replicas"},                                     // 0: one replica
		{reflect.TypeFor[endpoint.SubscribeLimits](), "SubscriptionsPerConnection"}, // 0: 100
		{reflect.TypeFor[endpoint.SubscribeLimits](), "MaxConnections"},             // 0: 8
		{reflect.TypeFor[Subscribe](), "Redundancy"},                                // 0: 2, or 1 with one subscribe endpoint
		{reflect.TypeFor[Send](), "FanOut"},                                         // 0: 1, one send through the pool
	}
}

// autoWord is the string a duration key that takes an automatic value
// accepts instead of a duration.
const autoWord = "auto"

// autoValue reports whether the field name of struct type t accepts
// autoWord besides a duration, and the value it then takes.
func autoValue(t reflect.Type, name string) (time.Duration, bool) {
	for _, f := range autoFields() {
		if f.t == t && f.name == name {
			return f.v, true
		}
	}
	return 0, false
}

// autoFields lists the fields autoValue names (TestAutoFieldsExist keeps
// the names honest).
func autoFields() []struct {
	t    reflect.Type
	name string
	v    time.Duration
} {
	return []struct {
		t    reflect.Type
		name string
		v    time.Duration
	}{
		{reflect.TypeFor[transport.Settings](), "HedgeAfter", transport.HedgeAuto}, // the endpoint's recent p95
	}
}

// textChoices lists the names the document accepts for an enumeration
// decoded by its UnmarshalText.
func textChoices(t reflect.Type) []string {
	var names []string
	switch t {
	case reflect.TypeFor[endpoint.Role]():
		for _, r := range endpoint.AllRoles() {
			names = append(names, r.String())
		}
	case reflect.TypeFor[retrypolicy.Class]():
		for _, c := range validClasses() {
			names = append(names, c.String())
		}
	case reflect.TypeFor[Backend]():
		for _, b := range allBackends() {
			names = append(names, b.String())
		}
	}
	return names
}

// oneOf spells names as a choice: `"a", "b" or "c"`.
func oneOf(names []string) string {
	if len(names) == 0 {
		return "a known name"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// checkCluster checks the cluster key.
func (p *parser) checkCluster(d *Document) {
	path := pathOf(reflect.TypeFor[string]())
	if !p.present[path] || p.hasAtOrBelow(path) {
		return
	}
	if _, known := genesis.Of(d.Cluster); !known {
		p.add(path, "is not a known cluster: want mainnet-beta, devnet, testnet or a cluster's genesis hash (32 bytes in base58)")
	}
}

// checkHeaders checks each header of each endpoint on its own key, so that
// a problem names the header's path: a name that is not an HTTP token, a
// value (after expansion) with a control character. Such a header is
// removed, so that endpoint.Validate does not report it again.
func (p *parser) checkHeaders(d *Document) {
	base := pathOf(reflect.TypeFor[[]endpoint.Spec]())
	for i := range d.Endpoints {
		s := &d.Endpoints[i]
		path := join(base+"["+strconv.Itoa(i)+"]", fieldKeyOf[endpoint.Spec]("Headers"))
		for _, name := range slices.Sorted(maps.Keys(s.Headers)) {
			hp := join(path, httpheader.ShownName(name)) // as the decoder named it
			switch {
			case p.hasAtOrBelow(hp):
			case !httpheader.ValidName(name):
				p.add(hp, "is not a valid HTTP header name (a name only, its value apart)")
			case !httpheader.ValidValue(s.Headers[name].Reveal()):
				p.add(hp, "value must not contain control characters such as a newline")
			default:
				continue
			}
			delete(s.Headers, name)
		}
	}
}

// checkEjectionOrder: in the document, a max_time below base_time is a
// mistake (endpoint.Ejection reads it as base_time).
func (p *parser) checkEjectionOrder(d *Document) {
	table := pathOf(reflect.TypeFor[endpoint.Ejection]())
	maxKey, baseKey := join(table, fieldKeyOf[endpoint.Ejection]("Max")), fieldKeyOf[endpoint.Ejection]("Base")
	e := d.Pool.Ejection
	basePath := join(table, baseKey)
	switch {
	case e.Max >= e.Base || p.hasAtOrBelow(maxKey) || p.hasAtOrBelow(basePath):
	case p.present[maxKey]:
		msg := "must not be below " + baseKey
		p.add(maxKey, msg+p.notes(maxKey, msg))
	case p.present[basePath]:
		// max_time left out is its default, which a longer base_time
		// passes: every ejection would last one length, never doubling.
		p.add(basePath, "must not be above max_time, "+e.Max.String()+" when left out: write max_time too")
	}
}

// checkWide reports the integers that do not fit 32 bits, so that they
// fit an int everywhere, unless the settings' Validate already reported
// them with their own bounds.
func (p *parser) checkWide() {
	for _, w := range p.wide {
		switch {
		case p.hasAtOrBelow(w.path):
		case w.negative:
			p.add(w.path, "must be at least "+strconv.Itoa(math.MinInt32))
		default:
			p.add(w.path, "must be at most "+strconv.Itoa(math.MaxInt32))
		}
	}
}

// fieldKeyOf returns the document key of struct T's field name.
func fieldKeyOf[T any](name string) string {
	f, ok := reflect.TypeFor[T]().FieldByName(name)
	if !ok {
		panic("config: no field " + name) // a programming error, caught by every test
	}
	key, _ := fieldKey(f)
	return key
}

// pathOf returns the path of the table (or key) of the layout that a value
// of type t fills: the first field of that type, pointers followed,
// breadth first, not below an array or a map. It is "" when there is none.
func pathOf(t reflect.Type) string {
	type node struct {
		path string
		t    reflect.Type
	}
	queue := []node{{"", reflect.TypeFor[layout]()}}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for n.t.Kind() == reflect.Pointer {
			n.t = n.t.Elem()
		}
		if n.t == t && n.path != "" {
			return n.path
		}
		if n.t.Kind() != reflect.Struct {
			continue
		}
		for i := range n.t.NumField() {
			if key, ok := fieldKey(n.t.Field(i)); ok {
				queue = append(queue, node{join(n.path, key), n.t.Field(i).Type})
			}
		}
	}
	return ""
}
