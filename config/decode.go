package config

import (
	"encoding"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/internal/httpheader"
)

// The decoder: go-toml reads the document into a tree of maps, slices and
// scalars (so that a value of the wrong type is one more problem, not the
// end of decoding), and parser.value walks that tree and the settings
// types together by reflection. A table's keys are the toml tags of the
// struct it fills (see tableFields); nothing else names them. Every value
// is taken as written over the defaults already in place.

// parser decodes and checks one document, recording every problem instead
// of stopping at the first.
type parser struct {
	problems
	lookup func(string) (string, bool)
	// present holds the path of every key the document sets, tables
	// included.
	present map[string]bool
	// unknown holds the keys that name nothing, with their messages.
	unknown []unknownKey
	// wide holds the integers that do not fit 32 bits (see checkWide).
	wide []wideInt
	// root is the layout of the Document being filled.
	root reflect.Value
	// before counts the problems recorded before checkSettings.
	before int
}

// wideInt is an integer of the document that does not fit 32 bits.
type wideInt struct {
	path     string
	negative bool
}

// fieldKey returns the document key of a struct field: its toml tag up to
// the first comma. ok is false for a field the document does not set (no
// tag, "-", or unexported).
func fieldKey(f reflect.StructField) (key string, ok bool) {
	key, _, _ = strings.Cut(f.Tag.Get("toml"), ",")
	return key, f.IsExported() && key != "" && key != "-"
}

// tableFields maps the keys of the table a struct type fills to its field
// indexes.
func tableFields(t reflect.Type) map[string]int {
	out := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		if key, ok := fieldKey(t.Field(i)); ok {
			out[key] = i
		}
	}
	return out
}

// isText reports whether t is decoded from a string by its UnmarshalText
// (an enumeration such as endpoint.Role), not field by field.
func isText(t reflect.Type) bool {
	return t.Kind() != reflect.Struct && reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}

// isTable reports whether t is decoded from a TOML table key by key (a
// settings struct), not from a single value.
func isTable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !isText(t) && t != reflect.TypeFor[endpoint.Secret]()
}

// value decodes raw, the value at path, into v.
func (p *parser) value(path string, raw any, v reflect.Value) {
	p.present[path] = true
	t := v.Type()
	switch {
	case t == reflect.TypeFor[endpoint.Secret]():
		// A secret (a url or a header value) is the one place ${VAR}
		// expands.
		if s, ok := p.leaf(path, raw, t).(string); ok {
			if s, ok := p.expand(path, s); ok {
				v.Set(reflect.ValueOf(endpoint.NewSecret(s)))
			}
		}
	case t == reflect.TypeFor[time.Duration]():
		p.duration(path, raw, v)
	case isText(t):
		if s, ok := p.leaf(path, raw, t).(string); ok {
			if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
				// The error quotes the value: say what is expected instead.
				p.add(path, "must be "+oneOf(textChoices(t)))
			}
		}
	default:
		p.kind(path, raw, v)
	}
}

// kind decodes by the kind of v's type.
func (p *parser) kind(path string, raw any, v reflect.Value) {
	t := v.Type()
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		p.value(path, raw, v.Elem())
	case reflect.Struct:
		p.table(path, raw, v)
	case reflect.Map:
		p.mapTable(path, raw, v)
	case reflect.Slice:
		p.array(path, raw, v)
	case reflect.String:
		if s, ok := p.leaf(path, raw, t).(string); ok {
			v.SetString(s)
		}
	case reflect.Bool:
		if b, ok := p.leaf(path, raw, t).(bool); ok {
			v.SetBool(b)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, ok := p.leaf(path, raw, t).(int64); ok {
			p.integer(path, n, v)
		}
	case reflect.Float32, reflect.Float64:
		switch x := p.leaf(path, raw, t).(type) {
		case int64:
			v.SetFloat(float64(x))
		case float64:
			v.SetFloat(x)
		}
	default:
		// No settings type has such a field (TestEveryKeyDecodes).
		p.add(path, "cannot be set from a document")
	}
}

// leaf returns raw when it has the TOML type t is decoded from, and
// records a problem and returns nil otherwise.
func (p *parser) leaf(path string, raw any, t reflect.Type) any {
	ok := false
	switch raw.(type) {
	case string:
		ok = t == reflect.TypeFor[endpoint.Secret]() || isText(t) || t.Kind() == reflect.String
	case bool:
		ok = t.Kind() == reflect.Bool
	case int64:
		ok = t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64 || t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64
	case float64:
		ok = t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64
	}
	if !ok {
		p.add(path, "must be "+want(path, t)+", not "+tomlType(raw))
		return nil
	}
	return raw
}

// integer sets v to n. An integer that does not fit 32 bits is recorded
// (checkWide reports it unless the settings' own Validate already did).
func (p *parser) integer(path string, n int64, v reflect.Value) {
	if v.Kind() == reflect.Int && (n > math.MaxInt32 || n < math.MinInt32) {
		p.wide = append(p.wide, wideInt{path: path, negative: n < 0})
	}
	if v.OverflowInt(n) {
		return
	}
	v.SetInt(n)
}

