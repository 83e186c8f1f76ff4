package model

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/toolname"
)

// registered are the tool names the corpus is read against.
var registered = map[string]bool{"fs.list": true, "fs.read": true, "fs.write": true, "fs.search": true, "shell.run": true, "web.fetch": true}

func known(name string) bool { return registered[name] }

type corpusCase struct {
	Family    string `json:"family"`
	Form      string `json:"form"`
	Source    string `json:"source"`
	Text      string `json:"text"`
	Why       string `json:"why"`
	Malformed bool   `json:"malformed"`
	Calls     []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"calls"`
}

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	b, err := os.ReadFile("testdata/textcalls.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Cases []corpusCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("testdata/textcalls.json: %v", err)
	}
	if len(c.Cases) < 40 {
		t.Fatalf("corpus has %d cases", len(c.Cases))
	}
	for i, tc := range c.Cases {
		if tc.Source == "" || tc.Family == "" || tc.Text == "" {
			t.Fatalf("case %d lacks its family, source or text", i)
		}
	}
	return c.Cases
}

func argsMap(t testing.TB, c api.ToolCall) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(c.Function.Arguments.String()), &m); err != nil {
		t.Fatalf("arguments of %s: %v", c.Function.Name, err)
	}
	return m
}

// TestCorpus: every real call form is recognised, with its arguments;
// every answer in the corpus stays an answer; both whole and streamed in
// chunks of every size from 1 to 7 bytes.
func TestCorpus(t *testing.T) {
	for _, tc := range loadCorpus(t) {
		t.Run(tc.Family+"/"+tc.Form, func(t *testing.T) {
			calls, attempted := ParseToolCalls(tc.Text, known)
			check := func(how string, calls []api.ToolCall, attempted bool) {
				t.Helper()
				if attempted != tc.Malformed {
					t.Fatalf("%s: attempted=%v, want %v (%q)", how, attempted, tc.Malformed, tc.Text)
				}
				if len(calls) != len(tc.Calls) {
					t.Fatalf("%s: %d calls, want %d (%q)", how, len(calls), len(tc.Calls), tc.Text)
				}
				for i, c := range calls {
					want := tc.Calls[i]
					got := argsMap(t, c)
					if want.Arguments == nil {
						want.Arguments = map[string]any{}
					}
					if c.Function.Name != want.Name || !reflect.DeepEqual(got, want.Arguments) {
						t.Fatalf("%s: call %d = %s %v, want %s %v", how, i, c.Function.Name, got, want.Name, want.Arguments)
					}
				}
			}
			check("whole", calls, attempted)
			for size := 1; size <= 7; size++ {
				s := newTextCalls(specs(), nil)
				var shown strings.Builder
				for i := 0; i < len(tc.Text); i += size {
					shown.WriteString(s.feed(tc.Text[i:min(i+size, len(tc.Text))]))
				}
				rest, calls := s.finish()
				shown.WriteString(rest)
				malformed := len(calls) == 1 && calls[0].Function.Name == ""
				if malformed {
					calls = nil
				}
				check("streamed", calls, malformed)
				if len(tc.Calls) == 0 && !tc.Malformed && shown.String() != tc.Text {
					t.Fatalf("streamed in %d-byte chunks, the answer was shown as %q, want %q", size, shown.String(), tc.Text)
				}
			}
		})
	}
}

func specs() api.Tools {
	var out api.Tools
	for n := range registered {
		out = append(out, api.Tool{Type: "function", Function: api.ToolFunction{Name: n}})
	}
	return out
}

// TestAnswersStreamWithoutWaiting: an answer that starts with a code block
// or a JSON value is shown once it cannot be a call any more, not held to
// the end.
func TestAnswersStreamWithoutWaiting(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		shown  string // shown before finish
	}{
		{"shell fence", []string{"```sh\n", "ls -la\n", "```\n", "More text"}, "```sh\nls -la\n```\nMore text"},
		{"json then prose", []string{`{"a": 1}`, " is JSON", " indeed"}, `{"a": 1} is JSON indeed`},
		{"plain text", []string{"Hel", "lo <b>", " there"}, "Hello <b> there"},
		{"marker split across chunks", []string{"Let me look. <too", "l_call>{\"name\": \"fs.list\"}"}, "Let me look. "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTextCalls(specs(), nil)
			var shown strings.Builder
			for _, c := range tt.chunks {
				shown.WriteString(s.feed(c))
			}
			if shown.String() != tt.shown {
				t.Fatalf("shown before the end: %q, want %q", shown.String(), tt.shown)
			}
		})
	}
}

// FuzzParseToolCalls: never panics; every call names a registered tool
// and has JSON-object arguments; streamed answers lose no text.
func FuzzParseToolCalls(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.Text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		calls, _ := ParseToolCalls(text, known)
		for _, c := range calls {
			if !registered[c.Function.Name] {
				t.Fatalf("call to unregistered %q from %q", c.Function.Name, text)
			}
			if a := c.Function.Arguments.String(); !strings.HasPrefix(a, "{") {
				t.Fatalf("arguments %q are not an object (from %q)", a, text)
			}
		}
		s := newTextCalls(specs(), nil)
		half := len(text) / 2
		out := s.feed(text[:half]) + s.feed(text[half:])
		rest, got := s.finish()
		if len(got) == 0 && out+rest != text {
			t.Fatalf("no call, but the text shown %q differs from %q", out+rest, text)
		}
	})
}

// BenchmarkStreamLongAnswer: a 1 MB answer that starts like a call (a JSON
// value) and one in prose, streamed in 4-byte chunks, as a runaway model
// would send them; the text reader must stay linear.
func BenchmarkStreamLongAnswer(b *testing.B) {
	for _, tt := range []struct{ name, text string }{
		{"prose with code", strings.Repeat("Some words and `code` and ```\nfenced\n``` more. ", 1<<20/48)},
		{"json value", `{"rows": [` + strings.Repeat(`{"a": 1, "b": "xyz"}, `, 1<<20/22) + `{}]}`},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.text)))
			for b.Loop() {
				s := newTextCalls(specs(), nil)
				for i := 0; i < len(tt.text); i += 4 {
					s.feed(tt.text[i:min(i+4, len(tt.text))])
				}
				s.finish()
			}
		})
	}
}

// TestTextCallsByOtherNames: a call written as text under another
// agent's name for an offered tool (Bash for shell.run) is read as a
// call, left under that name for the agent to rename; under a name whose
// tool is not offered, or with no names given, it is answer text.
func TestTextCallsByOtherNames(t *testing.T) {
	aliases := toolname.NewAliases(map[string]string{"Bash": "shell.run", "WebFetch": "web.fetch"})
	const text = `<tool_call>{"name": "Bash", "arguments": {"command": "ls"}}</tool_call>`
	for _, tt := range []struct {
		name    string
		tools   []string
		aliases toolname.Aliases
		call    string // "" for none
	}{
		{"offered", []string{"shell.run", "fs.read"}, aliases, "Bash"},
		{"not offered", []string{"fs.read"}, aliases, ""},
		{"no names", []string{"shell.run"}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var tools api.Tools
			for _, n := range tt.tools {
				tools = append(tools, api.Tool{Type: "function", Function: api.ToolFunction{Name: n}})
			}
			s := newTextCalls(tools, tt.aliases)
			out := s.feed(text)
			rest, calls := s.finish()
			switch {
			case tt.call == "" && (len(calls) != 0 || out+rest != text):
				t.Errorf("calls %v, text %q; want the text as an answer", calls, out+rest)
			case tt.call != "" && (len(calls) != 1 || calls[0].Function.Name != tt.call || out+rest != ""):
				t.Errorf("calls %v, text %q; want one call to %s", calls, out+rest, tt.call)
			}
		})
	}
}

// TestCopiedCallsAreNotCalls: every call marker but Gemma 3's tool_code
// fence (plain text in its vocabulary) is a shape special.json escapes,
// so text from a file, a page or a command's output that holds a call in
// any family's form reaches the model with a joiner in its marker; a
// model that copies it into its answer has made no call. Ties the two
// lists: a marker added without its shape fails here.
func TestCopiedCallsAreNotCalls(t *testing.T) {
	for _, m := range markers {
		if escaped, _ := escapeText(m.open, nil); escaped == m.open && m.open != "```tool_code" {
			t.Errorf("the marker %q is not escaped when it comes from outside", m.open)
		}
	}
	for _, tc := range loadCorpus(t) {
		escaped, _ := escapeText(tc.Text, nil)
		if len(tc.Calls) == 0 || escaped == tc.Text {
			continue // an answer, or a form that is all plain text (JSON, a Python list, a fence)
		}
		if calls, attempted := ParseToolCalls(escaped, known); len(calls) > 0 || attempted {
			t.Errorf("%s/%s: a copy of what the model read is a call: %q", tc.Family, tc.Form, escaped)
		}
	}
}
