package model

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/ollama/ollama/api"
)

// Markers that start a tool call written into the text.
var markers = []string{"<tool_call>", "```"}

var (
	tagged = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*(?:</tool_call>|$)`)
	fenced = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*\\n?(.*?)```")
)

// rawCall is one tool call in any of the shapes local models write.
type rawCall struct {
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Parameters json.RawMessage `json:"parameters"`
	Function   *rawCall        `json:"function"`
}

// ParseToolCalls finds tool calls that a model wrote into its text instead
// of using native tool calls: JSON in the content ({"name": …,
// "arguments": …}, or a list of them), in a code fence, or between
// <tool_call> tags. It reports attempted when the text looked like a tool
// call (tags, or JSON with a "name") even if it could not be parsed; such
// an attempt with no calls is a malformed call.
func ParseToolCalls(text string) (calls []api.ToolCall, attempted bool) {
	trimmed := strings.TrimSpace(text)
	var candidates []string
	if m := tagged.FindAllStringSubmatch(trimmed, -1); len(m) > 0 {
		attempted = true
		for _, g := range m {
			candidates = append(candidates, g[1])
		}
	} else if m := fenced.FindAllStringSubmatch(trimmed, -1); len(m) > 0 {
		for _, g := range m {
			candidates = append(candidates, g[1])
		}
	} else if strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[") {
		candidates = append(candidates, trimmed)
	}
	for _, c := range candidates {
		got, looked := parseCandidate(c)
		attempted = attempted || looked
		if looked && len(got) == 0 {
			return nil, true // one bad call spoils the set: report it as malformed
		}
		calls = append(calls, got...)
	}
	return calls, attempted
}

// parseCandidate parses one JSON text as a call or a list of calls.
func parseCandidate(s string) (calls []api.ToolCall, looked bool) {
	s = strings.TrimSpace(s)
	looked = strings.Contains(s, `"name"`)
	var list []rawCall
	if strings.HasPrefix(s, "[") {
		if err := json.Unmarshal([]byte(s), &list); err != nil {
			return nil, looked
		}
	} else {
		var one rawCall
		if err := json.Unmarshal([]byte(s), &one); err != nil {
			return nil, looked
		}
		list = []rawCall{one}
	}
	for _, rc := range list {
		if rc.Function != nil {
			rc = *rc.Function
		}
		if rc.Name == "" {
			return nil, looked
		}
		args := rc.Arguments
		if len(args) == 0 {
			args = rc.Parameters
		}
		// Some models send the arguments as a JSON string holding JSON.
		var str string
		if json.Unmarshal(args, &str) == nil {
			args = json.RawMessage(str)
		}
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		var fa api.ToolCallFunctionArguments
		if err := json.Unmarshal(args, &fa); err != nil {
			return nil, true
		}
		calls = append(calls, api.ToolCall{Function: api.ToolCallFunction{Index: len(calls), Name: rc.Name, Arguments: fa}})
	}
	return calls, true
}

// malformedCall is the call the adapter reports for an attempted but
// unreadable tool call: no name, the raw text as its only argument. The
// registry answers it with the list of tools.
func malformedCall(text string) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	if len(text) > 500 {
		text = text[:500]
	}
	args.Set("raw", text)
	return api.ToolCall{Function: api.ToolCallFunction{Name: "", Arguments: args}}
}

// holdBack splits s into what may be shown now and a suffix that could be
// the start of a marker, so "<tool_" at the end of a chunk is not shown
// before the next chunk says whether it is a tool call.
func holdBack(s string) (show, keep string) {
	for k := min(len(s), len("<tool_call>")-1); k > 0; k-- {
		suffix := s[len(s)-k:]
		for _, m := range markers {
			if strings.HasPrefix(m, suffix) {
				return s[:len(s)-k], suffix
			}
		}
	}
	return s, ""
}
