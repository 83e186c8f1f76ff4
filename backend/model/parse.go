package model

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"unicode"

	"github.com/ollama/ollama/api"
)

// Text tool calls.
//
// A model whose native tool calling failed (Ollama did not recognise its
// output) writes the call into its text. Only the forms real local models
// use are read as calls, and only when they name a registered tool;
// everything else, code blocks and JSON examples included, is answer text.
// The forms, with where each comes from, are the corpus in
// testdata/textcalls.json:
//
//   - Qwen 2.5/3, Hermes, Nous: <tool_call>{"name": …, "arguments": …}</tool_call>,
//     Qwen3-Coder's <tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>
//     and GLM-4.5's <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>;
//   - Llama 3.1–3.3: <|python_tag|> followed by call JSON, or call JSON
//     ({"name": …, "parameters": …}) that is the whole message;
//     Llama 3.2 (1B/3B) and Llama 4: a Python-style list [name(k=v), …]
//     that is the whole message;
//   - Mistral: [TOOL_CALLS] [{"name": …, "arguments": …}] (tokenizer v3) or
//     [TOOL_CALLS]name[ARGS]{…} (v11 and later);
//   - Granite 3, Phi-4-mini: <|tool_call|>[{"name": …, "arguments": …}];
//   - DeepSeek V3/R1: <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME ```json {…}``` <｜tool▁call▁end｜>;
//   - Gemma 3: a ```tool_code fence holding name(k=v);
//   - Gemma 4, FunctionGemma, LFM2, OLMo 3, MiniMax-M2 and other
//     Claude-style invoke XML, Cohere Command, Seed-OSS, Kimi K2,
//     InternLM 2 and 3: callforms.go;
//   - any family: a message that is nothing but one fenced JSON call.
//
// Values are read as the JSON or Python literals they are, not cut at the
// first closing tag, fence or ";": a call that writes a README with code
// fences, C with "};", HTML with </s> or notes about <tool_call> tags is
// read whole (forms_test.go generates such calls in every form). Only the
// forms whose values are raw text (Qwen3-Coder's, GLM's) cannot hold
// their own tags.

// marker is a token that starts a text tool call wherever it appears.
type marker struct {
	open  string
	parse func(after string, known func(string) bool) (calls []api.ToolCall, attempted bool)
}

var markers = []marker{
	{"<tool_call>", parseTagged},
	{"<|python_tag|>", parsePythonTag},
	{"[TOOL_CALLS]", parseMistral},
	{"<|tool_call|>", parseGranite},
	{"<｜tool▁calls▁begin｜>", parseDeepSeek},
	{"<｜tool▁call▁begin｜>", parseDeepSeek},
	{"```tool_code", parseToolCode},
	{"<|tool_call>", tagged("<|tool_call>", "<tool_call|>", gemmaCall(`<|"|>`))},
	{"<start_function_call>", tagged("<start_function_call>", "<end_function_call>", gemmaCall("<escape>"))},
	{"<|tool_call_start|>", tagged("<|tool_call_start|>", "<|tool_call_end|>", lfm2Calls)},
	{"<function_calls>", parseFunctionCalls},
	{"<minimax:tool_call>", parseInvokeBlock("</minimax:tool_call>")},
	{"<atem:function_calls>", parseInvokeBlock("</atem:function_calls>")},
	{"<|START_ACTION|>", tagged("<|START_ACTION|>", "<|END_ACTION|>", cohereCalls)},
	{"<seed:tool_call>", tagged("<seed:tool_call>", "</seed:tool_call>", seedCall)},
	{"<|tool_calls_section_begin|>", parseKimi},
	{"<|action_start|>", tagged("<|action_start|>", "<|action_end|>", internLMCall)},
}

// opensMarker holds the bytes a marker starts with.
var opensMarker = func() (b [256]bool) {
	for _, m := range markers {
		b[m.open[0]] = true
	}
	return b
}()

// longestMarker is the length of the longest marker: a chunk's last
// longestMarker-1 bytes may be the start of one.
var longestMarker = func() int {
	n := 0
	for _, m := range markers {
		n = max(n, len(m.open))
	}
	return n
}()

