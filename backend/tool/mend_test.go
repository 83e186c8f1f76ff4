package tool

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ollama/ollama/api"
)

type mendIn struct {
	Path   string   `json:"path"`
	Offset int      `json:"offset,omitempty"`
	Ratio  float64  `json:"ratio,omitempty"`
	All    bool     `json:"all,omitempty"`
	Tags   []string `json:"tags,omitempty"`
	Opts   struct {
		Deep bool `json:"deep"`
	} `json:"opts,omitzero"`
}

func TestMend(t *testing.T) {
	reg, err := NewRegistry(Define("fs.read", "read", true, func(_ context.Context, in mendIn) (string, error) { return "", nil }))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args string
		want string // arguments after, compact JSON
		ok   bool   // Check passes after
	}{
		{"fs_read", `{"path":"a","offset":"-20","ratio":" 1.5 ","all":"True","tags":"[\"x\",\"y\"]","opts":"{\"deep\":true}"}`, `{"path":"a","offset":-20,"ratio":1.5,"all":true,"tags":["x","y"],"opts":{"deep":true}}`, true},
		{"fs.read", `{"path":12}`, `{"path":"12"}`, true},
		{"fs.read", `{"path":{"name":"x","tags":["<a>"]}}`, `{"path":"{\n  \"name\": \"x\",\n  \"tags\": [\n    \"\u003ca\u003e\"\n  ]\n}\n"}`, true}, // the value holds <a>; the arguments' JSON escapes it
		{"fs.read", `{"path":"a","offset":"twenty"}`, `{"path":"a","offset":"twenty"}`, false},
		{"fs.read", `{"path":"a","offset":"1.5"}`, `{"path":"a","offset":"1.5"}`, false},
		{"fs.read", `{"path":"a","ratio":"NaN"}`, `{"path":"a","ratio":"NaN"}`, false},
		{"fs.read", `{"path":"a","tags":"{\"x\":1}"}`, `{"path":"a","tags":"{\"x\":1}"}`, false},
		{"fs.read", `{"path":"a","extra":"5"}`, `{"path":"a","extra":"5"}`, false}, // unknown: left for Check
		{"nope", `{"path":1}`, `{"path":1}`, false},
	}
	for _, tt := range tests {
		call := api.ToolCall{Function: api.ToolCallFunction{Name: tt.name}}
		if err := json.Unmarshal([]byte(tt.args), &call.Function.Arguments); err != nil {
			t.Fatal(err)
		}
		reg.Mend(&call)
		if got := call.Function.Arguments.String(); got != tt.want {
			t.Errorf("%s %s: mended to %s, want %s", tt.name, tt.args, got, tt.want)
		}
		if err := reg.Check(call.Function.Name, json.RawMessage(call.Function.Arguments.String())); (err == nil) != tt.ok {
			t.Errorf("%s %s: check after mending: %v", tt.name, tt.args, err)
		}
	}
}
