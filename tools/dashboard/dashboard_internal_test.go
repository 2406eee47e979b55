package dashboard

import (
	"encoding/json"
	"testing"
)

func TestParse(t *testing.T) {
	for _, bad := range []string{``, `{`, `[]`, `{"panels": 3}`, `{} {}`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q): nil error", bad)
		}
	}
	d, err := Parse([]byte(`{"title": "t", "panels": [
		{"id": 1, "type": "row", "collapsed": true, "panels": [{"id": 2, "type": "stat"}]},
		{"id": 3, "type": "timeseries", "unknownField": {"a": 1}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	for _, p := range d.AllPanels() {
		ids = append(ids, p.ID)
	}
	if len(ids) != 3 || ids[0] != 1 || ids[1] != 2 || ids[2] != 3 {
		t.Errorf("AllPanels ids %v, want [1 2 3]: a collapsed row's panels right after it", ids)
	}
}

func TestVariableQuery(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`"label_values(x, role)"`, "label_values(x, role)"},
		{`{"qryType": 1, "query": "label_values(y, e)", "refId": "A"}`, "label_values(y, e)"},
		{`"prometheus"`, "prometheus"},
		{`7`, ""},
	} {
		if got := (Variable{RawQuery: json.RawMessage(tc.raw)}).Query(); got != tc.want {
			t.Errorf("Query of %s = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func TestOverrideAndMapping(t *testing.T) {
	var fc FieldConfig
	if err := json.Unmarshal([]byte(`{
		"defaults": {"mappings": [{"type": "value", "options": {
			"0": {"text": "available", "color": "green"}, "2": {"text": "rate-limited", "color": "orange"}}}]},
		"overrides": [
			{"matcher": {"id": "byName", "options": "ok"},
			 "properties": [{"id": "color", "value": {"mode": "fixed", "fixedColor": "green"}}]},
			{"matcher": {"id": "byRegexp", "options": "x.*"},
			 "properties": [{"id": "color", "value": {"mode": "fixed", "fixedColor": "red"}}]},
			{"matcher": {"id": "byName", "options": "y"}, "properties": [{"id": "unit", "value": "s"}]}]}`), &fc); err != nil {
		t.Fatal(err)
	}
	if name, c, ok := fc.Overrides[0].FixedColor(); !ok || name != "ok" || c != "green" {
		t.Errorf("FixedColor = %q, %q, %v", name, c, ok)
	}
	for _, o := range fc.Overrides[1:] {
		if _, _, ok := o.FixedColor(); ok {
			t.Errorf("FixedColor of %+v: ok", o)
		}
	}
	if text, c, ok := fc.Defaults.MappingText(2); !ok || text != "rate-limited" || c != "orange" {
		t.Errorf("MappingText(2) = %q, %q, %v", text, c, ok)
	}
	if _, _, ok := fc.Defaults.MappingText(1); ok {
		t.Error("MappingText(1): ok, want no mapping")
	}
}
