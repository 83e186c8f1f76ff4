package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// A text tool call renders its arguments in the family's form; what the
// arguments hold is the model's business: a README with code fences, C
// with "};", HTML with </s>, a note about <tool_call> tags. Each form is
// a function of the calls (names and argument maps) to the text a model
// of that family writes, after the family's chat template. Special tokens
// (<|eom_id|>, [TOOL_CALLS] in v11, DeepSeek's) cannot appear inside a
// value (the tokenizer makes them tokens, not text), and the forms whose
// values are raw text cannot hold their own closing tags; those are left
// out of the values of that form.
type form struct {
	name    string
	render  func(calls []genCall) string
	avoid   []string // texts a value of this form cannot hold
	strings bool     // values are raw text: strings only, no blanks at the ends
	single  bool     // one call per message
	prose   string   // what the message says before its calls (shown while it streams)
}

type genCall struct {
	name string
	args map[string]any
}

// compact marshals v as a model writes JSON: no HTML escaping.
func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func callObj(c genCall, argsKey string) string {
	return fmt.Sprintf(`{"name": %s, %q: %s}`, compact(c.name), argsKey, compact(c.args))
}

// pyLiteral writes v as a Python literal (what Llama 3.2 and Gemma write).
func pyLiteral(v any) string {
	switch v := v.(type) {
	case string:
		return compact(v) // a JSON string is a Python string for the characters generated
	case bool:
		if v {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	case float64:
		return compact(v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = pyLiteral(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	panic(fmt.Sprintf("no literal for %T", v))
}

func pyCall(c genCall) string {
	keys := sortedKeys(c.args)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + pyLiteral(c.args[k])
	}
	return c.name + "(" + strings.Join(parts, ", ") + ")"
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func joinCalls(calls []genCall, each func(genCall) string, sep string) string {
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = each(c)
	}
	return strings.Join(parts, sep)
}

// hermes is the Hermes/Qwen form of calls.
func hermes(cs []genCall) string {
	return joinCalls(cs, func(c genCall) string { return "<tool_call>\n" + callObj(c, "arguments") + "\n</tool_call>" }, "\n")
}

var forms = []form{
	{name: "hermes", render: hermes},
	{name: "hermes after prose", prose: "I will do that now.\n\n", render: func(cs []genCall) string {
		return "I will do that now.\n\n" + hermes(cs)
	}},
	{name: "qwen3-coder", strings: true, avoid: []string{"</parameter>", "</function>", "</tool_call>", "<tool_call>", "<parameter="}, render: func(cs []genCall) string {
		return joinCalls(cs, func(c genCall) string { return functionXML(c, "tool_call", "<parameter=%s>\n%s\n</parameter>\n") }, "\n")
	}},
	{name: "glm-4.5", strings: true, avoid: []string{"</arg_value>", "</arg_key>", "<arg_key>", "</tool_call>", "<tool_call>"}, render: func(cs []genCall) string {
		return joinCalls(cs, func(c genCall) string {
			var b strings.Builder
			b.WriteString("<tool_call>" + c.name + "\n")
			for _, k := range sortedKeys(c.args) {
				fmt.Fprintf(&b, "<arg_key>%s</arg_key>\n<arg_value>%s</arg_value>\n", k, c.args[k])
			}
			b.WriteString("</tool_call>")
			return b.String()
		}, "\n")
	}},
	{name: "llama3 python_tag", single: true, avoid: []string{"<|eom_id|>", "<|eot_id|>"}, render: func(cs []genCall) string {
		return "<|python_tag|>" + callObj(cs[0], "parameters")
	}},
	{name: "llama3 json message", single: true, render: func(cs []genCall) string {
		return callObj(cs[0], "parameters")
	}},
	{name: "llama3.2 python list", render: func(cs []genCall) string {
		return "[" + joinCalls(cs, pyCall, ", ") + "]"
	}},
	{name: "mistral v3", avoid: []string{"[TOOL_CALLS]"}, render: func(cs []genCall) string {
		return "[TOOL_CALLS] [" + joinCalls(cs, func(c genCall) string { return callObj(c, "arguments") }, ", ") + "]</s>"
	}},
	{name: "mistral v11", avoid: []string{"[TOOL_CALLS]", "[ARGS]"}, render: func(cs []genCall) string {
		return joinCalls(cs, func(c genCall) string { return "[TOOL_CALLS]" + c.name + "[ARGS]" + compact(c.args) }, "")
	}},
	{name: "granite", avoid: []string{"<|/tool_call|>", "<|end_of_text|>"}, render: func(cs []genCall) string {
		return "<|tool_call|>[" + joinCalls(cs, func(c genCall) string { return callObj(c, "arguments") }, ", ") + "]"
	}},
	{name: "deepseek", avoid: []string{"<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>", "<｜tool▁sep｜>", "<｜tool▁call▁begin｜>"}, render: func(cs []genCall) string {
		return "<｜tool▁calls▁begin｜>" + joinCalls(cs, func(c genCall) string {
			return "<｜tool▁call▁begin｜>function<｜tool▁sep｜>" + c.name + "\n```json\n" + compact(c.args) + "\n```<｜tool▁call▁end｜>"
		}, "\n") + "<｜tool▁calls▁end｜>"
	}},
	{name: "gemma3 tool_code", single: true, render: func(cs []genCall) string {
		return "```tool_code\n" + pyCall(cs[0]) + "\n```"
	}},
	{name: "fenced json", single: true, render: func(cs []genCall) string {
		return "```json\n" + callObj(cs[0], "arguments") + "\n```"
	}},
	{name: "gemma4", avoid: []string{`<|"|>`, "<tool_call|>", "<|tool_call>"}, render: func(cs []genCall) string {
		return joinCalls(cs, func(c genCall) string {
			return "<|tool_call>call:" + c.name + gemmaArgs(c.args, `<|"|>`) + "<tool_call|>"
		}, "")
	}},
	{name: "functiongemma", avoid: []string{"<escape>", "<end_function_call>", "<start_function_call>"}, render: func(cs []genCall) string {
		return joinCalls(cs, func(c genCall) string {
			return "<start_function_call>call:" + c.name + gemmaArgs(c.args, "<escape>") + "<end_function_call>"
		}, "")
	}},
	{name: "lfm2", avoid: []string{"<|tool_call_start|>", "<|tool_call_end|>"}, render: func(cs []genCall) string {
		return "<|tool_call_start|>[" + joinCalls(cs, pyCall, ", ") + "]<|tool_call_end|>"
	}},
	{name: "olmo3", render: func(cs []genCall) string {
		return "<function_calls>" + joinCalls(cs, pyCall, "\n") + "</function_calls>"
	}},
	{name: "minimax invoke", strings: true, avoid: []string{"</parameter>", "</invoke>", "</minimax:tool_call>", "<parameter name=", "<invoke name="}, render: func(cs []genCall) string {
		return "<minimax:tool_call>\n" + joinCalls(cs, func(c genCall) string { return invoke(c, "") }, "\n") + "\n</minimax:tool_call>"
	}},
	{name: "glimmer invoke", strings: true, avoid: []string{"</atem:parameter>", "</atem:invoke>", "</atem:function_calls>", "<atem:parameter name=", "<atem:invoke name="}, render: func(cs []genCall) string {
		return "<atem:function_calls>\n" + joinCalls(cs, func(c genCall) string { return invoke(c, "atem:") }, "\n") + "\n</atem:function_calls>"
	}},
	{name: "cohere", avoid: []string{"<|END_ACTION|>", "<|START_ACTION|>"}, render: func(cs []genCall) string {
		actions := make([]string, len(cs))
		for i, c := range cs {
			actions[i] = fmt.Sprintf(`{"tool_call_id": "%d", "tool_name": %s, "parameters": %s}`, i, compact(c.name), compact(c.args))
		}
		return "<|START_ACTION|>[\n    " + strings.Join(actions, ",\n    ") + "\n]<|END_ACTION|>"
	}},
	{name: "seed-oss", strings: true, avoid: []string{"</parameter>", "</function>", "</seed:tool_call>", "<seed:tool_call>", "<parameter="}, render: func(cs []genCall) string {
		return joinCalls(cs, func(c genCall) string { return functionXML(c, "seed:tool_call", "<parameter=%s>%s</parameter>\n") }, "\n")
	}},
	{name: "internlm", avoid: []string{"<|action_end|>", "<|action_start|>"}, render: func(cs []genCall) string {
		return joinCalls(cs, func(c genCall) string {
			return "<|action_start|><|plugin|>\n" + callObj(c, "parameters") + "<|action_end|>"
		}, "\n")
	}},
	{name: "kimi-k2", avoid: []string{"<|tool_call_end|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_calls_section_end|>"}, render: func(cs []genCall) string {
		calls := make([]string, len(cs))
		for i, c := range cs {
			calls[i] = fmt.Sprintf("<|tool_call_begin|>functions.%s:%d<|tool_call_argument_begin|>%s<|tool_call_end|>", c.name, i, compact(c.args))
		}
		return "<|tool_calls_section_begin|>" + strings.Join(calls, "") + "<|tool_calls_section_end|>"
	}},
}

// functionXML writes a call as Qwen3-Coder and Seed-OSS do, between
// tag's tags: <function=NAME>, each argument by param (key, value).
func functionXML(c genCall, tag, param string) string {
	var b strings.Builder
	b.WriteString("<" + tag + ">\n<function=" + c.name + ">\n")
	for _, k := range sortedKeys(c.args) {
		fmt.Fprintf(&b, param, k, c.args[k])
	}
	b.WriteString("</function>\n</" + tag + ">")
	return b.String()
}

// gemmaArgs writes arguments as Gemma 4 does: {key:value,…}, strings
// between delims, lists in brackets.
func gemmaArgs(args map[string]any, delim string) string {
	var value func(v any) string
	value = func(v any) string {
		switch v := v.(type) {
		case string:
			return delim + v + delim
		case []any:
			parts := make([]string, len(v))
			for i, e := range v {
				parts[i] = value(e)
			}
			return "[" + strings.Join(parts, ",") + "]"
		}
		return compact(v)
	}
	keys := sortedKeys(args)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ":" + value(args[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// invoke writes a call as Claude-style XML, tags in namespace ns.
func invoke(c genCall, ns string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<%sinvoke name=%q>\n", ns, c.name)
	for _, k := range sortedKeys(c.args) {
		fmt.Fprintf(&b, "<%sparameter name=%q>%s</%sparameter>\n", ns, k, c.args[k], ns)
	}
	return b.String() + "</" + ns + "invoke>"
}

// pieces are what generated values are made of: words, the characters
// JSON and Python escape, other scripts, and every form's delimiters.
var pieces = []string{
	"hello", "make test", "x", " ", "\n", "\t", `"`, `'`, `\`, `\n`, "é", "日本", "😀", "{", "}", "[", "]", "(", ")", ",", "=", ":", ";", "};",
	"```", "```bash\nls\n```", "</s>", "<s>old</s>", "<tool_call>", "</tool_call>", "<|python_tag|>", "<|eom_id|>", "<|eot_id|>",
	"[TOOL_CALLS]", "[ARGS]", "<|tool_call|>", "<|/tool_call|>", "<|end_of_text|>", "</parameter>", "<parameter=x>", "</function>",
	"<function=fs.read>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>",
	"<｜tool▁call▁begin｜>", "<｜tool▁calls▁end｜>", `{"name": "fs.read", "arguments": {}}`, "print(", "fs.list()",
	`<|"|>`, "<|tool_call>", "<tool_call|>", "call:fs.read{path:x}", "<escape>", "<end_function_call>", "<|tool_call_start|>",
	"<|tool_call_end|>", "<function_calls>", "</function_calls>", `<invoke name="fs.read">`, "</invoke>", `<parameter name="path">`,
	"<minimax:tool_call>", "</minimax:tool_call>", "</atem:parameter>", "<|START_ACTION|>", "<|END_ACTION|>", "<seed:tool_call>",
	"</seed:tool_call>", "<|tool_call_begin|>", "<|tool_call_end|>",
}

func genString(r *rand.Rand, f form) string {
	for {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		ok := true
		for _, a := range f.avoid {
			if strings.Contains(s, a) {
				ok = false
			}
		}
		if f.strings {
			var v any
			// A raw value that reads as JSON other than a string is taken as JSON.
			if s != strings.TrimSpace(s) || s == "" || (json.Unmarshal([]byte(s), &v) == nil) {
				ok = false
			}
		}
		if ok {
			return s
		}
	}
}

func genValue(r *rand.Rand, f form, depth int) any {
	if f.strings {
		return genString(r, f)
	}
	switch r.IntN(10) {
	case 0:
		return float64(r.IntN(2000) - 1000)
	case 1:
		return r.IntN(2) == 0
	case 2:
		if depth < 2 {
			list := []any{}
			for range r.IntN(3) {
				list = append(list, genValue(r, f, depth+1))
			}
			return list
		}
	}
	return genString(r, f)
}

func genCalls(r *rand.Rand, f form) []genCall {
	names := []string{"fs.write", "fs.read", "shell.run", "fs.search", "web.fetch"}
	n := 1
	if !f.single {
		n += r.IntN(3)
	}
	calls := make([]genCall, n)
	keys := []string{"path", "content", "command", "query", "url", "limit"}
	for i := range calls {
		args := map[string]any{}
		for range r.IntN(4) {
			args[keys[r.IntN(len(keys))]] = genValue(r, f, 0)
		}
		calls[i] = genCall{names[r.IntN(len(names))], args}
	}
	return calls
}

// TestFormsHoldAnyArguments: for every form, calls whose arguments hold
// any text the form can carry are read back exactly, whole and streamed.
func TestFormsHoldAnyArguments(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 27))
	n := 400
	if testing.Short() {
		n = 100
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			failures := 0
			for i := range n {
				calls := genCalls(r, f)
				text := f.render(calls)
				got, attempted := ParseToolCalls(text, known)
				if err := sameCalls(got, calls); attempted || err != nil {
					failures++
					if failures <= 3 {
						t.Errorf("case %d: attempted=%v, %v\ntext: %q", i, attempted, err, text)
					}
					continue
				}
				s := newTextCalls(specs(), nil)
				var shown strings.Builder
				for j := 0; j < len(text); {
					n := 1 + r.IntN(9)
					shown.WriteString(s.feed(text[j:min(j+n, len(text))]))
					j += n
				}
				rest, streamed := s.finish()
				shown.WriteString(rest)
				if err := sameCalls(streamed, calls); err != nil || shown.String() != f.prose {
					failures++
					if failures <= 3 {
						t.Errorf("case %d streamed: %v (shown %q)\ntext: %q", i, err, shown.String(), text)
					}
				}
			}
			if failures > 0 {
				t.Errorf("%d of %d failed", failures, n)
			}
		})
	}
}

func sameCalls(got []api.ToolCall, want []genCall) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d calls, want %d", len(got), len(want))
	}
	for i, c := range got {
		var args map[string]any
		if err := json.Unmarshal([]byte(c.Function.Arguments.String()), &args); err != nil {
			return fmt.Errorf("call %d: arguments %v", i, err)
		}
		if c.Function.Name != want[i].name || !reflect.DeepEqual(args, want[i].args) {
			return fmt.Errorf("call %d: %s %s, want %s %s", i, c.Function.Name, compact(args), want[i].name, compact(want[i].args))
		}
	}
	return nil
}

