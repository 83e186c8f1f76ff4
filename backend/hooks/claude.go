package hooks

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/ollama/ollama/api"
	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/tool"
)

// Claude Code's hooks run here as written for it. A hook imported from
// its settings.json keeps the Claude Code event it was written for
// (Hook.Claude) and reads what Claude Code would give it: its tool names
// (Bash, Write, mcp__github__create_issue), its argument names (file_path,
// old_string), absolute paths, session_id, cwd and hook_event_name, and
// CLAUDE_PROJECT_DIR in its environment. Its matcher is Claude Code's
// (a name, names joined by |, or a regular expression), and an exit
// status other than 0 and 2 is, as there, an error that does not block.
// What a hook can decide does not change: it can tighten the approval
// mode, never loosen it. claude.json holds the names.
//
// Gemini CLI's hooks have the same shape and nearly the same meaning
// under other names (BeforeTool for PreToolUse, run_shell_command for
// Bash): a hook imported from its settings.json (Hook.Gemini) runs the
// same way with gemini.json's names, and reads Gemini CLI's input
// (geminiForm).
//
// Cursor's hooks (its hooks.json) have another shape, a list of commands
// per event, and events that are each about one kind of tool
// (beforeShellExecution, afterFileEdit) beside its generic preToolUse: a
// hook imported from it (Hook.Cursor) runs on Shrimp's events by
// cursor.json, reads Cursor's input for its event (cursorForm) and
// answers as there (permission, agent_message, followup_message).

//go:embed claude.json
var claudeJSON []byte

//go:embed gemini.json
var geminiJSON []byte

//go:embed cursor.json
var cursorJSON []byte

// claudeEvent is how one Claude Code event is run here.
type claudeEvent struct {
	Shrimp  []string `json:"shrimp"`  // the events it runs on
	Matcher string   `json:"matcher"` // what its matcher selects: "tool", "notification", "source" (Sources) or nothing
	When    string   `json:"when"`    // "succeeded", "failed" or "" (always)
	Prompts bool     `json:"prompts"` // its "prompt" hooks are imported (asked of the request's model)
	// Formerly are the events an older Shrimp imported it on: a hook
	// still on one is read as on the first of Shrimp (upgraded).
	Formerly []string `json:"formerly"`
	// Only are the Shrimp tools (path.Match patterns) its hooks run for,
	// when the event is about one kind of tool (Cursor's
	// beforeShellExecution); none is every tool its matcher selects.
	Only []string `json:"only"`
	// Observe says its hooks' answers are not read: they run at the
	// moment and stop, add or send back nothing (Cursor's afterFileEdit).
	Observe bool `json:"observe"`
}

// upgraded is h as this Shrimp runs it: a Claude Code hook an older
// Shrimp imported on an event it no longer runs it on (a Stop hook
// observing agent:run-ended, before Stop hooks could send the model
// back) moves to the one it runs on now.
func (h Hook) upgraded() Hook {
	if ev, ok := h.table().Events[h.Claude]; ok && h.Claude != "" && len(ev.Shrimp) > 0 && slices.Contains(ev.Formerly, h.Event) {
		h.Event = ev.Shrimp[0]
	}
	return h
}

// claudeTool is a Shrimp tool as Claude Code's hooks see it.
type claudeTool struct {
	Name  string            `json:"name"`
	Args  map[string]string `json:"args"`  // Shrimp's argument name → Claude Code's
	Paths []string          `json:"paths"` // arguments (Claude Code's names) that are paths
	// Commentary are the agent's arguments that say why, for its user (a
	// command's description), which Shrimp's tool has no counterpart of.
	Commentary []string `json:"commentary"`
	// Scale is what the number of an argument (the agent's name) is
	// multiplied by to be in Shrimp's units (Claude Code's Bash timeout
	// is in milliseconds: 0.001).
	Scale map[string]float64 `json:"scale"`
	// Shift is what is added to an argument's whole number (the agent's
	// name), after Scale, to be in Shrimp's units (Gemini CLI's
	// read_file counts lines from 0, fs.read from 1: 1). A hook sees
	// the agent's units: Shrimp's number less Shift, over Scale.
	Shift map[string]int64 `json:"shift"`
	// Also are other names the agent has given an argument (Shrimp's
	// name → one of the agent's, in another of its versions: Gemini CLI's
	// read_file took path, then file_path): a hook reads the argument
	// under both, and a model's call may give either.
	Also map[string]string `json:"also"`
	// Formerly are names the agent gave the tool in other versions
	// (Gemini CLI's search_file_content, now grep_search): a matcher
	// naming one selects the tool, and a model's call under one is read
	// as the tool's.
	Formerly []string `json:"formerly"`
}