// ParseToolCalls finds the tool calls a model wrote into text, in the forms
// listed above, naming tools known reports as registered. attempted means
// the text held a call form naming a registered tool whose arguments could
// not be read: a malformed call the model should be told about. Text that
// is neither is an answer.
func ParseToolCalls(text string, known func(string) bool) (calls []api.ToolCall, attempted bool) {
	// A message that is one call as a whole is read as that first: its
	// strings may hold any marker (a file about tool calls).
	if calls, _ := wholeMessage(strings.TrimSpace(text), known); len(calls) > 0 {
		return calls, false
	}
	if i, m := firstMarker(text); m != nil {
		calls, attempted = m.parse(text[i+len(m.open):], known)
		if len(calls) > 0 || attempted {
			return index(calls), attempted
		}
	}
	return wholeMessage(strings.TrimSpace(text), known)
}

// firstMarker returns the earliest marker in text and its position. A
// marker quoted as code (right after a backtick, or inside a fenced block)
// is an example in an answer, not a call.
func firstMarker(text string) (int, *marker) { return firstMarkerAfter(text, codeState{}) }

// codeState is what came before a text, as far as code quoting goes: how
// many fences ("```", counted left to right without overlap) were seen,
// the backticks since the last one, and the last byte.
type codeState struct {
	fences int
	run    int
	last   byte
}

// advance returns the state after text.
func (c codeState) advance(text string) codeState {
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			c.run++
			if c.run == 3 {
				c.fences++
				c.run = 0
			}
		} else {
			c.run = 0
		}
		c.last = text[i]
	}
	return c
}

// firstMarkerAfter is firstMarker for a text that follows what prior
// describes (the part of a streamed answer already shown).
func firstMarkerAfter(text string, prior codeState) (int, *marker) {
	best, at := -1, (*marker)(nil)
	for k := range markers {
		from := 0
		for {
			i := strings.Index(text[from:], markers[k].open)
			if i < 0 {
				break
			}
			i += from
			if !quoted(text, i, prior) {
				if best < 0 || i < best {
					best, at = i, &markers[k]
				}
				break
			}
			from = i + len(markers[k].open)
		}
	}
	return best, at
}

// quoted reports whether position i of text is inside inline code or a
// fenced block.
func quoted(text string, i int, prior codeState) bool {
	before := prior.last
	if i > 0 {
		before = text[i-1]
	}
	if before == '`' && !strings.HasPrefix(text[i:], "```") {
		return true
	}
	return prior.advance(text[:i]).fences%2 == 1
}

func index(calls []api.ToolCall) []api.ToolCall {
	for i := range calls {
		calls[i].Function.Index = i
	}
	return calls
}

// wholeMessage reads a message that is nothing but a call: JSON, one JSON
// fence, or a Python-style list.
func wholeMessage(t string, known func(string) bool) ([]api.ToolCall, bool) {
	if len(t) > 1 && strings.HasPrefix(t[1:], joiner) {
		return nil, false // it opens with a control token's text escaped: copied from what the model read ("[", a word joiner, "TOOL_CALLS] [{…}]")
	}
	if m := soleFence.FindStringSubmatch(t); m != nil {
		t = strings.TrimSpace(m[1])
	}
	switch {
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["):
		if calls, attempted := jsonCalls(t, known, true); len(calls) > 0 || attempted {
			return index(calls), attempted
		}
		if strings.HasPrefix(t, "[") {
			return pythonCalls(t, known, true)
		}
	}
	return nil, false
}

// soleFence matches a message that is one fenced block and nothing else.
var soleFence = regexp.MustCompile("(?s)^```(?:json|JSON|tool_call)?[ \t]*\n(.*?)\n?```$")

// callKeys are the keys a call object may have; an object with any other
// key is data, not a call ({"name": "Alice", "age": 30}).
var callKeys = map[string]bool{"name": true, "arguments": true, "parameters": true, "type": true, "id": true, "function": true}

// jsonCalls reads one call object, a list of them, or (in a tagged form)
// several objects in a row. strict (the whole-message form) refuses
// objects with keys a call does not have.
func jsonCalls(s string, known func(string) bool, strict bool) (calls []api.ToolCall, attempted bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	var values []json.RawMessage
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		values = append(values, v)
	}
	rest := strings.TrimSpace(s[min(int(dec.InputOffset()), len(s)):])
	switch {
	case len(values) == 0:
		// Not JSON: a registered name in a broken call object is an attempt.
		return nil, strings.Contains(s, `"name"`) && namesKnown(s, known)
	case strict && (rest != "" || len(values) > 1):
		return nil, false // JSON with prose after it: an answer
	}
	var objs []json.RawMessage
	for _, v := range values {
		if bytes.HasPrefix(bytes.TrimSpace(v), []byte("[")) {
			var list []json.RawMessage
			if json.Unmarshal(v, &list) != nil {
				return nil, false
			}
			objs = append(objs, list...)
		} else {
			objs = append(objs, v)
		}
	}
	for _, o := range objs {
		c, ok, bad := jsonCall(o, known, strict)
		if bad {
			return nil, true
		}
		if !ok {
			return nil, false
		}
		calls = append(calls, c)
	}
	return calls, false
}

