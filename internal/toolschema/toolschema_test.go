package toolschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// asServerReadsIt is what the Ollama server holds of a tool with these
// parameters: the request marshalled as a client sends it and read into
// api.Tool, as the server reads it; as generic JSON, to look into.
func asServerReadsIt(t *testing.T, params api.ToolFunctionParameters) map[string]any {
	t.Helper()
	sent, err := json.Marshal(api.Tool{Type: "function", Function: api.ToolFunction{Name: "x", Parameters: params}})
	if err != nil {
		t.Fatal(err)
	}
	var read api.Tool
	if err := json.Unmarshal(sent, &read); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(read.Function.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(again, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// at is the value at a path of keys (and list indexes as "0", "1").
func at(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i := int(k[0] - '0')
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func load(t *testing.T, name string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWhatTheModelSees: schemas as MCP servers write them (FastMCP's
// Pydantic models behind $ref, zod's pointers and consts, recursive
// models, oneOf and allOf unions): after ForModel, what the Ollama server
// keeps of them still has each parameter's type, fields and limits.
// Without ForModel, as the test's second half checks, the server kept a
// FastMCP model parameter with no type and no fields.
func TestWhatTheModelSees(t *testing.T) {
	for _, c := range []struct {
		file string
		want map[string]any // path → value, or for a string: a part of it ("~text")
	}{
		{"fastmcp.json", map[string]any{
			"properties.order.type":                                                   "object",
			"properties.order.description":                                            "An order to place.",
			"properties.order.required":                                               []any{"sku", "qty"},
			"properties.order.properties.sku.description":                             "~the product code (matching ^[A-Z]{3}-\\d+$)",
			"properties.order.properties.qty.description":                             "(more than 0)",
			"properties.order.properties.ship_to.anyOf.0.properties.city.description": "city name",
			"properties.order.properties.ship_to.anyOf.1.type":                        "null",
			"properties.note.anyOf.0.type":                                            "string",
			"properties.limit.description":                                            "(default 10; at least 1; at most 100)",
			"properties.mode.enum":                                                    []any{"fast", "cheap"},
			"properties.mode.description":                                             "(default \"fast\")",
			"properties.when.anyOf.0.description":                                     "(format date-time)",
			"required":                                                                []any{"order"},
		}},
		{"zod.json", map[string]any{
			"properties.edits.items.properties.oldText.description": "Text to search for - must match exactly",
			"properties.undo.type":                    "object",
			"properties.undo.properties.newText.type": "string",
			"properties.dryRun.description":           "Preview changes using git-style diff format (default false)",
			"properties.kind.enum":                    []any{"text"},
		}},
		{"recursive.json", map[string]any{
			"properties.issue.description":                               "the issue to file",
			"properties.issue.properties.id.type":                        "string",
			"properties.issue.properties.dependencies.items.type":        "object",
			"properties.issue.properties.dependencies.items.description": "(Issue, as above)",
		}},
		{"toplevel.json", map[string]any{
			"properties.path.description": "file to open",
			"properties.id.type":          "integer",
			"properties.mode.enum":        []any{"r", "w"},
			"required":                    []any{"mode"},
		}},
		{"unions.json", map[string]any{
			"properties.target.anyOf.0.description":               "By path",
			"properties.target.anyOf.1.properties.id.description": "(at least 1)",
			"properties.filter.description":                       "a date range",
			"properties.filter.type":                              "object",
			"properties.filter.properties.from.description":       "(format date)",
			"properties.filter.required":                          []any{"to"},
			"properties.remote.description":                       "kept as written",
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			got := asServerReadsIt(t, ForModel(load(t, c.file)))
			for path, want := range c.want {
				v := at(got, path)
				if s, ok := want.(string); ok && strings.HasPrefix(s, "~") {
					if str, _ := v.(string); !strings.Contains(str, s[1:]) {
						t.Errorf("%s = %#v, want it to hold %q", path, v, s[1:])
					}
					continue
				}
				if !reflect.DeepEqual(v, want) {
					t.Errorf("%s = %#v, want %#v", path, v, want)
				}
			}
			if b, _ := json.Marshal(got); strings.Contains(string(b), "$ref\":\"#") || strings.Contains(string(b), "$defs") {
				t.Errorf("a local reference is left: %s", b)
			}
		})
	}
	// What the server kept of FastMCP's schema as it was sent before.
	var raw api.ToolFunctionParameters
	if err := json.Unmarshal(load(t, "fastmcp.json"), &raw); err != nil {
		t.Fatal(err)
	}
	if before := asServerReadsIt(t, raw); at(before, "properties.order.type") != nil || at(before, "properties.order.properties") != nil {
		t.Errorf("the server kept a $ref parameter's type after all: %v (the test's premise is wrong)", at(before, "properties.order"))
	}
}

// TestPlainSchemasUnchanged: a schema with nothing Ollama drops (a
// built-in tool's) reaches the server as it was.
func TestPlainSchemasUnchanged(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file to read, relative to the workspace"},"all":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}}},"required":["path"]}`)
	var direct api.ToolFunctionParameters
	if err := json.Unmarshal(schema, &direct); err != nil {
		t.Fatal(err)
	}
	if got, want := asServerReadsIt(t, ForModel(schema)), asServerReadsIt(t, direct); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestBadSchemas: what is not a schema is a tool of no parameters, and
// references that lead nowhere or in circles end.
func TestBadSchemas(t *testing.T) {
	for _, s := range []string{``, `null`, `[]`, `"x"`, `{}`, `{"type":"object","properties":{"a":{"$ref":"#/nowhere"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`, `{"type":"object","properties":{"a":{"$ref":"#"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"$ref":"#/properties/a"}}}`,
		`{"type":"object","properties":{"a":{"items":[{"$ref":"#/properties/a/items/0"}]}}}`, `{"type":"object","properties":{"a":{"$ref":"#/properties/x~1y/9"}}}`} {
		p := ForModel(json.RawMessage(s))
		if p.Type != "object" || p.Properties == nil {
			t.Errorf("%s: %+v", s, p)
		}
	}
}

// TestManyReferences: models that each refer to the next ten times
// would copy 10^6 schemas; resolving stops at maxResolved.
func TestManyReferences(t *testing.T) {
	defs := map[string]any{}
	for d := range 7 {
		props := map[string]any{}
		for i := range 10 {
			props[string(rune('a'+i))] = map[string]any{"$ref": "#/$defs/M" + string(rune('0'+d+1))}
		}
		defs["M"+string(rune('0'+d))] = map[string]any{"type": "object", "properties": props}
	}
	defs["M7"] = map[string]any{"type": "string"}
	b, _ := json.Marshal(map[string]any{"type": "object", "$defs": defs, "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/M0"}}})
	out, err := json.Marshal(ForModel(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 200_000 {
		t.Errorf("%d bytes for the model", len(out))
	}
	if !strings.Contains(string(out), `"properties":{"a":{"type":"object"`) {
		t.Errorf("nothing resolved: %.300s", out)
	}
}

// FuzzForModel: any input gives parameters of type object, without a
// panic, in bounded time (references are followed to maxDepth).
func FuzzForModel(f *testing.F) {
	for _, name := range []string{"fastmcp.json", "zod.json", "recursive.json", "unions.json", "toplevel.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"properties":{"a":{"$ref":"#"},"b":{"allOf":[{"$ref":"#/properties/a"}]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if p := ForModel(b); p.Type == "" || p.Properties == nil {
			t.Fatalf("%+v", p)
		}
	})
}

// BenchmarkForModel: a FastMCP schema with two models behind $ref, as
// each model call's tool list reads it (docs/BENCHMARKS.md).
func BenchmarkForModel(b *testing.B) {
	schema, err := os.ReadFile(filepath.Join("testdata", "fastmcp.json"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ForModel(schema)
	}
}

// BenchmarkDirect is what the tool list did before: the schema read
// into api.ToolFunctionParameters as it is.
func BenchmarkDirect(b *testing.B) {
	schema, err := os.ReadFile(filepath.Join("testdata", "fastmcp.json"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var p api.ToolFunctionParameters
		_ = json.Unmarshal(schema, &p)
	}
}