type claudeTable struct {
	Events        map[string]claudeEvent `json:"events"`
	Unsupported   map[string]string      `json:"unsupported"`
	Notifications map[string]string      `json:"notifications"` // Shrimp event → notification_type
	Tools         map[string]claudeTool  `json:"tools"`
	// MCP is how the agent names an MCP tool, a format given the server
	// and the tool ("" is Claude Code's mcp__SERVER__TOOL).
	MCP string `json:"mcp"`
}

// promptEvents are the Claude Code events whose "prompt" hooks are
// imported, in order.
func (t claudeTable) promptEvents() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(t.Events)) {
		if t.Events[name].Prompts {
			out = append(out, name)
		}
	}
	return out
}

func loadTable(b []byte, name string) claudeTable {
	var t claudeTable
	if err := json.Unmarshal(b, &t); err != nil {
		panic("hooks: " + name + ": " + err.Error())
	}
	return t
}

var (
	claude = sync.OnceValue(func() claudeTable { return loadTable(claudeJSON, "claude.json") })
	gemini = sync.OnceValue(func() claudeTable { return loadTable(geminiJSON, "gemini.json") })
	cursor = sync.OnceValue(func() claudeTable { return loadTable(cursorJSON, "cursor.json") })
)

// table is the names the hook's agent gives events and tools: Gemini
// CLI's or Cursor's for a hook imported from it, else Claude Code's
// (Codex uses those).
func (h Hook) table() claudeTable {
	switch {
	case h.Gemini:
		return gemini()
	case h.Cursor:
		return cursor()
	}
	return claude()
}

// event is how the hook's agent's event is run here.
func (h Hook) event() claudeEvent { return h.table().Events[h.Claude] }

// ClaudeToolName is a tool's name as Claude Code's hooks know it: Bash
// for shell.run, Write for fs.write, mcp__SERVER__TOOL for an MCP tool;
// a tool Claude Code has no counterpart of keeps its own name.
func ClaudeToolName(tool string) string { return claude().toolName(tool) }

// OtherTools are other agents' names for Shrimp's built-in tools (Claude
// Code's Bash and Read, Gemini CLI's run_shell_command and read_file,
// Cursor's Shell and StrReplace), with their names for the tools'
// arguments, from the tables hooks are imported with: a model trained on
// one of them may call its tool by that name (qwen-code #2012: "bash"),
// with its arguments (file_path, old_string, a command's description, a
// timeout in milliseconds).
// Where two agents name one argument of a tool differently, each name
// stands for it; one name the tables give two meanings stands for none.
func OtherTools() map[string]tool.Alias {
	out := map[string]tool.Alias{}
	unsure := map[string]bool{} // agent's tool name + " " + argument
	for _, t := range []claudeTable{claude(), gemini(), cursor()} {
		for own, named := range t.Tools {
			theirs := lo.Invert(named.Args)
			for mine, other := range named.Also {
				theirs[other] = mine
			}
			for _, c := range named.Commentary {
				theirs[c] = ""
			}
			for _, name := range append([]string{named.Name}, named.Formerly...) {
				if name == "" || name == own {
					continue
				}
				a, ok := out[name]
				if ok && a.Tool != own {
					continue // the tables give no name to two tools (TestOtherNames)
				}
				if !ok {
					a = tool.Alias{Tool: own, Args: map[string]string{}}
				}
				a.Scale = merged(a.Scale, named.Scale)
				a.Shift = merged(a.Shift, named.Shift)
				for arg, mine := range theirs {
					if was, seen := a.Args[arg]; seen && was != mine {
						unsure[name+" "+arg] = true
					}
					a.Args[arg] = mine
				}
				out[name] = a
			}
		}
	}
	for key := range unsure {
		name, arg, _ := strings.Cut(key, " ")
		delete(out[name].Args, arg)
	}
	return out
}

