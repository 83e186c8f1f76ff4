package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
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
