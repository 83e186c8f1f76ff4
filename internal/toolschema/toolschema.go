// Package toolschema turns a tool's JSON Schema (a built-in tool's, an
// MCP server's inputSchema) into what reaches a model through Ollama.
//
// Ollama reads a request's tools into api.Tool, whose properties keep
// only type, description, enum, items, properties, required and anyOf;
// the server reads them so too, whatever a client sends. Everything else
// is dropped on the way, and other people's servers use it: Python's
// FastMCP (Pydantic) puts each model parameter behind a "$ref" into
// "$defs", so the model saw a parameter with no type and no fields;
// "oneOf" and "allOf" unions vanished; a default, a format, bounds and a
// pattern were never seen. [ForModel] therefore:
//
//   - resolves local references (#/$defs/X, #/definitions/X, and zod's
//     pointers such as #/properties/a) in place, a reference within
//     itself (a recursive model) past the first level left as an object
//     that says so;
//   - reads oneOf as anyOf, and merges the parts of allOf; alternatives
//     at the top (Ollama's parameters have none) become one object of
//     their parameters, required where every alternative requires them;
//   - reads const as an enum of one;
//   - says in the description what Ollama would drop: the default, the
//     format, the bounds of numbers, lengths and lists, the pattern, an
//     example; and uses a title as the description where there is none
//     and the title says more than the name.
//
// A tool's calls are still checked against its own schema; only what
// the model is shown changes.
package toolschema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
)

// maxDepth is how deep references are resolved: a chain of models deeper
// than this (or one that refers to itself) is left as an object.
const maxDepth = 6

// maxResolved is how many references one schema's are resolved: each
// copies what it points at, so a schema whose models each refer to the
// next several times would grow as the power of its depth.
const maxResolved = 200

// ForModel returns schema as the parameters of an api.Tool, with what
// Ollama would drop resolved or said in descriptions. A schema that is
// not a JSON object, or has no type, is an object of no parameters.
func ForModel(schema json.RawMessage) api.ToolFunctionParameters {
	empty := api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil || root == nil {
		return empty
	}
	n := normalizer{root: root, resolved: new(int)}
	out, _ := n.node(root, "", 0, nil).(map[string]any)
	flattenAlternatives(out)
	delete(out, "$defs")
	delete(out, "definitions")
	delete(out, "$schema")
	if _, ok := out["type"]; !ok && out["properties"] != nil {
		out["type"] = "object"
	}
	b, err := json.Marshal(out)
	if err != nil {
		return empty
	}
	var params api.ToolFunctionParameters
	if err := json.Unmarshal(b, &params); err != nil || params.Type == "" {
		return empty
	}
	if params.Properties == nil {
		params.Properties = api.NewToolPropertiesMap()
	}
	return params
}

// flattenAlternatives gives a schema whose parameters come in
// alternatives at its top (anyOf or oneOf of objects: "give a path or an
// id") the parameters of them all, required only where every alternative
// requires them: Ollama's parameters have no alternatives, so the model
// saw none of them.
func flattenAlternatives(out map[string]any) {
	alts, ok := out["anyOf"].([]any)
	if !ok || len(alts) == 0 {
		return
	}
	props, _ := out["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	var common map[any]int // required name → alternatives requiring it
	for _, a := range alts {
		am, ok := a.(map[string]any)
		if !ok {
			return // not objects: left as they are
		}
		if ap, ok := am["properties"].(map[string]any); ok {
			for k, v := range ap {
				if _, ok := props[k]; !ok {
					props[k] = v
				}
			}
		}
		if common == nil {
			common = map[any]int{}
		}
		if req, ok := am["required"].([]any); ok {
			for _, r := range req {
				common[r]++
			}
		}
	}
	required, _ := out["required"].([]any)
	for r, n := range common {
		if n == len(alts) && !slices.Contains(required, r) {
			required = append(required, r)
		}
	}
	out["properties"] = props
	if len(required) > 0 {
		out["required"] = required
	}
	delete(out, "anyOf")
}

// normalizer rewrites one schema.
type normalizer struct {
	root     map[string]any
	resolved *int // references resolved so far
}

// resolve finds what a local reference ("#/$defs/X", "#/definitions/X",
// or a pointer into the schema such as zod's "#/properties/a/items")
// points at.
func (n normalizer) resolve(ref string) (any, bool) {
	path, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false // another document's: nothing to read it from
	}
	var at any = n.root
	for _, part := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if part == "" {
			continue
		}
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		switch v := at.(type) {
		case map[string]any:
			if at, ok = v[part]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			at = v[i]
		default:
			return nil, false
		}
	}
	return at, true
}