// merged is dst with src's entries added (nil while both are empty).
func merged[V any](dst, src map[string]V) map[string]V {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]V, len(src))
	}
	maps.Copy(dst, src)
	return dst
}

// OtherNames are [OtherTools]' names, each to the tool's own.
func OtherNames() map[string]string {
	return lo.MapValues(OtherTools(), func(a tool.Alias, _ string) string { return a.Tool })
}

// toolNames are a tool's name in the table's agent and the names it gave
// it before ([claudeTool].Formerly).
func (t claudeTable) toolNames(tool string) []string {
	return append([]string{t.toolName(tool)}, t.Tools[tool].Formerly...)
}

// toolName is a tool's name in the table's agent (Gemini CLI names MCP
// tools as Claude Code does).
func (t claudeTable) toolName(tool string) string {
	if named, ok := t.Tools[tool]; ok {
		return named.Name
	}
	if rest, ok := strings.CutPrefix(tool, "mcp."); ok {
		if server, name, ok := strings.Cut(rest, "."); ok {
			return fmt.Sprintf(cmp.Or(t.MCP, "mcp__%s__%s"), server, name)
		}
	}
	return tool
}

// input is a call's arguments as the table's agent's tool_input: its
// names, and paths made absolute in the workspace. An argument the
// table does not name passes under its own name, so a guard sees all
// the call will do; where one of those has the name a renamed argument
// takes, the renamed one (what the tool reads) wins.
func (tb claudeTable) input(tool string, args json.RawMessage, workspace string) map[string]json.RawMessage {
	var in map[string]json.RawMessage
	if json.Unmarshal(args, &in) != nil || in == nil {
		in = map[string]json.RawMessage{}
	}
	t, ok := tb.Tools[tool]
	if !ok {
		return in
	}
	out := make(map[string]json.RawMessage, len(in)+1)
	for k, v := range in {
		if _, renamed := t.Args[k]; !renamed {
			out[k] = v
		}
	}
	for k, v := range in {
		if name, renamed := t.Args[k]; renamed {
			out[name] = v
		}
	}
	for k, other := range t.Also {
		if v, ok := in[k]; ok {
			out[other] = v // a guard of the agent's other version reads it there
		}
	}
	// Numbers in the agent's units: Claude Code's Bash timeout in
	// milliseconds, Gemini CLI's read_file offset counted from 0.
	for k, f := range t.Scale {
		var n float64
		if json.Unmarshal(out[k], &n) == nil && n > 0 && f > 0 {
			out[k], _ = json.Marshal(math.Round(n / f))
		}
	}
	for k, d := range t.Shift {
		var n int64
		if json.Unmarshal(out[k], &n) == nil && n >= d {
			out[k], _ = json.Marshal(n - d)
		}
	}
	for _, p := range t.Paths {
		var rel string
		if v, ok := out[p]; ok && json.Unmarshal(v, &rel) != nil {
			continue // not a string: as the model wrote it
		}
		if !filepath.IsAbs(rel) {
			rel = filepath.Join(workspace, rel)
		}
		out[p], _ = json.Marshal(rel)
	}
	return out
}

// literalMatcher is a matcher Claude Code compares as names: letters,
// digits and underscores, joined by |.
var literalMatcher = regexp.MustCompile(`^[A-Za-z0-9_|]*$`)

// checkClaudeMatcher reports a matcher Claude Code would not read.
func checkClaudeMatcher(m string) error {
	if m == "*" || literalMatcher.MatchString(m) {
		return nil
	}
	if strings.IndexFunc(m, unicode.IsControl) >= 0 { // no tool's name; only a message would show it
		return fmt.Errorf("matcher %q holds control characters (a line break, an escape): no tool's name does", m)
	}
	if _, err := regexp.Compile(m); err != nil {
		return fmt.Errorf("matcher %q is not a regular expression: %w", m, err)
	}
	return nil
}

