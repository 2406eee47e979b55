package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// File is the dashboard's path from the repository's root (the tools
// module is its tools/ folder).
const File = "docs/grafana/solroute-dashboard.json"

// Dashboard is the part of a Grafana dashboard's JSON model that the
// tooling reads. Fields it does not know are ignored.
type Dashboard struct {
	// Title is the dashboard's title.
	Title string `json:"title"`
	// UID is the dashboard's stable identifier.
	UID string `json:"uid"`
	// SchemaVersion is the version of Grafana's dashboard schema.
	SchemaVersion int `json:"schemaVersion"`
	// Inputs are what Grafana asks for on import (the "Export for
	// sharing externally" format): a data source picked by the user.
	Inputs []Input `json:"__inputs"`
	// Templating holds the template variables.
	Templating struct {
		// List holds the variables in the order they are evaluated.
		List []Variable `json:"list"`
	} `json:"templating"`
	// Panels are the rows and panels in the order the JSON lists them.
	Panels []Panel `json:"panels"`
}

// Input is one of Dashboard.Inputs.
type Input struct {
	// Name is what "${NAME}" in the JSON is replaced with on import.
	Name string `json:"name"`
	// Type is "datasource" for a data source the user picks.
	Type string `json:"type"`
	// PluginID is the data source's plugin ("prometheus").
	PluginID string `json:"pluginId"`
}

// Variable is a template variable.
type Variable struct {
	// Name is what "$name" in a query is replaced with.
	Name string `json:"name"`
	// Label is what the variable bar shows; "" shows Name.
	Label string `json:"label"`
	// Type is "datasource", "query", "custom", ...
	Type string `json:"type"`
	// Definition is a query variable's query as the editor shows it.
	Definition string `json:"definition"`
	// RawQuery is the variable's query: a string, or (Grafana 10's
	// Prometheus editor) an object whose "query" field holds it.
	RawQuery json.RawMessage `json:"query"`
	// IncludeAll offers an "All" value, which AllValue stands for.
	IncludeAll bool `json:"includeAll"`
	// AllValue is what "All" expands to ("" lets Grafana list every value).
	AllValue string `json:"allValue"`
	// Datasource is the data source a query variable asks.
	Datasource *Datasource `json:"datasource"`
}

// Query returns the variable's query: the string form of RawQuery, or the
// "query" field of its object form; "" when it has none.
func (v Variable) Query() string {
	var s string
	if json.Unmarshal(v.RawQuery, &s) == nil {
		return s
	}
	var o struct {
		Query string `json:"query"`
	}
	if json.Unmarshal(v.RawQuery, &o) == nil {
		return o.Query
	}
	return ""
}

// Datasource names a data source: a plugin type and a uid, which may be a
// variable ("${datasource}").
type Datasource struct {
	// Type is the plugin ("prometheus").
	Type string `json:"type"`
	// UID is the data source's uid or a variable standing for it.
	UID string `json:"uid"`
}

// Panel is a panel or a row.
type Panel struct {
	// ID is unique within the dashboard.
	ID int `json:"id"`
	// Type is "row", "timeseries", "stat", "state-timeline", ...
	Type string `json:"type"`
	// Title is shown at the top of the panel.
	Title string `json:"title"`
	// Description is shown as the panel's tooltip.
	Description string `json:"description"`
	// GridPos places the panel on the dashboard's grid.
	GridPos GridPos `json:"gridPos"`
	// Datasource is the panel's data source.
	Datasource *Datasource `json:"datasource"`
	// FieldConfig holds the unit, bounds, thresholds, value mappings and
	// overrides of the panel's fields.
	FieldConfig FieldConfig `json:"fieldConfig"`
	// Targets are the panel's queries.
	Targets []Target `json:"targets"`
	// Collapsed is true for a row whose panels are folded into it.
	Collapsed bool `json:"collapsed"`
	// Panels are a collapsed row's panels.
	Panels []Panel `json:"panels"`
}

// IsRow reports whether p is a row (a header, not a panel).
func (p Panel) IsRow() bool { return p.Type == "row" }

// GridPos is a panel's place on Grafana's grid: 24 columns across, each
// height unit 30 pixels.
type GridPos struct {
	// X and Y are the top-left cell, in columns and height units.
	X, Y int
	// W and H are the size, in columns and height units.
	W, H int
}

// GridColumns is the width of Grafana's grid, in columns.
const GridColumns = 24

// FieldConfig is a panel's field configuration.
type FieldConfig struct {
	// Defaults apply to every field.
	Defaults FieldDefaults `json:"defaults"`
	// Overrides change properties of the fields a matcher selects.
	Overrides []Override `json:"overrides"`
}

