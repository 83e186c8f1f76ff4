package hooks

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/internal/jsonplain"
)

// answer is what a tool-call hook that exited 0 said on stdout.
type answer struct {
	verdict  approval.HookVerdict // PreToolCall's
	reason   string
	feedback string // for the model (PostToolCall)
	notice   string // for the user (Claude Code's systemMessage)
}

// reply is a hook's JSON answer: Shrimp's form ({"decision": "deny" |
// "ask" | "allow", "reason": …}) and Claude Code's (its older
// {"decision": "block"}, its hookSpecificOutput.permissionDecision, and
// "continue": false), so a hook written for Claude Code keeps its
// meaning here instead of being read as a yes.
type reply struct {
	Decision   string `json:"decision"`
	Reason     string `json:"reason"`
	Feedback   string `json:"feedback"`
	Continue   *bool  `json:"continue"`
	StopReason string `json:"stopReason"`
	Notice     string `json:"systemMessage"`
	Specific   struct {
		Decision string          `json:"permissionDecision"`
		Reason   string          `json:"permissionDecisionReason"`
		Context  string          `json:"additionalContext"`
		Updated  json.RawMessage `json:"updatedInput"`
		// Gemini CLI's: arguments merged over the call's (a rewrite), and
		// text to stand for a call's result.
		Rewritten json.RawMessage `json:"tool_input"`
		Output    string          `json:"tool_output"`
		// Claude Code's PostToolUse: what the model reads in place of an
		// MCP tool's result, or of any tool's.
		UpdatedMCP    json.RawMessage `json:"updatedMCPToolOutput"`
		UpdatedOutput json.RawMessage `json:"updatedToolOutput"`
	} `json:"hookSpecificOutput"`
	// Cursor's: allow, deny or ask; the reason the agent reads and the
	// message the user is shown; a rewrite of a call (preToolUse); what
	// the agent is sent next (stop); and context for it (postToolUse,
	// sessionStart).
	Permission   string          `json:"permission"`
	AgentMessage string          `json:"agent_message"`
	UserMessage  string          `json:"user_message"`
	UpdatedInput json.RawMessage `json:"updated_input"`
	Followup     string          `json:"followup_message"`
	Context      string          `json:"additional_context"`
}

// maxTries bounds how many lines of stdout are tried as the start of an
// answer.
const maxTries = 20

// readAnswer reads a hook's stdout: its answer is the last JSON object
// that starts a line, alone or among lines the hook logged, on one line
// or printed over several (jq's way). Plain text is no answer
// (HookPass). What looks like an answer but is not one, or a decision it
// does not know, denies: the hook meant something, and a guard that is
// misread must fail closed.
func readAnswer(stdout string) answer {
	return answerOf(lastReply(stdout))
}

// answerOf is readAnswer of a reply lastReply found (found), or of the
// line that began like one (looked) when it found none.
func answerOf(r reply, found bool, looked string) answer {
	if !found {
		if looked != "" {
			return answer{verdict: approval.HookDeny, reason: fmt.Sprintf("its answer on stdout is not a JSON answer (%s), so the call is denied", cut(looked))}
		}
		return answer{}
	}
	reason := firstOf(r.Specific.Reason, r.Reason, r.StopReason, r.AgentMessage, r.UserMessage, "no reason given")
	verdict := approval.HookPass
	for _, word := range []string{r.Decision, r.Specific.Decision, r.Permission} {
		switch w := strings.ToLower(strings.TrimSpace(word)); w {
		case "", "allow", "approve", "defer":
		case "ask":
			verdict = max(verdict, approval.HookAsk)
		case "deny", "block":
			verdict = approval.HookDeny
		default:
			return answer{verdict: approval.HookDeny, reason: fmt.Sprintf("it answered %q, which is not deny, ask or allow, so the call is denied", cut(word))}
		}
	}
	if r.Continue != nil && !*r.Continue {
		verdict = approval.HookDeny
	}
	// Claude Code lets a hook rewrite a call (updatedInput); here what
	// runs is what the model asked and the user is shown, so a hook
	// that meant another call gets none rather than the one it replaced.
	for _, u := range []struct {
		name  string
		value json.RawMessage
	}{{"updatedInput", r.Specific.Updated}, {"tool_input", r.Specific.Rewritten}, {"updated_input", r.UpdatedInput}} {
		if _, ok := given(u.value); ok {
			return answer{verdict: approval.HookDeny, reason: fmt.Sprintf("it changed the call's arguments (%s), which Shrimp does not let a hook do, so the call is denied rather than run as the hook did not mean", u.name), notice: firstOf(r.Notice, r.UserMessage)}
		}
	}
	// After a call, Claude Code gives the model a "block" decision's
	// reason, and additionalContext (Gemini CLI's tool_output:
	// PostToolCall).
	feedback := firstOf(r.Feedback, r.Specific.Context, r.Context)
	if verdict == approval.HookDeny && feedback == "" && reason != "no reason given" {
		feedback = reason
	}
	return answer{verdict, reason, feedback, firstOf(r.Notice, r.UserMessage)}
}

// lastReply finds a hook's JSON answer on stdout (readAnswer): found
// says whether there is one; looked is the first line that began like
// one, when none was.
func lastReply(stdout string) (r reply, found bool, looked string) {
	out := strings.TrimSpace(stdout)
	tries := 0
	for end := len(out); end >= 0 && tries < maxTries && !found; end-- {
		start := strings.LastIndexByte(out[:end], '\n') + 1
		if line := strings.TrimSpace(out[start:end]); strings.HasPrefix(line, "{") {
			tries++
			looked = cmp.Or(looked, line)
			r = reply{}
			found = json.NewDecoder(strings.NewReader(out[start:])).Decode(&r) == nil
		}
		end = start
	}
	return r, found, looked
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// cut shortens what a hook wrote for a message.
func cut(s string) string {
	const most = 200
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > most {
		return string(r[:most]) + "…"
	}
	return s
}

// eventPayload is an event as an observing hook reads it on stdin: every
// string in it, the arguments inside included, with &, < and > as they
// are (jsonplain), so a hook grepping for "&&" or "> /etc" finds them.
func eventPayload(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonplain.Canonical(b, "")
}

// replacement is the text a Claude Code PostToolUse answer puts in place
// of a call's result (updatedToolOutput, or updatedMCPToolOutput for an
// MCP tool), as a string or, if it is not one, its JSON; ok is false
// when it replaces nothing.
func (r reply) replacement(tool string) (text string, ok bool) {
	values := []json.RawMessage{r.Specific.UpdatedOutput}
	if strings.HasPrefix(tool, "mcp.") {
		values = append(values, r.Specific.UpdatedMCP)
	}
	for _, v := range values {
		v, ok := given(v)
		if !ok {
			continue
		}
		if json.Unmarshal(v, &text) != nil {
			text = string(v)
		}
		return text, true
	}
	return "", false
}

// given is a JSON value an answer holds, spaces trimmed; ok is false when
// it holds none (absent, or null).
func given(v json.RawMessage) (json.RawMessage, bool) {
	v = bytes.TrimSpace(v)
	return v, len(v) > 0 && !bytes.Equal(v, []byte("null"))
}