var matcherCache sync.Map // string → *regexp.Regexp

// claudeMatches reports whether a Claude Code matcher selects name: ""
// and "*" select everything, names joined by | select those names, and
// anything else is a regular expression found anywhere in the name.
func claudeMatches(m, name string) bool {
	switch {
	case m == "" || m == "*":
		return true
	case literalMatcher.MatchString(m):
		return slices.Contains(strings.Split(m, "|"), name)
	}
	return matchesRegexp(m, name)
}

// matchesRegexp reports whether the regular expression m is found in
// name (false when m is not one).
func matchesRegexp(m, name string) bool {
	re, ok := matcherCache.Load(m)
	if !ok {
		c, err := regexp.Compile(m)
		if err != nil {
			return false
		}
		re, _ = matcherCache.LoadOrStore(m, c)
	}
	return re.(*regexp.Regexp).MatchString(name)
}

// claudeRuns reports whether a hook runs after a call or run that failed
// or not: Claude Code's PostToolUse and Stop follow success only, their
// …Failure events failure only. Shrimp's own hooks follow both.
func (h Hook) claudeRuns(failed bool) bool {
	if h.Claude == "" {
		return true
	}
	switch h.event().When {
	case "succeeded":
		return !failed
	case "failed":
		return failed
	}
	return true
}

// claudeCommon is what every Claude Code hook reads.
type claudeCommon struct {
	Session    string `json:"session_id"`
	Transcript string `json:"transcript_path,omitempty"`
	CWD        string `json:"cwd"`
	Event      string `json:"hook_event_name"`
}

// common is what a Claude Code hook of event reads of every event in a
// session, working in cwd: the session's transcript brought up to date
// (Transcripts; none before the session is stored, or when it cannot be
// written, which is logged), ending with the call the hook is about when
// there is one (pending), as Claude Code's does.
func (h *Hooks) common(ctx context.Context, session, cwd, event string, pending ...api.ToolCall) claudeCommon {
	c := claudeCommon{Session: session, CWD: cwd, Event: event}
	if h != nil && h.Transcripts != nil {
		var err error
		if c.Transcript, err = h.Transcripts.Path(ctx, session, cwd, pending...); err != nil {
			slog.Warn("hooks: no transcript_path for a Claude Code hook", "session", session, "err", err)
		}
	}
	return c
}

// pendingCall is call as the history will keep it, for the transcript a
// hook about it reads before its assistant message is stored (that waits
// for all of the message's calls to end).
func pendingCall(call ToolCall) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	_ = json.Unmarshal(call.Arguments, &args) // arguments that are not an object: none shown
	return api.ToolCall{ID: call.ID, Function: api.ToolCallFunction{Name: call.Tool, Arguments: args}}
}

// claudeToolUse is what a Claude Code PreToolUse, PostToolUse or
// PostToolUseFailure hook reads.
type claudeToolUse struct {
	claudeCommon
	Tool     string                     `json:"tool_name"`
	Input    map[string]json.RawMessage `json:"tool_input"`
	ID       string                     `json:"tool_use_id"`
	Response map[string]any             `json:"tool_response,omitempty"`
	Error    string                     `json:"error,omitempty"`
}

// claudeCall is a tool call as a hook of event in Claude Code's form
// reads it, with t's names; done is nil before the call.
func claudeCall(t claudeTable, common claudeCommon, call ToolCall, done *ToolDone) claudeToolUse {
	u := claudeToolUse{
		claudeCommon: common,
		Tool:         t.toolName(call.Tool),
		Input:        t.input(call.Tool, call.Arguments, call.Workspace),
		ID:           call.ID,
	}
	if done == nil {
		return u
	}
	if done.Error != "" {
		u.Error = done.Error
		return u
	}
	u.Response = map[string]any{"output": done.Output, "success": true}
	if call.Tool == "shell.run" {
		u.Response["stdout"], u.Response["stderr"], u.Response["interrupted"] = done.Output, "", false
	}
	if p, ok := u.Input["file_path"]; ok {
		u.Response["filePath"] = p
	}
	return u
}