// quotedName finds the values of "name" keys in broken JSON.
var quotedName = regexp.MustCompile(`"name"\s*:\s*"([^"]+)"`)

func namesKnown(s string, known func(string) bool) bool { return anyKnown(quotedName, s, known) }

// anyKnown reports whether a name re finds in s (its first group) is a
// registered tool's.
func anyKnown(re *regexp.Regexp, s string, known func(string) bool) bool {
	for _, g := range re.FindAllStringSubmatch(s, -1) {
		if known(g[1]) {
			return true
		}
	}
	return false
}

// jsonCall reads one call object. ok is false when it is not a call to a
// registered tool; bad when it is one whose arguments are unreadable.
func jsonCall(raw json.RawMessage, known func(string) bool, strict bool) (c api.ToolCall, ok, bad bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return c, false, false
	}
	if fn, has := fields["function"]; has {
		if json.Unmarshal(fn, &fields) != nil {
			return c, false, false
		}
	}
	for k := range fields {
		if strict && !callKeys[k] {
			return c, false, false
		}
	}
	var name string
	if json.Unmarshal(fields["name"], &name) != nil || !known(name) {
		return c, false, false
	}
	args := fields["arguments"]
	if len(args) == 0 {
		args = fields["parameters"]
	}
	fa, good := arguments(args)
	if !good {
		return c, false, true
	}
	return api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: fa}}, true, false
}

// arguments reads a call's arguments: an object, a JSON string holding
// one, or nothing.
func arguments(args json.RawMessage) (api.ToolCallFunctionArguments, bool) {
	var str string
	if json.Unmarshal(args, &str) == nil {
		args = json.RawMessage(str)
	}
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		args = json.RawMessage("{}")
	}
	if !bytes.HasPrefix(bytes.TrimSpace(args), []byte("{")) {
		return api.ToolCallFunctionArguments{}, false
	}
	var fa api.ToolCallFunctionArguments
	if err := json.Unmarshal(args, &fa); err != nil {
		return fa, false
	}
	return fa, true
}

// parseTagged reads Hermes/Qwen <tool_call> blocks (JSON, Qwen3-Coder's
// <function=…> or GLM's <arg_key>), from after the first opening tag. A
// JSON block is read as JSON, so its strings may hold the tags.
func parseTagged(after string, known func(string) bool) ([]api.ToolCall, bool) {
	var calls []api.ToolCall
	attempted := false
	for rest, more := after, true; more; {
		var block string
		trimmed := strings.TrimLeftFunc(rest, unicode.IsSpace)
		if n := jsonPrefix(trimmed); n > 0 {
			block = trimmed[:n]
			rest = strings.TrimLeftFunc(trimmed[n:], unicode.IsSpace)
			rest = strings.TrimPrefix(rest, "</tool_call>")
			_, rest, more = strings.Cut(rest, "<tool_call>")
		} else {
			block, rest, more = strings.Cut(rest, "<tool_call>")
			block, _, _ = strings.Cut(block, "</tool_call>")
		}
		block = strings.TrimSpace(block)
		var got []api.ToolCall
		var bad bool
		switch {
		case strings.HasPrefix(block, "{") || strings.HasPrefix(block, "["):
			got, bad = jsonCalls(block, known, false)
		case strings.HasPrefix(block, "<function="):
			got, bad = xmlCall(block, known)
		default:
			got, bad = glmCall(block, known)
		}
		attempted = attempted || bad
		calls = append(calls, got...)
	}
	if attempted {
		return nil, true
	}
	return calls, false
}