// node returns the schema v (of the property name, "" for others) with
// references resolved at depth; seen are the references being resolved
// above it.
func (n normalizer) node(v any, name string, depth int, seen []string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, val := range m {
		out[k] = val
	}
	if ref, ok := out["$ref"].(string); ok {
		delete(out, "$ref")
		target, found := n.resolve(ref)
		switch {
		case !found:
			// A remote or broken reference: nothing to read it from.
		case slices.Contains(seen, ref):
			merge(out, map[string]any{"type": "object", "description": "(" + refName(ref) + ", as above)"})
		case depth >= maxDepth || *n.resolved >= maxResolved:
			merge(out, map[string]any{"type": "object", "description": "(" + refName(ref) + ": its fields are not shown)"})
		default:
			*n.resolved++
			resolved, _ := n.node(target, name, depth+1, append(seen, ref)).(map[string]any)
			// What the property says of itself wins over its type's.
			for k, val := range resolved {
				if _, ok := out[k]; !ok {
					out[k] = val
				}
			}
		}
	}
	if parts, ok := out["allOf"].([]any); ok {
		delete(out, "allOf")
		for _, p := range parts {
			if pm, ok := n.node(p, name, depth, seen).(map[string]any); ok {
				merge(out, pm)
			}
		}
	}
	if parts, ok := out["oneOf"].([]any); ok {
		delete(out, "oneOf")
		if _, ok := out["anyOf"]; !ok {
			out["anyOf"] = parts
		}
	}
	if parts, ok := out["anyOf"].([]any); ok {
		norm := make([]any, len(parts))
		for i, p := range parts {
			norm[i] = n.node(p, "", depth, seen)
		}
		out["anyOf"] = norm
	}
	if props, ok := out["properties"].(map[string]any); ok {
		norm := make(map[string]any, len(props))
		for k, p := range props {
			norm[k] = n.node(p, k, depth, seen)
		}
		out["properties"] = norm
	}
	switch items := out["items"].(type) {
	case map[string]any:
		out["items"] = n.node(items, "", depth, seen)
	case []any:
		norm := make([]any, len(items))
		for i, p := range items {
			norm[i] = n.node(p, "", depth, seen)
		}
		out["items"] = norm
	}
	if c, ok := out["const"]; ok {
		if _, ok := out["enum"]; !ok {
			out["enum"] = []any{c}
		}
		delete(out, "const")
	}
	describe(out, name)
	return out
}

// describe puts into out's description what Ollama would drop, and a
// title where there is no description, and takes those keywords out.
func describe(out map[string]any, name string) {
	desc, _ := out["description"].(string)
	if title, ok := out["title"].(string); ok && desc == "" && !sameName(title, name) {
		desc = title
	}
	var notes []string
	if d, ok := out["default"]; ok && d != nil {
		notes = append(notes, "default "+literal(d))
	}
	if f, ok := out["format"].(string); ok && f != "" {
		notes = append(notes, "format "+f)
	}
	notes = append(notes, bounds(out, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "")...)
	notes = append(notes, bounds(out, "minLength", "maxLength", "", "", " characters")...)
	notes = append(notes, bounds(out, "minItems", "maxItems", "", "", " items")...)
	if p, ok := out["pattern"].(string); ok && p != "" {
		notes = append(notes, "matching "+p)
	}
	if ex, ok := out["examples"].([]any); ok && len(ex) > 0 {
		notes = append(notes, "e.g. "+literal(ex[0]))
	} else if ex, ok := out["example"]; ok {
		notes = append(notes, "e.g. "+literal(ex))
	}
	if len(notes) > 0 {
		note := "(" + strings.Join(notes, "; ") + ")"
		if desc == "" {
			desc = note
		} else {
			desc += " " + note
		}
	}
	if desc != "" {
		out["description"] = desc
	}
	// Said now (and dropped by Ollama anyway): a schema normalised again,
	// as a resolved reference's properties are, does not say it twice.
	for _, k := range []string{"title", "default", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "pattern", "examples", "example"} {
		delete(out, k)
	}
}

// bounds says a pair of bounds ("at least 1", "at most 100", "more than
// 0"); unit follows each number.
func bounds(m map[string]any, lo, hi, loExcl, hiExcl, unit string) []string {
	var out []string
	if v, ok := m[lo]; ok {
		out = append(out, "at least "+literal(v)+unit)
	}
	if v, ok := m[loExcl]; ok && loExcl != "" {
		if _, isBool := v.(bool); !isBool { // draft 4's boolean form says nothing alone
			out = append(out, "more than "+literal(v)+unit)
		}
	}
	if v, ok := m[hi]; ok {
		out = append(out, "at most "+literal(v)+unit)
	}
	if v, ok := m[hiExcl]; ok && hiExcl != "" {
		if _, isBool := v.(bool); !isBool {
			out = append(out, "less than "+literal(v)+unit)
		}
	}
	return out
}

// literal writes a JSON value as the model would write it.
func literal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if s := string(b); len(s) <= 80 {
		return s
	}
	return string(b[:77]) + "…"
}

// merge adds from's keys to into: properties and required are joined,
// a description kept when into has one, others set where into has none.
func merge(into, from map[string]any) {
	for k, v := range from {
		switch k {
		case "properties":
			props, _ := into[k].(map[string]any)
			if props == nil {
				props = map[string]any{}
			}
			if fp, ok := v.(map[string]any); ok {
				for pk, pv := range fp {
					if _, ok := props[pk]; !ok {
						props[pk] = pv
					}
				}
			}
			into[k] = props
		case "required":
			have, _ := into[k].([]any)
			if fr, ok := v.([]any); ok {
				for _, r := range fr {
					if !slices.Contains(have, r) {
						have = append(have, r)
					}
				}
			}
			into[k] = have
		default:
			if _, ok := into[k]; !ok {
				into[k] = v
			}
		}
	}
}

// sameName reports whether a title only repeats the property's name
// (Pydantic titles every field so: "max_results" → "Max Results"), or,
// for a schema that is no property's (a union's part, a list's items),
// is one word: a class's name ("Order"), which says nothing a model
// needs.
func sameName(title, name string) bool {
	plain := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
	}
	return name != "" && plain(title) == plain(name) || name == "" && !strings.Contains(title, " ")
}

// refName is the name a reference points at ("#/$defs/Issue" → "Issue").
func refName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }
