package tool

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

type echoArgs struct {
	Text  string `json:"text" jsonschema:"description=what to echo"`
	Times int    `json:"times,omitempty"`
}

func registry(t testing.TB) *Registry {
	t.Helper()
	r, err := NewRegistry(
		Define("z.last", "sorted last", true, func(context.Context, echoArgs) (string, error) { return "", nil }),
		Define("echo", "echo text", true, func(_ context.Context, in echoArgs) (string, error) {
			return strings.Repeat(in.Text, max(in.Times, 1)), nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRegistry(t *testing.T) {
	r := registry(t)
	if got := strings.Join(r.Names(), ","); got != "echo,z.last" {
		t.Fatalf("names %s", got)
	}
	specs := r.Specs()
	if specs[0].Function.Name != "echo" || specs[0].Function.Parameters.Type != "object" {
		t.Fatalf("specs %+v", specs[0])
	}
	if p, ok := specs[0].Function.Parameters.Properties.Get("text"); !ok || p.Description != "what to echo" {
		t.Fatalf("text property %+v", p)
	}
	if got := specs[0].Function.Parameters.Required; len(got) != 1 || got[0] != "text" {
		t.Fatalf("required %v", got)
	}
	tests := []struct {
		name, tool, args string
		want             error
		out              string
	}{
		{"ok", "echo", `{"text":"ab","times":2}`, nil, "abab"},
		{"unknown", "nope", `{}`, ErrUnknown, ""},
		{"missing required", "echo", `{}`, ErrInvalidArgs, ""},
		{"wrong type", "echo", `{"text":3}`, ErrInvalidArgs, ""},
		{"extra field", "echo", `{"text":"a","x":1}`, ErrInvalidArgs, ""},
		{"not json", "echo", `{"text":`, ErrInvalidArgs, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := r.Run(context.Background(), tt.tool, json.RawMessage(tt.args))
			if !errors.Is(err, tt.want) || out != tt.out {
				t.Fatalf("Run = %q, %v; want %q, %v", out, err, tt.out, tt.want)
			}
		})
	}
	// What is wrong is said plainly, without the validator's schema
	// address: the model reads it to mend its next call.
	for args, want := range map[string]string{
		`{}`:                       "invalid arguments for echo: missing property 'text'; expected",
		`{"text":"a","x":1}`:       "invalid arguments for echo: additional properties 'x' not allowed; expected",
		`{"text":"a","times":"2"}`: "invalid arguments for echo: at /times: got string, want integer; expected",
	} {
		if err := r.Check("echo", json.RawMessage(args)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q…", args, err, want)
		}
	}
	_, err := r.Run(context.Background(), "nope", json.RawMessage(`{}`))
	if !strings.Contains(err.Error(), "available tools: echo, z.last") {
		t.Fatalf("unknown tool error does not list tools: %v", err)
	}
}

// FuzzArguments: decoding never panics, and whatever passes Check decodes.
func FuzzArguments(f *testing.F) {
	for _, s := range []string{`{"text":"a"}`, `{"text":"a","times":3}`, `{}`, `[]`, `null`, `{"text":1e400}`, `{"text":"\ud800"}`} {
		f.Add(s)
	}
	r := registry(f)
	f.Fuzz(func(t *testing.T, args string) {
		if err := r.Check("echo", json.RawMessage(args)); err != nil {
			return
		}
		if _, err := r.Run(context.Background(), "echo", json.RawMessage(args)); err != nil {
			t.Fatalf("valid arguments %q failed to run: %v", args, err)
		}
	})
}

// schemaTool is a tool from outside (an MCP server) with its own schema.
type schemaTool struct{ schema string }

func (s schemaTool) Name() string                                         { return "mcp.s.t" }
func (s schemaTool) Description() string                                  { return "a server's tool" }
func (s schemaTool) ReadOnly() bool                                       { return false }
func (s schemaTool) Parameters() json.RawMessage                          { return json.RawMessage(s.schema) }
func (s schemaTool) Run(context.Context, json.RawMessage) (string, error) { return "ran", nil }

// TestSchemasLoadNothing: a server's schema that refers to a file
// ("$ref": "file:///…", "$schema": "file:///…") would have the compiler
// read it: a JSON file's values would come back to the model in validation
// errors ("must be one of …"), and a FIFO or /dev/stdin would hang the run.
// Such a tool is left out, saying why, and nothing is read.
func TestSchemasLoadNothing(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "config.json")
	if err := os.WriteFile(secret, []byte(`{"enum": ["hunter2-token"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, schema := range []string{
		`{"type":"object","properties":{"key":{"$ref":"file://` + secret + `"}}}`,
		`{"$schema":"file://` + fifo + `","type":"object"}`,
		`{"type":"object","properties":{"key":{"$ref":"file://` + fifo + `"}}}`,
		`{"type":"object","properties":{"key":{"$ref":"https://schemas.example/x.json"}}}`,
	} {
		done := make(chan []error, 1)
		go func() {
			_, errs := registry(t).WithValid(schemaTool{schema})
			done <- errs
		}()
		select {
		case errs := <-done:
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), "self-contained") {
				t.Errorf("schema %s: errors %v, want the tool left out as not self-contained", schema, errs)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("schema %s: registering the tool is still waiting on a file after 20 s", schema)
		}
	}
	// A schema with its own definitions still works.
	r, errs := registry(t).WithValid(schemaTool{`{"type":"object","$defs":{"k":{"type":"string"}},"properties":{"key":{"$ref":"#/$defs/k"}},"required":["key"]}`})
	if len(errs) != 0 || r.Check("mcp.s.t", json.RawMessage(`{"key":"v"}`)) != nil || r.Check("mcp.s.t", json.RawMessage(`{"key":1}`)) == nil {
		t.Fatalf("a self-contained schema: errors %v", errs)
	}
	// ...and the model is shown the type its reference names (Ollama's
	// api.Tool keeps no $ref: internal/toolschema).
	for _, spec := range r.Specs() {
		if spec.Function.Name == "mcp.s.t" {
			if p, ok := spec.Function.Parameters.Properties.Get("key"); !ok || p.Type.String() != "string" {
				t.Errorf("the model is shown key as %+v", p)
			}
		}
	}
}

// TestAliases: another agent's name for a tool resolves to it, in any of
// the spellings a registered name may take, after the registered names'
// own spellings and only for a tool the registry has; a registry with
// tools added (With, WithValid: an MCP server's) keeps them.
func TestAliases(t *testing.T) {
	r := registry(t)
	r.SetAliases(map[string]Alias{"Say": {Tool: "echo"}, "run_shell_command": {Tool: "shell.run"}, "z_last": {Tool: "echo"}})
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"Say", "echo", true},
		{"say", "echo", true},
		{"functions.say", "echo", true},
		{"z_last", "z.last", true},       // its own tool's spelling first
		{"run_shell_command", "", false}, // no such tool here
		{"shout", "", false},
	} {
		if got, ok := r.Resolve(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	shell := Define("shell.run", "run", false, func(context.Context, echoArgs) (string, error) { return "", nil })
	more, errs := r.WithValid(shell)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	with, err := r.With(shell)
	if err != nil {
		t.Fatal(err)
	}
	for _, reg := range []*Registry{more, with} {
		if got, ok := reg.Resolve("run_shell_command"); got != "shell.run" || !ok {
			t.Errorf("with the tool added: %q, %v", got, ok)
		}
	}
}
