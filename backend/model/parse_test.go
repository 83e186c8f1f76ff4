package model

import (
	"strings"
	"testing"
)

func TestParseToolCalls(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		want      string // name(args) joined with ";"
		attempted bool
	}{
		{"plain json", `{"name": "fs.read", "arguments": {"path": "a.txt"}}`, `fs.read({"path":"a.txt"})`, true},
		{"parameters key", `{"name": "fs.list", "parameters": {}}`, `fs.list({})`, true},
		{"function wrapper", `{"function": {"name": "fs.list", "arguments": {"path": "."}}}`, `fs.list({"path":"."})`, true},
		{"string arguments", `{"name": "fs.read", "arguments": "{\"path\": \"b\"}"}`, `fs.read({"path":"b"})`, true},
		{"list", `[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 1}}]`, `a({});b({"x":1})`, true},
		{"fenced", "Sure:\n```json\n{\"name\": \"fs.list\", \"arguments\": {}}\n```", `fs.list({})`, true},
		{"tagged", `<tool_call>{"name": "fs.list", "arguments": {}}</tool_call>`, `fs.list({})`, true},
		{"tagged unclosed", `<tool_call>{"name": "fs.list", "arguments": {}}`, `fs.list({})`, true},
		{"two tagged", `<tool_call>{"name": "a"}</tool_call><tool_call>{"name": "b"}</tool_call>`, `a({});b({})`, true},
		{"tagged broken", `<tool_call>{"name": "fs.list", "arguments": {`, ``, true},
		{"json without name", `{"path": "a"}`, ``, false},
		{"code fence with code", "```go\nfunc main() {}\n```", ``, false},
		{"prose", `The answer is 42.`, ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, attempted := ParseToolCalls(tt.text)
			var got []string
			for _, c := range calls {
				got = append(got, c.Function.Name+"("+c.Function.Arguments.String()+")")
			}
			if strings.Join(got, ";") != tt.want || attempted != tt.attempted {
				t.Fatalf("got %q attempted=%v, want %q attempted=%v", strings.Join(got, ";"), attempted, tt.want, tt.attempted)
			}
		})
	}
}

func TestTextCallsStreaming(t *testing.T) {
	tests := []struct {
		name      string
		chunks    []string
		wantShown string
		wantCalls int
	}{
		{"plain text", []string{"Hel", "lo <b>", " there"}, "Hello <b> there", 0},
		{"marker split across chunks", []string{"Let me look. <too", "l_call>{\"name\": \"fs.list\"}", "</tool_call>"}, "Let me look. ", 1},
		{"json at start", []string{"  {\"name\": ", "\"fs.list\", \"arguments\": {}}"}, "  ", 1},
		{"json later is text", []string{"Use {braces} freely"}, "Use {braces} freely", 0},
		{"fence with code is text", []string{"```", "sh\nls\n```"}, "```sh\nls\n```", 0},
		{"trailing lone <", []string{"a <"}, "a <", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &textCalls{enabled: true, atStart: true}
			var shown strings.Builder
			for _, c := range tt.chunks {
				shown.WriteString(s.feed(c))
			}
			rest, calls := s.finish()
			shown.WriteString(rest)
			if shown.String() != tt.wantShown || len(calls) != tt.wantCalls {
				t.Fatalf("shown %q calls %d, want %q and %d", shown.String(), len(calls), tt.wantShown, tt.wantCalls)
			}
		})
	}
}

// FuzzParseToolCalls: never panics; every call has a name and JSON-object
// arguments.
func FuzzParseToolCalls(f *testing.F) {
	for _, s := range []string{`{"name":"a","arguments":{}}`, "<tool_call>{\"name\":\"a\"}</tool_call>", "```json\n[{\"name\":\"b\"}]\n```", `{"function":{"name":"c","arguments":"{}"}}`, "<tool_call>", "```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		calls, _ := ParseToolCalls(text)
		for _, c := range calls {
			if c.Function.Name == "" {
				t.Fatalf("call without a name from %q", text)
			}
			if a := c.Function.Arguments.String(); !strings.HasPrefix(a, "{") {
				t.Fatalf("arguments %q are not an object (from %q)", a, text)
			}
		}
		s := &textCalls{enabled: true, atStart: true}
		half := len(text) / 2
		out := s.feed(text[:half]) + s.feed(text[half:])
		rest, _ := s.finish()
		_ = out + rest
	})
}