// jsonPrefix returns the length of the JSON object or list s starts with,
// 0 when it starts with none.
func jsonPrefix(s string) int {
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return 0
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return 0
	}
	return int(dec.InputOffset())
}

// jsonSequence returns the JSON values s holds one after another,
// separated by blanks or sep; reading stops at the first text that is not
// a value.
func jsonSequence(s string, sep byte) (values []json.RawMessage) {
	for {
		s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || (sep != 0 && r == rune(sep)) })
		n := jsonPrefix(s)
		if n == 0 {
			return values
		}
		values = append(values, json.RawMessage(s[:n]))
		s = s[n:]
	}
}

var (
	xmlFunction  = regexp.MustCompile(`(?s)^<function=([^>\s]+)>(.*?)(?:</function>|$)`)
	xmlParameter = regexp.MustCompile(`(?s)<parameter=([^>\s]+)>\n?(.*?)\n?</parameter>`)
	glmArg       = regexp.MustCompile(`(?s)<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)</arg_value>`)
)

// xmlCall reads Qwen3-Coder's <function=NAME><parameter=K>V</parameter>,
// its template's line breaks around each value left out.
func xmlCall(block string, known func(string) bool) ([]api.ToolCall, bool) {
	return xmlCallWith(xmlParameter, block, known)
}

// xmlCallWith reads <function=NAME> with params finding its parameters.
func xmlCallWith(params *regexp.Regexp, block string, known func(string) bool) ([]api.ToolCall, bool) {
	m := xmlFunction.FindStringSubmatch(block)
	if m == nil || !known(m[1]) {
		return nil, false
	}
	return []api.ToolCall{{Function: api.ToolCallFunction{Name: m[1], Arguments: pairs(params.FindAllStringSubmatch(m[2], -1))}}}, false
}

// glmCall reads GLM-4.5's NAME<arg_key>K</arg_key><arg_value>V</arg_value>.
func glmCall(block string, known func(string) bool) ([]api.ToolCall, bool) {
	name, rest, _ := strings.Cut(block, "<arg_key>")
	name = strings.TrimSpace(name)
	if !known(name) {
		return nil, false
	}
	return []api.ToolCall{{Function: api.ToolCallFunction{Name: name, Arguments: pairs(glmArg.FindAllStringSubmatch("<arg_key>"+rest, -1))}}}, false
}

// pairs turns key/value matches into arguments, each value the text as
// written. These forms write every value as raw text, so what type it is
// is the tool's schema's to say (tool.Registry.Mend makes "10" a number
// where the schema asks for one, as Ollama's parsers for these forms do
// by the tools' schemas): read here as JSON, a file's content "[1, 2]"
// became a list, written back as "[\n  1,\n  2\n]\n".
func pairs(m [][]string) api.ToolCallFunctionArguments {
	args := api.NewToolCallFunctionArguments()
	for _, g := range m {
		args.Set(g[1], g[2])
	}
	return args
}

// rawValue reads a bare value (Gemma's, unquoted): JSON other than a
// string (a number, true, a list) as that, anything else as the text.
func rawValue(raw string) any {
	var parsed any
	if json.Unmarshal([]byte(strings.TrimSpace(raw)), &parsed) == nil {
		if _, isString := parsed.(string); !isString {
			return parsed
		}
	}
	return raw
}

// llamaEnds are the end tokens a Llama call may run into.
var llamaEnds = []string{"<|eom_id|>", "<|eot_id|>"}

