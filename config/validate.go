package config

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/solroute/solroute/endpoint"
	"github.com/solroute/solroute/pool"
	"github.com/solroute/solroute/retrypolicy"
	"github.com/solroute/solroute/transport"
)

// The settings check their own ranges: transport.Settings.Validate (with
// the retry settings), pool.Settings.Validate (with the ejection),
// Limits.Validate and endpoint.Validate. Their problems (each an *endpoint.Problem) name
// fields by TOML key within their table; here each becomes a Problem at its document path and line.

// checkSettings maps every problem the settings' Validate methods find.
// A problem related to one already reported — at the same path, under it,
// or under a table reported — is not repeated: it is about a value the
// decoder refused and left at its default or zero.
func (p *parser) checkSettings(d *Document) {
	p.before = len(p.list)
	retry := pathOf(reflect.TypeFor[retrypolicy.Settings]())
	tr := pathOf(reflect.TypeFor[transport.Settings]())
	for _, err := range leaves(d.Transport.Validate()) {
		var ep *endpoint.Problem
		switch {
		case errors.As(err, &ep) && strings.HasPrefix(ep.Path, "retry."):
			// transport.Settings.Retry is the document's [retry] table.
			p.settingProblem(join(retry, strings.TrimPrefix(ep.Path, "retry.")), ep.Message)
		case errors.As(err, &ep) && strings.HasSuffix(ep.Path, "]"):
			p.settingProblem(tr+"."+ep.Path, ep.Message) // an entry of a list: "coalesce[2]"
		case errors.As(err, &ep):
			p.settingProblem(join(tr, ep.Path), ep.Message)
		default:
			p.settingProblem(tr, err.Error())
		}
	}
	pl := pathOf(reflect.TypeFor[pool.Settings]())
	for _, err := range leaves(d.Pool.Validate()) {
		var ep *endpoint.Problem
		if errors.As(err, &ep) {
			// Its path is bare keys joined with dots ("ejection.base_time").
			p.settingProblem(pl+"."+ep.Path, ep.Message)
		} else {
			p.settingProblem(pl, err.Error())
		}
	}
	lim := pathOf(reflect.TypeFor[Limits]())
	for _, err := range leaves(d.Limits.Validate()) {
		var ep *endpoint.Problem
		switch {
		case errors.As(err, &ep) && ep.Path == fieldKeyOf[Limits]("URL") && p.hasAtOrBelow(join(lim, fieldKeyOf[Limits]("Backend"))):
			// Whether a url belongs depends on the backend refused.
		case errors.As(err, &ep):
			p.settingProblem(lim+"."+ep.Path, ep.Message)
		default:
			p.settingProblem(lim, err.Error())
		}
	}
	for _, err := range leaves(endpoint.Validate(d.Endpoints)) {
		// Its paths are the document's ("endpoints[2].roles.send.burst_capacity").
		if ep := (*endpoint.Problem)(nil); errors.As(err, &ep) {
			p.settingProblem(ep.Path, ep.Message)
		}
	}
}

// leaves flattens errors joined with errors.Join, at any depth.
func leaves(err error) []error {
	if err == nil {
		return nil
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, leaves(e)...)
	}
	return out
}

// settingProblem records a problem a settings type found at path, unless
// one related to it was recorded before checkSettings, with notes on the
// defaults it involves (see notes).
func (p *parser) settingProblem(path, message string) {
	if p.related(path, p.before) {
		return
	}
	p.add(path, message+p.notes(path, message))
}

// notes says which defaults a problem at path involves, for the keys the
// document left out: the key itself, and every other key of its table the
// message names. Only a default is quoted, never a value of the document.
// It is "" for keys without a default (those of endpoints and methods).
func (p *parser) notes(path, message string) string {
	var b strings.Builder
	if !p.present[path] {
		if def, ok := p.defaultAt(path); ok {
			b.WriteString(" (not in the document: its default is " + def + ")")
		}
	}
	table := parent(path)
	t, ok := p.fieldAt(table)
	if !ok || t.Kind() != reflect.Struct {
		return b.String()
	}
	for _, f := range reflect.VisibleFields(t.Type()) {
		key, ok := fieldKey(f)
		kp := join(table, key)
		if !ok || kp == path || p.present[kp] || !namesKey(message, key) {
			continue
		}
		if def, ok := p.defaultAt(kp); ok {
			b.WriteString(" (" + key + " is not in the document: its default is " + def + ")")
		}
	}
	return b.String()
}

// namesKey reports whether message holds key as a whole word.
func namesKey(message, key string) bool {
	word := func(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
	for i := 0; ; {
		j := strings.Index(message[i:], key)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(key)
		if (start == 0 || !word(message[start-1])) && (end == len(message) || !word(message[end])) {
			return true
		}
		i = start + 1
	}
}

// fieldAt returns the value of the Document at a path of settings keys
// (no arrays, no maps), or false.
func (p *parser) fieldAt(path string) (reflect.Value, bool) {
	v := p.root
	if path == "" {
		return v, true
	}
	for _, key := range pathKeys(path) {
		for v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		i, ok := tableFields(v.Type())[key]
		if !ok {
			return reflect.Value{}, false
		}
		v = v.Field(i)
	}
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	return v, true
}

// defaultAt formats the value at path of a key the document left out: the
// default it took.
func (p *parser) defaultAt(path string) (string, bool) {
	v, ok := p.fieldAt(path)
	if !ok {
		return "", false
	}
	switch {
	case v.Type() == reflect.TypeFor[time.Duration]():
		return shortDuration(time.Duration(v.Int())), true
	case v.CanInt():
		return strconv.FormatInt(v.Int(), 10), true
	case v.CanFloat():
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), true
	}
	return "", false
}
