package tool

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/jsonplain"
)

// Mend puts right what models commonly get slightly wrong in a call, so
// it runs instead of failing as malformed (three in a row stop a run):
//   - a tool name spelt as other harnesses spell theirs ([Registry.Resolve]);
//   - a top-level argument of the wrong JSON type whose text says what it
//     means: "20" for an integer or a number, "true" for a boolean, a
//     JSON list or object written as a string, a number, boolean, list or
//     object where a string is expected (a JSON file's content given as
//     the JSON itself, written out indented).
//
// Anything else is left for Check to report. Arguments whose type the
// schema does not name (or names as several) are left as they are.
func (r *Registry) Mend(call *api.ToolCall) {
	name, ok := r.Resolve(call.Function.Name)
	if !ok {
		return
	}
	call.Function.Name = name
	types := propertyTypes(r.byName[name].Parameters())
	fixed := map[string]any{}
	for k, v := range call.Function.Arguments.All() {
		if f, ok := coerce(v, types[k]); ok {
			fixed[k] = f
		}
	}
	for k, v := range fixed { // set after reading: the map keeps its order
		call.Function.Arguments.Set(k, v)
	}
}

// propertyTypes reads the single JSON type of each top-level property.
func propertyTypes(schema json.RawMessage) map[string]string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	out := make(map[string]string, len(s.Properties))
	for k, p := range s.Properties {
		if t, ok := p.Type.(string); ok {
			out[k] = t
		}
	}
	return out
}

// coerce returns v as a value of JSON type want when v is of another type
// whose text plainly means one; ok is false when v is left as it is.
func coerce(v any, want string) (any, bool) {
	switch s := v.(type) {
	case string:
		t := strings.TrimSpace(s)
		switch want {
		case "integer":
			if n, err := strconv.ParseInt(t, 10, 64); err == nil {
				return n, true
			}
		case "number":
			// Not hex floats, NaN or Inf, which ParseFloat reads and JSON
			// has no numbers for.
			if f, err := strconv.ParseFloat(t, 64); err == nil && !strings.ContainsAny(t, "xXnN") {
				return f, true
			}
		case "boolean":
			switch strings.ToLower(t) {
			case "true":
				return true, true
			case "false":
				return false, true
			}
		case "array", "object":
			var parsed any
			if json.Unmarshal([]byte(t), &parsed) == nil {
				if _, isList := parsed.([]any); isList == (want == "array") {
					if _, isObj := parsed.(map[string]any); isObj == (want == "object") {
						return parsed, true
					}
				}
			}
		}
	case float64, int, int64, json.Number, bool:
		if want == "string" {
			b, err := json.Marshal(s)
			if err == nil {
				return string(b), true
			}
		}
	case map[string]any, []any:
		// A JSON file's content given as the JSON itself.
		if want == "string" {
			if b, err := jsonplain.Marshal(s, "  "); err == nil {
				return string(b) + "\n", true
			}
		}
	}
	return v, false
}
