package model

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"unicode"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/pyliteral"
)

// Text tool calls of the families whose forms are not a JSON call object
// (the rest of the forms are in parse.go; each is in the corpus,
// testdata/textcalls.json, with its source). They come as text when
// Ollama has no parser for the model as it was installed: a GGUF from
// Hugging Face whose template is matched to a generic one, a model with
// Shrimp's prompted tools (prompted.go) that still writes its own form,
// or a template Ollama's tool parser reads as JSON. Many harnesses met
// Gemma 4's this way (llama.cpp #22786, omlx #581, llama-cpp-python
// #2227, hermes-agent #6626: the call shown to the user, nothing run).
//
//   - Gemma 4: <|tool_call>call:NAME{key:<|"|>text<|"|>,n:5}<tool_call|>;
//     FunctionGemma the same between <start_function_call> and
//     <end_function_call>, strings quoted by <escape>. Models also write
//     JSON strings and bare words as values (llama.cpp #22786) and
//     NAME(key: value) (hermes-agent #7449).
//   - LFM2: <|tool_call_start|>[NAME(k="v"), …]<|tool_call_end|>.
//   - OLMo 3: <function_calls>NAME(k="v")</function_calls>, one call a line.
//   - Claude-style invoke XML: MiniMax-M2's <minimax:tool_call>, glimmer's
//     <atem:function_calls> and the legacy <function_calls>, each holding
//     <invoke name="NAME"><parameter name="K">V</parameter></invoke>.
//   - Cohere Command R7B and A: <|START_ACTION|>[{"tool_call_id": "0",
//     "tool_name": NAME, "parameters": {…}}]<|END_ACTION|>.
//   - Seed-OSS: <seed:tool_call><function=NAME><parameter=K>V</parameter>
//     </function></seed:tool_call>.
//   - Kimi K2: <|tool_calls_section_begin|><|tool_call_begin|>functions.
//     NAME:0<|tool_call_argument_begin|>{…}<|tool_call_end|>…; Ollama has
//     no parser for it.
//
// The tags of Gemma 4, FunctionGemma, LFM2, Cohere and Kimi are special tokens
// of their vocabularies, so no value can hold them (the tokenizer makes
// them tokens) and a block is cut at its end tag; OLMo 3's calls are read
// as the Python literals they are, so their strings may hold the tags.

// gemmaCall reads one of Gemma 4's (or FunctionGemma's) blocks:
// call:NAME{…}, its strings quoted by delim.
func gemmaCall(delim string) func(string, func(string) bool) ([]api.ToolCall, bool) {
	return func(block string, known func(string) bool) ([]api.ToolCall, bool) {
		body, ok := strings.CutPrefix(block, "call:")
		if !ok {
			body = block // "call:" is sometimes left out
		}
		i := strings.IndexAny(body, "{(")
		if i < 0 {
			if name := strings.TrimSpace(body); known(name) {
				return []api.ToolCall{{Function: api.ToolCallFunction{Name: name, Arguments: api.NewToolCallFunctionArguments()}}}, false // no arguments
			}
			return nil, false
		}
		name := strings.TrimSpace(body[:i])
		if !known(name) {
			return nil, false
		}
		g := &gemmaReader{Reader: pyliteral.Reader{S: body, I: i}, delim: delim}
		args, err := g.arguments()
		if err != nil || strings.TrimSpace(body[g.I:]) != "" {
			return nil, true // a registered tool, its arguments unreadable
		}
		return []api.ToolCall{{Function: api.ToolCallFunction{Name: name, Arguments: args}}}, false
	}
}

// gemmaReader reads Gemma 4's argument syntax: {key:value,…} (or
// (key: value, …)), keys bare or quoted; a value is a string between two
// delims, a JSON string, a number, true, false or null, a list, an
// object, or bare text up to the next ',' or closing bracket.
type gemmaReader struct {
	pyliteral.Reader
	delim string // <|"|> or <escape>
}

var errGemma = errors.New("not Gemma 4's argument syntax")

// arguments reads the call's {…} or (…).
func (g *gemmaReader) arguments() (api.ToolCallFunctionArguments, error) {
	closer := byte('}')
	if g.S[g.I] == '(' {
		closer = ')'
	}
	g.I++
	args := api.NewToolCallFunctionArguments()
	err := g.members(closer, func(k string, v any) { args.Set(k, v) })
	return args, err
}

// members reads key:value pairs up to closer, handing each to set.
func (g *gemmaReader) members(closer byte, set func(string, any)) error {
	g.Space()
	if g.Eat(closer) {
		return nil
	}
	for {
		g.Space()
		k, err := g.key()
		if err != nil {
			return err
		}
		g.Space()
		if !g.Eat(':') && !g.Eat('=') {
			return errGemma
		}
		v, err := g.value(closer)
		if err != nil {
			return err
		}
		set(k, v)
		g.Space()
		switch {
		case g.Eat(','):
		case g.Eat(closer):
			return nil
		default:
			return errGemma
		}
	}
}