// TestPythonLiterals: the literals Llama 3.2, Llama 4 and Gemma 3 write
// in Python-style calls.
func TestPythonLiterals(t *testing.T) {
	tests := []struct {
		text string
		want string // the arguments as compact JSON
	}{
		{`[fs.read(path="app.log", offset=-20)]`, `{"offset":-20,"path":"app.log"}`},
		{`[fs.list(path=".", skip=[])]`, `{"path":".","skip":[]}`},
		{"[fs.write(path=\"a.md\", content=\"\"\"# Title\n\n```bash\nls\n```\n\"\"\")]", `{"content":"# Title\n\n` + "```bash\\nls\\n```" + `\n","path":"a.md"}`},
		{`[fs.write(path="b", content="caf\u00e9 \U0001F600 \x41 \ud83d\ude00")]`, `{"content":"café 😀 A 😀","path":"b"}`},
		{`[fs.read(path='it\'s')]`, `{"path":"it's"}`},
		{"[fs.write(path=\"a.txt\", content=\"one\\n\"\n    \"two\\n\" 'three')]", `{"content":"one\ntwo\nthree","path":"a.txt"}`},
		{`[fs.search(query="a", limit=1_000, ratio=1.5e3, on=True, off=None)]`, `{"limit":1000,"off":null,"on":true,"query":"a","ratio":1500}`},
		{"```tool_code\nfs.write(path=\"r.md\", content=\"```sh\\nmake\\n```\")\n```", `{"content":"` + "```sh\\nmake\\n```" + `","path":"r.md"}`},
		// Python keeps the backslash of an escape it does not know: a
		// regular expression's stays what the model wrote.
		{`[shell.run(command="grep -rn 'TODO\|FIXME' . | grep -E '\d+\.\s'")]`, `{"command":"grep -rn 'TODO\\|FIXME' . | grep -E '\\d+\\.\\s'"}`},
		{`[fs.write(path="c", content="a\012b\0\\ \a\v\"")]`, `{"content":"a\nb\u0000\\ \u0007\u000b\"","path":"c"}`},
	}
	for _, tt := range tests {
		calls, attempted := ParseToolCalls(tt.text, known)
		if attempted || len(calls) != 1 {
			t.Errorf("%s: %d calls, attempted %v", tt.text, len(calls), attempted)
			continue
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(calls[0].Function.Arguments.String()), &args); err != nil {
			t.Fatal(err)
		}
		if got := compact(args); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.text, got, tt.want)
		}
	}
}