// geminiForm is v, a hook's input in Claude Code's form made with
// gemini.json's names (its event's among them), as Gemini CLI gives it:
// with a timestamp, a tool's result as {llmContent,
// returnDisplay, error}, the answer as prompt_response beside the request
// (prompt). Numbers keep their digits.
func geminiForm(v any, prompt string) (any, error) {
	m, err := asMap(v)
	if err != nil {
		return nil, err
	}
	m["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
	delete(m, "tool_use_id")
	if r, ok := m["tool_response"].(map[string]any); ok {
		m["tool_response"] = map[string]any{"llmContent": r["output"], "returnDisplay": r["output"]}
	}
	if e, ok := m["error"].(string); ok && m["tool_name"] != nil {
		m["tool_response"] = map[string]any{"llmContent": e, "returnDisplay": e, "error": map[string]any{"message": e}}
		delete(m, "error")
	}
	if a, ok := m["last_assistant_message"]; ok {
		m["prompt_response"], m["prompt"] = a, prompt
		delete(m, "last_assistant_message")
	}
	return m, nil
}

// asMap is v, a hook's input, as a JSON object's fields, numbers keeping
// their digits: what geminiForm and cursorForm rewrite.
func asMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// claudeObserved is a bus event as a Claude Code StopFailure or
// Notification hook reads it, common what every hook reads (made only
// when it runs); ok is false when the hook does not run on it
// (StopFailure after a run that did not fail).
func claudeObserved(h Hook, e eventView, common func() claudeCommon) (v any, ok bool) {
	switch h.event().Matcher {
	case "notification":
		if e.Type == "approval:requested" && !e.Asked {
			return nil, false // the mode or a rule decided it: nobody is asked
		}
		msg := "Shrimp needs your attention"
		switch {
		case e.Tool != "" && e.Type == "approval:requested":
			msg = "Shrimp needs your permission to use " + h.table().toolName(e.Tool)
		case e.Type == "tool:question":
			msg = "A tool asks you a question"
		}
		var details map[string]string
		if h.Gemini { // Gemini CLI adds details: what the alert is about
			details = map[string]string{"tool_name": h.table().toolName(e.Tool)}
		}
		return struct {
			claudeCommon
			Message string            `json:"message"`
			Type    string            `json:"notification_type"`
			Details map[string]string `json:"details,omitempty"`
		}{common(), msg, h.table().Notifications[e.Type], details}, true
	}
	if !h.claudeRuns(e.Status != "responded") || (e.Status != "responded" && e.Status != "error") {
		return nil, false
	}
	return struct {
		claudeCommon
		Active bool   `json:"stop_hook_active"`
		Error  string `json:"error,omitempty"`
	}{common(), false, e.Error}, true
}

// Observes reports whether an observing hook runs on e: each hook of its
// type does, a Claude Code one only where Claude Code's would (a
// Notification when someone is asked, StopFailure after a failed run).
func (h Hook) Observes(e agent.Event) bool {
	if string(e.Type) != h.Event || InLoop(h.Event) {
		return false
	}
	if h.Claude == "" {
		return true
	}
	payload, err := eventPayload(e)
	if err != nil {
		return false
	}
	_, ok := claudeObserved(h, viewOf(e, payload), func() claudeCommon { return claudeCommon{} })
	return ok
}

// eventView is what a Claude Code hook's input is made from: the fields
// of a bus event it reads.
type eventView struct {
	Session string
	Type    string
	Tool    string // approval:requested's
	Asked   bool   // approval:requested's: the user is asked (not the mode or a rule deciding)
	Status  string // agent:run-ended's
	Error   string
}

// viewOf reads what a Claude Code hook is told of an event from the
// event as encoded for hooks (eventPayload).
func viewOf(e agent.Event, payload []byte) eventView {
	var v struct {
		Data struct {
			Tool, Status, Error string
			Asked               bool
		}
	}
	_ = json.Unmarshal(payload, &v)
	return eventView{Session: e.Session, Type: string(e.Type), Tool: v.Data.Tool, Asked: v.Data.Asked, Status: v.Data.Status, Error: v.Data.Error}
}
