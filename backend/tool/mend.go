package tool

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/ollama/ollama/api"
	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/internal/jsonplain"
	"github.com/shrimp-harness/shrimp/internal/pyliteral"
	"github.com/shrimp-harness/shrimp/internal/toolname"
)

// Mend puts right what models commonly get slightly wrong in a call, so
// it runs instead of failing as malformed (three in a row stop a run):
//   - a tool name spelt as other harnesses spell theirs ([Registry.Resolve]);
//   - a top-level argument of the wrong JSON type whose text says what it
//     means: "20" for an integer or a number, "true" for a boolean, a
//     list or object written as a string (in JSON or as a Python
//     literal), a number, boolean, list or object where a string is
//     expected (a JSON file's content given as the JSON itself, written
//     out indented);
//   - a call made under another agent's name for the tool (Claude Code's
//     Bash, Edit) with that agent's names for its arguments (file_path,
//     old_string): renamed as [Alias] says, numbers made the tool's units
//     (Bash's timeout in milliseconds, Gemini CLI's lines counted from
//     0), and a command's description for that agent's user dropped;
//   - a required argument given under another harness's name for it: GLM
//     writes filePath, DeepSeek file_path, for a path (pi's aft #148,
//     Vibe-Trading #518), and small models loop on "missing path" (goose
//     #8361). An argument the schema does not have is renamed to a
//     required one the call lacks when the words of one name are all
//     words of the other (file_path, filePath, relative_path for path;
//     path for file_path), and no other argument or required name could
//     be meant.
//
// Anything else is left for Check to report. Arguments whose type the
// schema does not name (or names as several) are left as they are.
func (r *Registry) Mend(call *api.ToolCall) {
	name, ok := r.Resolve(call.Function.Name)
	if !ok {
		return
	}
	top, err := readTopLevel(r.byName[name].Parameters())
	if a, ok := r.others[toolname.Key(call.Function.Name)]; ok && a.Tool == name && name != call.Function.Name && err == nil {
		a.rename(call, top)
	}
	call.Function.Name = name
	if err == nil {
		renameAliases(call, top)
	}
	fixed := map[string]any{}
	for k, v := range call.Function.Arguments.All() {
		if f, ok := coerce(v, top.types[k]); ok {
			fixed[k] = f
		}
	}
	for k, v := range fixed { // set after reading: the map keeps its order
		call.Function.Arguments.Set(k, v)
	}
}

// topLevel is what Mend reads of a schema, once a call: each top-level
// property's single JSON type ("" when it names none, or several; null
// aside, so an optional list, ["array", "null"] or anyOf an array and
// null as MCP servers' schema generators write it, is an array), and
// the required ones.
type topLevel struct {
	types    map[string]string
	required []string
}

// readTopLevel reads a schema's top level; what it could read of a
// schema that is not valid JSON comes with the error.
func readTopLevel(schema json.RawMessage) (topLevel, error) {
	type typed struct {
		Type any `json:"type"`
	}
	var s struct {
		Properties map[string]struct {
			typed
			AnyOf []typed `json:"anyOf"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	err := json.Unmarshal(schema, &s)
	top := topLevel{types: make(map[string]string, len(s.Properties)), required: s.Required}
	for k, p := range s.Properties {
		var names []string
		for _, t := range append([]typed{p.typed}, p.AnyOf...) {
			switch t := t.Type.(type) {
			case string:
				names = append(names, t)
			case []any:
				for _, n := range t {
					if n, ok := n.(string); ok {
						names = append(names, n)
					}
				}
			}
		}
		names = lo.Uniq(lo.Without(names, "null"))
		if len(names) == 1 {
			top.types[k] = names[0]
		} else {
			top.types[k] = ""
		}
	}
	return top, err
}

// rename gives a call made under the alias's name the tool's names for
// its arguments, where the tool has no argument of the agent's name and
// the call does not give the tool's already, and their numbers in the
// tool's units; an argument that says why goes.
func (a Alias) rename(call *api.ToolCall, top topLevel) {
	args := &call.Function.Arguments
	out, changed := api.NewToolCallFunctionArguments(), false
	for k, v := range args.All() {
		if f, ok := a.Scale[k]; ok {
			if n, ok := number(v); ok && n > 0 && n*f < math.MaxInt32 { // else Check says what is wrong
				v, changed = max(1, int64(math.Ceil(n*f))), true
			}
		}
		if d, ok := a.Shift[k]; ok {
			if n, ok := number(v); ok && n >= 0 && n == math.Trunc(n) && n < math.MaxInt32 {
				v, changed = int64(n)+d, true
			}
		}
		own, known := a.Args[k]
		_, mine := top.types[k]
		_, given := args.Get(own)
		switch {
		case !known || mine || own == k:
			out.Set(k, v)
		case own == "":
			changed = true
		case given:
			out.Set(k, v) // both: Check says which is too many
		default:
			out.Set(own, v)
			changed = true
		}
	}
	if changed {
		*args = out
	}
}

// number reads a JSON number, or a string holding one ("5000").
func number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// renameAliases renames an argument the schema does not name to a
// required one the call lacks, when each has one such counterpart only
// and the words of one name (split at _ - . and lower-to-upper case) are
// all words of the other.
func renameAliases(call *api.ToolCall, top topLevel) {
	args := &call.Function.Arguments
	var unknown, missing []string
	for k := range args.All() {
		if _, ok := top.types[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	for _, k := range top.required {
		if _, ok := args.Get(k); !ok {
			missing = append(missing, k)
		}
	}
	alike := func(a, b string) bool {
		wa, wb := nameWords(a), nameWords(b)
		return len(wa) > 0 && len(wb) > 0 && (subset(wa, wb) || subset(wb, wa))
	}
	renames := map[string]string{}
	for _, m := range missing {
		from := lo.Filter(unknown, func(u string, _ int) bool { return alike(u, m) })
		if len(from) == 1 && lo.CountBy(missing, func(o string) bool { return alike(from[0], o) }) == 1 {
			renames[from[0]] = m
		}
	}
	if len(renames) == 0 {
		return
	}
	out := api.NewToolCallFunctionArguments() // in the model's order, renamed
	for k, v := range args.All() {
		out.Set(cmp.Or(renames[k], k), v)
	}
	*args = out
}

// nameWords splits an argument name into its lower-case words: at _ - .
// and where a lower-case letter or digit meets an upper-case one.
func nameWords(name string) []string {
	var words []string
	var w []rune
	prev := rune(0)
	flush := func() {
		if len(w) > 0 {
			words = append(words, strings.ToLower(string(w)))
			w = w[:0]
		}
	}
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			w = append(w, r)
		default:
			w = append(w, r)
		}
		prev = r
	}
	flush()
	return words
}

// subset reports whether every word of a is a word of b.
func subset(a, b []string) bool {
	return lo.EveryBy(a, func(w string) bool { return slices.Contains(b, w) })
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
			// JSON, or a Python literal (['a', 'b']: Qwen3-Coder's
			// parameters, vllm-mlx #63, mlx-lm #912).
			var parsed any
			ok := json.Unmarshal([]byte(t), &parsed) == nil
			if !ok {
				parsed, ok = pyliteral.Parse(t)
			}
			if ok {
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