// parsePythonTag reads Llama 3.x's <|python_tag|>: call JSON (several
// separated by ";") or Python-style calls.
func parsePythonTag(after string, known func(string) bool) ([]api.ToolCall, bool) {
	for _, e := range llamaEnds {
		after, _, _ = strings.Cut(after, e)
	}
	after = strings.TrimSpace(after)
	if strings.HasPrefix(after, "{") || strings.HasPrefix(after, "[{") {
		// Several calls are separated by ";", outside their strings.
		values := jsonSequence(after, ';')
		if len(values) == 0 {
			return jsonCalls(after, known, false) // says whether it was an attempt
		}
		var b strings.Builder
		for _, v := range values {
			b.Write(v)
			b.WriteByte('\n')
		}
		return jsonCalls(b.String(), known, false)
	}
	return pythonCalls(after, known, false)
}

var mistralV11 = regexp.MustCompile(`(?s)^\s*([A-Za-z_][\w.\-]*)\s*(?:\[CALL_ID\]\s*\w+\s*)?(?:\[ARGS\])?\s*(\{.*)$`)

// parseMistral reads [TOOL_CALLS] followed by a JSON list (v3) or by
// name[ARGS]{…} (v11 and later, several separated by [TOOL_CALLS]).
func parseMistral(after string, known func(string) bool) ([]api.ToolCall, bool) {
	// The end token </s> may follow; the JSON is read up to its end, so
	// its strings may hold "</s>" (HTML's strike-through).
	t := strings.TrimSpace(after)
	if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
		return jsonCalls(t, known, false)
	}
	var calls []api.ToolCall
	for _, part := range strings.Split(after, "[TOOL_CALLS]") {
		m := mistralV11.FindStringSubmatch(part)
		if m == nil || !known(m[1]) {
			return nil, false
		}
		dec := json.NewDecoder(strings.NewReader(m[2]))
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil, true
		}
		fa, ok := arguments(raw)
		if !ok {
			return nil, true
		}
		calls = append(calls, api.ToolCall{Function: api.ToolCallFunction{Name: m[1], Arguments: fa}})
	}
	return calls, false
}

// parseGranite reads <|tool_call|>[…] (Granite 3, Phi-4-mini's
// <|tool_call|>…<|/tool_call|>).
func parseGranite(after string, known func(string) bool) ([]api.ToolCall, bool) {
	after, _, _ = strings.Cut(after, "<|/tool_call|>")
	after, _, _ = strings.Cut(after, "<|end_of_text|>")
	return jsonCalls(strings.TrimSpace(after), known, false)
}

var deepSeekCall = regexp.MustCompile("(?s)<｜tool▁call▁begin｜>\\s*(?:function\\s*<｜tool▁sep｜>\\s*)?([^<\\s]+?)\\s*(?:<｜tool▁sep｜>)?\\s*(?:```(?:json)?\\s*)?(\\{.*?\\})\\s*(?:```)?\\s*<｜tool▁call▁end｜>")

// parseDeepSeek reads DeepSeek V3/R1 calls (and V3.1's NAME<｜tool▁sep｜>{…}).
func parseDeepSeek(after string, known func(string) bool) ([]api.ToolCall, bool) {
	m := deepSeekCall.FindAllStringSubmatch("<｜tool▁call▁begin｜>"+after, -1)
	var calls []api.ToolCall
	for _, g := range m {
		if !known(g[1]) {
			return nil, false
		}
		fa, ok := arguments(json.RawMessage(g[2]))
		if !ok {
			return nil, true
		}
		calls = append(calls, api.ToolCall{Function: api.ToolCallFunction{Name: g[1], Arguments: fa}})
	}
	return calls, false
}

// parseToolCode reads Gemma's ```tool_code fence: name(k=v), perhaps
// wrapped in print(…).
func parseToolCode(after string, known func(string) bool) ([]api.ToolCall, bool) {
	body := strings.TrimSpace(after)
	// The fence ends after the calls, read as Python: their strings may
	// hold fences (a README's code).
	if calls, attempted, n := pythonCallsPrefix(body, known); len(calls) > 0 || attempted {
		if rest := strings.TrimSpace(body[n:]); attempted || strings.HasPrefix(rest, "```") || rest == "" {
			return calls, attempted
		}
	}
	body, _, _ = strings.Cut(body, "```")
	body = strings.TrimSpace(body)
	if inner, ok := strings.CutPrefix(body, "print("); ok && strings.HasSuffix(inner, ")") {
		body = strings.TrimSuffix(inner, ")")
	}
	return pythonCalls(body, known, false)
}