func (g *gemmaReader) key() (string, error) {
	rest := g.S[g.I:]
	if strings.HasPrefix(rest, g.delim) || strings.HasPrefix(rest, `"`) {
		v, err := g.value(0)
		s, ok := v.(string)
		if err != nil || !ok {
			return "", errGemma
		}
		return s, nil
	}
	n := strings.IndexFunc(rest, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.' || r == '$')
	})
	if n <= 0 {
		return "", errGemma
	}
	g.I += n
	return rest[:n], nil
}

// value reads one value; a bare one ends at ',' or closer (or any
// closing bracket).
func (g *gemmaReader) value(closer byte) (any, error) {
	g.Space()
	rest := g.S[g.I:]
	switch {
	case rest == "":
		return nil, errGemma
	case strings.HasPrefix(rest, g.delim):
		n := strings.Index(rest[len(g.delim):], g.delim)
		if n < 0 {
			return nil, errGemma
		}
		g.I += 2*len(g.delim) + n
		return rest[len(g.delim) : len(g.delim)+n], nil
	case rest[0] == '"':
		dec := json.NewDecoder(strings.NewReader(rest))
		var s string
		if dec.Decode(&s) != nil {
			return nil, errGemma
		}
		g.I += int(dec.InputOffset())
		return s, nil
	case rest[0] == '{':
		g.I++
		obj := map[string]any{}
		err := g.members('}', func(k string, v any) { obj[k] = v })
		return obj, err
	case rest[0] == '[':
		g.I++
		list := []any{}
		g.Space()
		if g.Eat(']') {
			return list, nil
		}
		for {
			v, err := g.value(']')
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			g.Space()
			switch {
			case g.Eat(','):
			case g.Eat(']'):
				return list, nil
			default:
				return nil, errGemma
			}
		}
	}
	n := strings.IndexFunc(rest, func(r rune) bool { return r == ',' || r == rune(closer) || r == '}' || r == ']' || r == ')' })
	if n < 0 {
		n = len(rest)
	}
	word := strings.TrimSpace(rest[:n])
	if word == "" {
		return nil, errGemma
	}
	g.I += n
	return rawValue(word), nil // a number, true, false or null, else the word
}

// tagged returns a parser of calls written between open and end, one
// block after another, each read by one: for a form whose tags are
// special tokens, which no value can hold. Text after the last block is
// left (the model's end-of-turn noise).
func tagged(open, end string, one func(string, func(string) bool) ([]api.ToolCall, bool)) func(string, func(string) bool) ([]api.ToolCall, bool) {
	return func(after string, known func(string) bool) ([]api.ToolCall, bool) {
		var calls []api.ToolCall
		for rest, more := after, true; more; {
			var block string
			block, rest, _ = strings.Cut(rest, end)
			block, _, _ = strings.Cut(block, open)
			got, bad := one(strings.TrimSpace(block), known)
			if bad {
				return nil, true
			}
			if len(got) == 0 {
				return nil, false
			}
			calls = append(calls, got...)
			rest, more = strings.CutPrefix(strings.TrimLeftFunc(rest, unicode.IsSpace), open)
		}
		return calls, false
	}
}

// lfm2Calls reads one LFM2 block: Python-style calls, or JSON ones.
func lfm2Calls(block string, known func(string) bool) ([]api.ToolCall, bool) {
	if strings.HasPrefix(block, "{") || strings.HasPrefix(block, "[{") {
		return jsonCalls(block, known, false)
	}
	return pythonCalls(block, known, false)
}

const olmoClose = "</function_calls>"

// parseFunctionCalls reads what follows <function_calls>: Claude-style
// invoke XML, or OLMo 3's Python-style calls, one a line, up to
// </function_calls>.
func parseFunctionCalls(after string, known func(string) bool) ([]api.ToolCall, bool) {
	body := strings.TrimSpace(after)
	if strings.HasPrefix(body, "<invoke") {
		block, _, _ := strings.Cut(body, olmoClose)
		return invokeCalls(block, known)
	}
	var calls []api.ToolCall
	for body != "" && !strings.HasPrefix(body, olmoClose) {
		got, attempted, n := pythonCallsPrefix(body, known)
		if attempted {
			return nil, true
		}
		if len(got) == 0 {
			return nil, false
		}
		calls = append(calls, got...)
		body = strings.TrimSpace(body[n:])
	}
	return calls, false
}

// invokeOpen matches an invoke tag, with its namespace (glimmer's atem:).
var invokeOpen = regexp.MustCompile(`<([a-z]+:)?invoke name="([^"]*)"\s*>`)