// FieldDefaults are the default field properties a panel's fields use.
type FieldDefaults struct {
	// Unit is Grafana's unit id ("s", "reqps", "percentunit", "short",
	// "none").
	Unit string `json:"unit"`
	// Min and Max bound the value axis; nil lets the data decide.
	Min *float64 `json:"min"`
	Max *float64 `json:"max"`
	// Decimals fixes the decimals shown; nil lets the unit decide.
	Decimals *int `json:"decimals"`
	// Mappings turn values into text and colours (state timelines).
	Mappings []Mapping `json:"mappings"`
	// Thresholds colour values by steps.
	Thresholds Thresholds `json:"thresholds"`
	// Custom holds the panel type's own options.
	Custom Custom `json:"custom"`
}

// Thresholds are coloured steps: each applies from its Value up; the
// first has no Value (it starts at minus infinity).
type Thresholds struct {
	// Mode is "absolute" or "percentage".
	Mode string `json:"mode"`
	// Steps are in increasing order of Value.
	Steps []Step `json:"steps"`
}

// Step is one of Thresholds.Steps.
type Step struct {
	// Color is a Grafana colour name or a CSS colour.
	Color string `json:"color"`
	// Value is where the step starts; nil for the base step.
	Value *float64 `json:"value"`
}

// Custom holds the time series options the tooling reads.
type Custom struct {
	// ThresholdsStyle says how thresholds are drawn: "off", "line", ...
	ThresholdsStyle struct {
		// Mode is "off", "line", "area", "line+area", "dashed".
		Mode string `json:"mode"`
	} `json:"thresholdsStyle"`
	// Stacking says whether series are stacked.
	Stacking struct {
		// Mode is "none", "normal" or "percent".
		Mode string `json:"mode"`
	} `json:"stacking"`
	// FillOpacity is the opacity of the area under a line, 0 to 100.
	FillOpacity float64 `json:"fillOpacity"`
}

// Mapping maps values to text and colours.
type Mapping struct {
	// Type is "value" (exact values), "range", "regex" or "special".
	Type string `json:"type"`
	// Options maps a value, as a string, to its result (for "value").
	Options map[string]MappingResult `json:"options"`
}

// MappingResult is what a mapped value shows.
type MappingResult struct {
	// Text replaces the value.
	Text string `json:"text"`
	// Color colours it.
	Color string `json:"color"`
	// Index orders the results.
	Index int `json:"index"`
}

// Override changes field properties for the fields a matcher selects.
type Override struct {
	// Matcher selects fields: ID "byName" and Options a series' name.
	Matcher struct {
		// ID is the matcher's kind ("byName", "byRegexp", ...).
		ID string `json:"id"`
		// Options is the matcher's argument.
		Options string `json:"options"`
	} `json:"matcher"`
	// Properties are the properties set.
	Properties []Property `json:"properties"`
}

// Property is one property an Override sets.
type Property struct {
	// ID is the property's name ("color", "unit", ...).
	ID string `json:"id"`
	// Value is the property's value, as JSON.
	Value json.RawMessage `json:"value"`
}

// FixedColor returns the fixed colour the override gives the series it
// matches by name, if it does.
func (o Override) FixedColor() (name, color string, ok bool) {
	if o.Matcher.ID != "byName" {
		return "", "", false
	}
	for _, p := range o.Properties {
		if p.ID != "color" {
			continue
		}
		var v struct {
			Mode       string `json:"mode"`
			FixedColor string `json:"fixedColor"`
		}
		if json.Unmarshal(p.Value, &v) == nil && v.Mode == "fixed" && v.FixedColor != "" {
			return o.Matcher.Options, v.FixedColor, true
		}
	}
	return "", "", false
}

// Target is one query of a panel.
type Target struct {
	// RefID names the query within its panel ("A").
	RefID string `json:"refId"`
	// Expr is the PromQL expression, with template variables.
	Expr string `json:"expr"`
	// LegendFormat names each series: "{{label}}" is replaced by the
	// series' label value; "" names it by its labels.
	LegendFormat string `json:"legendFormat"`
	// Datasource is the query's data source.
	Datasource *Datasource `json:"datasource"`
}

// Parse reads a dashboard's JSON model. It fails on JSON that is not
// valid, or that is not an object, but not on fields it does not know.
func Parse(b []byte) (*Dashboard, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var d Dashboard
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("dashboard: more than one JSON value")
	}
	return &d, nil
}

// AllPanels returns every row and panel in the order of the JSON, a
// collapsed row's panels right after it.
func (d *Dashboard) AllPanels() []Panel {
	var out []Panel
	for _, p := range d.Panels {
		out = append(out, p)
		out = append(out, p.Panels...)
	}
	return out
}

// Variable returns the template variable named name.
func (d *Dashboard) Variable(name string) (Variable, bool) {
	for _, v := range d.Templating.List {
		if v.Name == name {
			return v, true
		}
	}
	return Variable{}, false
}

// MappingText returns the text and colour a value mapping gives v, if one
// does (exact "value" mappings only).
func (f FieldDefaults) MappingText(v float64) (text, color string, ok bool) {
	key := strconv.FormatFloat(v, 'f', -1, 64)
	for _, m := range f.Mappings {
		if m.Type != "value" {
			continue
		}
		if r, found := m.Options[key]; found {
			return r.Text, r.Color, true
		}
	}
	return "", "", false
}