// duration decodes a duration string (see parseDuration).
func (p *parser) duration(path string, raw any, v reflect.Value) {
	s, ok := raw.(string)
	if !ok {
		p.add(path, "must be "+want(path, v.Type())+", not "+tomlType(raw))
		return
	}
	d, negative, problem := parseDuration(s)
	switch {
	case negative:
		p.add(path, "must not be negative")
	case problem != "":
		p.add(path, problem)
	default:
		v.SetInt(int64(d))
	}
}

// table decodes a table into the struct v: each key into the field whose
// toml tag it is; a key that is no field's is unknown.
func (p *parser) table(path string, raw any, v reflect.Value) {
	m, ok := raw.(map[string]any)
	if !ok {
		p.add(path, "must be "+want(path, v.Type())+", not "+tomlType(raw))
		return
	}
	t := v.Type()
	fields := tableFields(t)
	for _, key := range slices.Sorted(maps.Keys(m)) {
		kp := join(path, key)
		i, ok := fields[key]
		if !ok {
			p.unknownKey(kp, key, m[key], slices.Sorted(maps.Keys(fields)))
			continue
		}
		n := len(p.list)
		f := v.Field(i)
		if auto, ok := autoValue(t, t.Field(i).Name); ok {
			// A duration that may also be "auto" (hedge_after).
			if m[key] == autoWord {
				p.present[kp] = true
				f.SetInt(int64(auto))
				continue
			}
			p.value(kp, m[key], f)
			for j := n; j < len(p.list); j++ {
				if rest, ok := strings.CutPrefix(p.list[j].Message, "is not a duration:"); ok {
					p.list[j].Message = `is neither "` + autoWord + `" nor a duration:` + rest
				}
			}
			continue
		}
		p.value(kp, m[key], f)
		if len(p.list) == n && f.IsZero() && zeroMeansDefault(t, t.Field(i).Name) {
			p.add(kp, "must be positive (leave the key out for the default)")
		}
	}
}

// mapTable decodes a table into the map v: each key by the map's key type
// (a string, or an enumeration's text form; a key it refuses is unknown),
// each value by its value type. The map is made at the first key, so that
// an empty table leaves it nil.
func (p *parser) mapTable(path string, raw any, v reflect.Value) {
	m, ok := raw.(map[string]any)
	if !ok {
		p.add(path, "must be "+want(path, v.Type())+", not "+tomlType(raw))
		return
	}
	t := v.Type()
	headers := t.Elem() == reflect.TypeFor[endpoint.Secret]() // a header's name may be a pasted "Name: key" line
	for _, key := range slices.Sorted(maps.Keys(m)) {
		kp := join(path, key)
		if headers {
			kp = join(path, httpheader.ShownName(key))
		}
		kv := reflect.New(t.Key()).Elem()
		switch {
		case t.Key().Kind() == reflect.String:
			kv.SetString(key)
		case isText(t.Key()):
			if kv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(key)) != nil {
				p.unknownKey(kp, key, m[key], textChoices(t.Key()))
				continue
			}
		default:
			p.add(kp, "cannot be set from a document")
			continue
		}
		ev := reflect.New(t.Elem()).Elem()
		p.value(kp, m[key], ev)
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		v.SetMapIndex(kv, ev)
	}
}

// array decodes an array (or an array of tables) into the slice v.
func (p *parser) array(path string, raw any, v reflect.Value) {
	arr, ok := raw.([]any)
	if !ok {
		p.add(path, "must be "+want(path, v.Type())+", not "+tomlType(raw))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(arr), len(arr))
	for i, x := range arr {
		p.value(path+"["+strconv.Itoa(i)+"]", x, s.Index(i))
	}
	v.Set(s)
}

// expand expands ${VAR} references in a url or header value, recording
// every problem under path.
func (p *parser) expand(path, s string) (string, bool) {
	v, errs := expand(s, p.lookup)
	for _, e := range errs {
		p.add(path, e.message())
	}
	return v, len(errs) == 0
}

// want names what the document must hold where a value of type t is
// decoded, with its article: "a string", "an array of tables
// ([[endpoints]])".
func want(path string, t reflect.Type) string {
	n := noun(t)
	switch t.Kind() {
	case reflect.Slice:
		if isTable(t.Elem()) {
			return "an array of tables ([[" + stripIndexes(path) + "]])"
		}
		return "an array of " + n + "s"
	case reflect.Map:
		if isTable(t.Elem()) {
			return "a table"
		}
		return "a table of " + noun(t.Elem()) + "s"
	}
	if strings.IndexByte("aeiou", n[0]) >= 0 {
		return "an " + n
	}
	return "a " + n
}

// noun names the TOML type a value of Go type t is decoded from.
func noun(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[endpoint.Secret]() || isText(t):
		return "string"
	case t == reflect.TypeFor[time.Duration]():
		return `duration string such as "5s"`
	}
	switch t.Kind() {
	case reflect.Slice:
		return noun(t.Elem())
	case reflect.Struct, reflect.Map:
		return "table"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Pointer:
		return noun(t.Elem())
	}
	return "integer"
}

// tomlType names the TOML type of a decoded value, for messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}