// invokeCalls reads Claude-style calls: <invoke name="NAME"> holding
// <parameter name="K">V</parameter>, all tags in the invoke's namespace.
// A value is raw text, or JSON for a list, an object, a number.
func invokeCalls(block string, known func(string) bool) ([]api.ToolCall, bool) {
	var calls []api.ToolCall
	for {
		m := invokeOpen.FindStringSubmatchIndex(block)
		if m == nil {
			return calls, false
		}
		ns, name := "", block[m[4]:m[5]]
		if m[2] >= 0 {
			ns = block[m[2]:m[3]]
		}
		if !known(name) {
			return nil, false
		}
		var body string
		body, block, _ = strings.Cut(block[m[1]:], "</"+ns+"invoke>")
		args := api.NewToolCallFunctionArguments()
		open, end := "<"+ns+`parameter name="`, "</"+ns+"parameter>"
		for {
			i := strings.Index(body, open)
			if i < 0 {
				break
			}
			key, rest, _ := strings.Cut(body[i+len(open):], `"`)
			rest, ok := strings.CutPrefix(strings.TrimLeft(rest, " \t"), ">")
			if !ok {
				return nil, true // a registered tool, a parameter tag broken
			}
			var value string
			value, body, _ = strings.Cut(rest, end)
			args.Set(key, value) // raw text, typed by the schema (pairs)
		}
		calls = append(calls, api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: args}})
	}
}

// parseInvokeBlock returns a parser for invoke XML after open, up to end.
func parseInvokeBlock(end string) func(string, func(string) bool) ([]api.ToolCall, bool) {
	return func(after string, known func(string) bool) ([]api.ToolCall, bool) {
		block, _, _ := strings.Cut(after, end)
		return invokeCalls(block, known)
	}
}

// cohereCalls reads Cohere's action list: [{"tool_call_id": …,
// "tool_name": NAME, "parameters": {…}}, …].
func cohereCalls(block string, known func(string) bool) ([]api.ToolCall, bool) {
	var actions []struct {
		Name       string          `json:"tool_name"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if json.Unmarshal([]byte(block), &actions) != nil {
		return nil, anyKnown(cohereName, block, known) // a registered tool in a broken list
	}
	var calls []api.ToolCall
	for _, a := range actions {
		if !known(a.Name) {
			return nil, false
		}
		fa, ok := arguments(a.Parameters)
		if !ok {
			return nil, true
		}
		calls = append(calls, api.ToolCall{Function: api.ToolCallFunction{Name: a.Name, Arguments: fa}})
	}
	return calls, false
}

// cohereName finds the tool names of a broken action list.
var cohereName = regexp.MustCompile(`"tool_name"\s*:\s*"([^"]+)"`)

// seedParameter is a Seed-OSS parameter: its template writes the value
// right after the tag, so a value's own line breaks are kept.
var seedParameter = regexp.MustCompile(`(?s)<parameter=([^>\s]+)>(.*?)</parameter>`)

// seedCall reads one Seed-OSS block: <function=NAME><parameter=K>V….
func seedCall(block string, known func(string) bool) ([]api.ToolCall, bool) {
	return xmlCallWith(seedParameter, block, known)
}

const (
	kimiCallOpen = "<|tool_call_begin|>"
	kimiArgs     = "<|tool_call_argument_begin|>"
)

// parseKimi reads Kimi K2's calls after <|tool_calls_section_begin|>.
func parseKimi(after string, known func(string) bool) ([]api.ToolCall, bool) {
	body, ok := strings.CutPrefix(strings.TrimLeftFunc(after, unicode.IsSpace), kimiCallOpen)
	if !ok {
		return nil, false
	}
	return tagged(kimiCallOpen, "<|tool_call_end|>", kimiCall)(body, known)
}

// kimiCall reads one Kimi K2 call: functions.NAME:INDEX, its arguments'
// JSON after <|tool_call_argument_begin|>.
func kimiCall(block string, known func(string) bool) ([]api.ToolCall, bool) {
	id, args, ok := strings.Cut(block, kimiArgs)
	id = strings.TrimPrefix(strings.TrimSpace(id), "functions.")
	if i := strings.LastIndexByte(id, ':'); i >= 0 {
		id = id[:i]
	}
	if !known(id) {
		return nil, false
	}
	fa, good := arguments(json.RawMessage(strings.TrimSpace(args)))
	if !ok || !good {
		return nil, true
	}
	return []api.ToolCall{{Function: api.ToolCallFunction{Name: id, Arguments: fa}}}, false
}

// internLMCall reads one InternLM 2 or 3 call: <|plugin|> and the call's
// JSON ({"name": …, "parameters": …}), as its chat format documents
// (InternLM/InternLM chat/chat_format.md). A block for its code
// interpreter (<|interpreter|> and a fenced program) names no tool here.
func internLMCall(block string, known func(string) bool) ([]api.ToolCall, bool) {
	body, ok := strings.CutPrefix(block, "<|plugin|>")
	if !ok {
		return nil, false
	}
	return jsonCalls(strings.TrimSpace(body), known, false)
}
