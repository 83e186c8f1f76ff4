// Package hooks runs the user's commands on agent events, in the spirit
// of Claude Code's hooks. A hook names an event type ("agent:run-ended",
// any type on the bus) or a point in the loop (InLoopEvents: SessionStart,
// PreRequest, PreToolCall, PostToolCall, PreRunEnd), and a command run
// without a shell; the event goes to the command as one JSON object on
// stdin.
//
// Its contract:
//   - hooks live in hooks.json in the data directory, written whole with
//     mode 0600 (a command line may hold a secret); a change to the file
//     applies to the next tool call, and to the next event in this process
//     (Follow brings an edit made by another process within a second);
//   - an observing hook ([Observer]) is a bus subscriber: it runs after the
//     fact, each hook bounded by its timeout (default [DefaultTimeout]), and
//     a hook that fails, times out or crashes is an error of the subscriber
//     (the bus reports it as bus:subscriber-failed); it never holds up the
//     loop;
//   - a PreToolCall hook ([Hooks.PreToolCall]) is waited for, up to its
//     timeout, before the approval gate asks anyone. Exit status 2 denies
//     the call with the hook's stderr as the reason the model reads; so does
//     a JSON reply on stdout {"decision": "deny", "reason": "…"}. A hook
//     that times out, crashes or exits with another non-zero status denies
//     too (it fails closed, like the gate). Exit 0 lets the call go on to
//     the gate: a hook can tighten the approval mode, never loosen it;
//   - a PostToolCall hook ([Hooks.PostToolCall]) is waited for, up to its
//     timeout, after a call ran, with the call and its result: what it
//     says for the model (stderr with exit status 2, or a JSON reply with
//     "feedback") joins the result the model reads (a formatter's or a
//     linter's findings). It cannot undo the call; one that fails is
//     reported, and the result goes on without it;
//   - a PreRunEnd hook ([Hooks.PreRunEnd]) is waited for, up to its
//     timeout, when the model answers: exit status 2 (stderr) or a
//     "block" answer with a reason sends the model back to work with it
//     (the loop caps how often); one that fails lets the run end, with a
//     note (it fails open: a broken check must not hold the model in a
//     loop);
//   - a SessionStart hook ([Hooks.SessionStart]) runs at a session's
//     first request in a process; what it prints is context for each of
//     the session's requests there. It stops nothing;
//   - a prompt hook (Hook.Prompt, on PreRunEnd or PreRequest) asks the
//     request's model ([WithJudge]) instead of running a command: its
//     {"ok": false, "reason"} is exit status 2 with the reason;
//   - a hook imported from Claude Code (or Codex, which uses its form)
//     reads Claude Code's input and keeps Claude Code's meaning
//     (claude.go), its transcript_path a Claude Code transcript of the
//     session ([Transcripts]); one imported from Gemini CLI reads Gemini
//     CLI's input and keeps its meaning (gemini.json, Hook.Gemini); one
//     imported from Cursor reads Cursor's input for its event and keeps
//     its meaning (cursor.json, Hook.Cursor), an event about one kind of
//     tool running for those calls only, one that only looks (its
//     afterFileEdit) stopping and adding nothing;
//   - a post-tool-call hook may replace the result the model reads, where
//     its agent lets it (a Gemini CLI AfterTool hook that hides it, a
//     Claude Code PostToolUse hook's updatedToolOutput): the output it
//     hid reaches neither the model nor the record.
package hooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shrimp-harness/shrimp/internal/anchor"
	"github.com/shrimp-harness/shrimp/internal/datadir"
	"github.com/shrimp-harness/shrimp/internal/jsonc"
	"github.com/shrimp-harness/shrimp/internal/jsonplain"
	"github.com/shrimp-harness/shrimp/internal/shebang"
)

// FileName is the hooks file in the data directory.
const FileName = "hooks.json"

// PreToolCall is the event of hooks that decide tool calls.
const PreToolCall = "pre-tool-call"

// PostToolCall is the event of hooks that look at a call's result.
const PostToolCall = "post-tool-call"

// SessionStart is the event of hooks run once a session in a process:
// when it starts, or at its first request in a process that had not run
// them (it is taken up again). What they print is context the model reads
// with every request of the session in that process (Claude Code's
// SessionStart). They stop nothing.
const SessionStart = "session-start"

// Sources are the starts a SessionStart hook is told (its "source"): a
// new session, or one taken up again.
var Sources = []string{"startup", "resume"}

// PreRequest is the event of hooks run before a request starts a run:
// they may stop it or add context for the model (Claude Code's
// UserPromptSubmit).
const PreRequest = "pre-request"

// PreRunEnd is the event of hooks run when the model answers, before
// the run ends: they may send the model back to work with what is left
// (the tests fail), as Claude Code's Stop hooks do.
const PreRunEnd = "pre-run-end"

// ToolEvent reports whether an event is one of the tool-call events
// (PreToolCall, PostToolCall), whose hooks may name tools.
func ToolEvent(event string) bool { return event == PreToolCall || event == PostToolCall }

// InLoop reports whether an event's hooks are run by the loop itself and
// may change what it does (SessionStart, PreRequest, PreRunEnd and the
// tool-call events), rather than observe a bus event.
func InLoop(event string) bool { return slices.Contains(InLoopEvents, event) }

// InLoopEvents are the events of hooks the loop runs, in the order a
// request meets them.
var InLoopEvents = []string{SessionStart, PreRequest, PreToolCall, PostToolCall, PreRunEnd}

// DefaultTimeout bounds one hook run when the hook sets none, and
// DefaultPromptTimeout a prompt hook's question (a model's answer, which
// may wait for the model to load).
const (
	DefaultTimeout       = 5 * time.Second
	DefaultPromptTimeout = 30 * time.Second
)

// Hook is one command attached to an event.
type Hook struct {
	ID    string `json:"id"`
	Event string `json:"event"` // an event type, or one of InLoopEvents
	// Tool limits a PreToolCall or PostToolCall hook to the tools whose
	// names match this pattern (path.Match: "shell.run", "mcp.files.*"),
	// and a SessionStart hook to the starts it names (Sources); "" is
	// every tool, every start.
	Tool     string   `json:"tool,omitempty"`
	Command  string   `json:"command"`
	Args     []string `json:"args,omitempty"`
	Timeout  float64  `json:"timeout,omitempty"` // seconds; 0 is DefaultTimeout
	Disabled bool     `json:"disabled,omitempty"`
	// Claude is the Claude Code event (PreToolUse, Stop, …) the hook was
	// written for, when it came from Claude Code's settings: it then reads
	// Claude Code's input, its Tool is a Claude Code matcher, and its exit
	// statuses mean what they mean there (claude.go). "" for Shrimp's own.
	Claude string `json:"claude,omitempty"`
	// Env is added to the command's environment (a Claude Code plugin's
	// hook: CLAUDE_PLUGIN_ROOT, its folder).
	Env map[string]string `json:"env,omitempty"`
	// Prompt, in place of a command, makes the hook a question for the
	// request's model (Claude Code's "prompt" hooks, or the user's own,
	// on pre-request, pre-tool-call, post-tool-call and pre-run-end): the
	// prompt, with the event's JSON where it says $ARGUMENTS (else after
	// it), answered {"ok": true} or {"ok": false, "reason": "…"}. Not ok
	// is exit status 2 with the reason: the request stopped, the call
	// denied, the reason added to the call's result, the model sent back
	// to work.
	Prompt string `json:"prompt,omitempty"`
	// Codex says a hook in Claude Code's form (Claude) came from Codex's
	// hooks.json or config.toml, which use that form: messages name Codex.
	Codex bool `json:"codex,omitempty"`
	// Gemini says the hook came from Gemini CLI's settings.json: Claude is
	// then a Gemini CLI event (BeforeTool, AfterAgent, …), its Tool a
	// Gemini CLI matcher, and it reads Gemini CLI's input (gemini.json).
	Gemini bool `json:"gemini,omitempty"`
	// Cursor says the hook came from Cursor's hooks.json: Claude is then
	// a Cursor event (beforeShellExecution, stop, …), its Tool a Cursor
	// matcher (preToolUse's), and it reads Cursor's input for its event
	// and answers as there (cursor.json).
	Cursor bool `json:"cursor,omitempty"`
	// FailClosed makes a hook imported from another agent deny (or stop)
	// what it checks when it exits with a status that is an error there,
	// not only when it blocks: Cursor's failClosed.
	FailClosed bool `json:"failClosed,omitempty"`
}

// Agent names the agent a hook in Claude Code's form was written for:
// "Claude Code", "Codex" for one imported from Codex's files, "Gemini
// CLI" or "Cursor".
func (h Hook) Agent() string {
	switch {
	case h.Gemini:
		return "Gemini CLI"
	case h.Cursor:
		return "Cursor"
	case h.Codex:
		return "Codex"
	}
	return "Claude Code"
}

// On says what the hook runs on: its event, its tool pattern, and the
// Claude Code event it was written for ("pre-tool-call Bash (Claude
// Code PreToolUse)").
func (h Hook) On() string {
	on := h.Event
	if h.Tool != "" {
		on += " " + h.Tool
	}
	if h.Claude != "" {
		on += " (" + h.Agent() + " " + h.Claude + ")"
	}
	return on
}

// Runs says what the hook does as lists show it: "asks the model: …" for
// a prompt hook, the command line its author wrote for one in Claude
// Code's form (what bash -c runs), else its command and arguments.
func (h Hook) Runs() string {
	switch {
	case h.Prompt != "":
		return "asks the model: " + h.Prompt
	case h.Claude != "" && len(h.Args) > 0:
		return h.Args[len(h.Args)-1]
	}
	return strings.Join(append([]string{h.Command}, h.Args...), " ")
}

// Limit is how long the hook may run: its Timeout, else
// DefaultPromptTimeout for a prompt hook and DefaultTimeout for others.
func (h Hook) Limit() time.Duration {
	if h.Timeout <= 0 && h.Prompt != "" {
		return DefaultPromptTimeout
	}
	if h.Timeout <= 0 {
		return DefaultTimeout
	}
	return time.Duration(h.Timeout * float64(time.Second))
}

// envName is what a variable's name in Hook.Env looks like.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// eventPattern is what an event name looks like: area:name.
var eventPattern = regexp.MustCompile(`^[a-z]+:[a-z][a-z-]*$`)

// Check reports what is wrong with a hook.
func (h Hook) Check() error {
	switch {
	case !InLoop(h.Event) && !eventPattern.MatchString(h.Event):
		return fmt.Errorf("event %q: give an event type such as agent:run-ended, or %s", h.Event, strings.Join(InLoopEvents, ", "))
	case h.Command == "" && h.Prompt == "":
		return errors.New("a hook needs a command")
	case h.Prompt != "" && (h.Command != "" || len(h.Args) > 0):
		return errors.New("a hook runs a command or asks a prompt, not both")
	case h.Prompt != "" && h.Event != PreRunEnd && h.Event != PreRequest && !ToolEvent(h.Event):
		return fmt.Errorf("a prompt hook asks the model at %s, %s, %s or %s only", PreRequest, PreToolCall, PostToolCall, PreRunEnd)
	case h.Tool != "" && !ToolEvent(h.Event) && h.Event != SessionStart:
		return fmt.Errorf("--tool applies to %s and %s hooks only (and names a start, %s, for %s hooks)", PreToolCall, PostToolCall, strings.Join(Sources, " or "), SessionStart)
	case h.Timeout < 0 || h.Timeout > 600:
		return fmt.Errorf("timeout %gs: give 0 (the default, %s) up to 600 seconds", h.Timeout, DefaultTimeout)
	}
	for k := range h.Env {
		if !envName.MatchString(k) {
			return fmt.Errorf("env %q: a variable's name is letters, digits and '_', not starting with a digit", k)
		}
	}
	if h.Claude != "" {
		ev, ok := h.table().Events[h.Claude]
		switch {
		case !ok || !slices.Contains(ev.Shrimp, h.Event):
			return fmt.Errorf("a %s %q hook does not run on %s", h.Agent(), h.Claude, h.Event)
		case h.Tool != "" && ev.Matcher != "tool" && ev.Matcher != "source":
			return fmt.Errorf("a %s %s hook takes no tool matcher", h.Agent(), h.Claude)
		}
		return checkClaudeMatcher(h.Tool)
	}
	if h.Tool != "" {
		if _, err := path.Match(h.Tool, ""); err != nil {
			return fmt.Errorf("tool pattern %q: %w", h.Tool, err)
		}
	}
	return nil
}

// Program is what the hook starts: its command, or for a Claude Code
// hook (its command line run by bash -c) the program that line begins
// with when that can be told without a shell ("jq", "/usr/bin/python3");
// "" when it cannot (a variable, quotes, a shell keyword or builtin, a
// path relative to where it runs).
func (h Hook) Program() string {
	if h.Claude == "" {
		return h.Command
	}
	if len(h.Args) == 0 {
		return ""
	}
	words := strings.Fields(h.Args[len(h.Args)-1])
	if len(words) == 0 || strings.ContainsAny(words[0], "$\"'`\\(){}<>|&;=~*?[]!") || shellWords[words[0]] {
		return ""
	}
	if strings.ContainsRune(words[0], '/') && !path.IsAbs(words[0]) {
		return ""
	}
	return words[0]
}

// shellWords are the words a command line may begin with that are the
// shell's own (keywords and builtins), not programs to look for.
var shellWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("if then else elif fi for while until do done case esac in function select time " +
		". : break continue eval exec exit export readonly return set shift times trap unset cd read wait alias umask source command type hash ulimit getopts let local declare typeset builtin") {
		m[w] = true
	}
	return m
}()

// Findable reports whether the hook's command (Program) can be started
// from here: a bare name found by lookPath (exec.LookPath: on PATH), an
// absolute path found by it too. A relative path (./check.sh) is found in
// the workspace the hook runs in, which is not known here: it is taken as
// findable, as is a Claude Code command line whose program cannot be told.
func (h Hook) Findable(lookPath func(string) (string, error)) bool {
	p := h.Program()
	if p == "" || !path.IsAbs(p) && strings.ContainsRune(p, '/') {
		return true
	}
	_, err := lookPath(p)
	return err == nil
}

// ScriptProblem says why the hook's program, found, cannot start by its
// first line (internal/shebang: Windows line endings, an interpreter that
// is not installed); "" when that is not why, or the program is not found
// (Findable) or is relative to the workspace it runs in.
func (h Hook) ScriptProblem(lookPath func(string) (string, error)) string {
	p := h.Program()
	if p == "" {
		return ""
	}
	if !path.IsAbs(p) {
		if strings.ContainsRune(p, '/') {
			return ""
		}
		var err error
		if p, err = lookPath(p); err != nil {
			return ""
		}
	}
	return shebang.Problem(p)
}

// Anchored returns h with its command and each argument that is a
// relative path to a file in dir (docs/check.sh, ./lint) made absolute, and
// the paths it changed, as given (internal/anchor). A hook runs in each
// request's workspace, so a script named from where the hook was added
// would be looked for there, and a pre-tool-call hook that cannot start
// denies every call: the file the user could see when adding it is the
// one meant.
func (h Hook) Anchored(dir string) (Hook, []string) {
	words, changed := anchor.Words(dir, append([]string{h.Command}, h.Args...))
	h.Command, h.Args = words[0], words[1:]
	if len(h.Args) == 0 {
		h.Args = nil
	}
	return h, changed
}

// Unstartable says what it means when the hook's command cannot start: a
// pre-tool-call hook fails closed.
func (h Hook) Unstartable() string {
	switch {
	case h.Claude != "" && h.FailClosed && h.Event == PreToolCall:
		return "every tool call it applies to is denied (its failClosed)"
	case h.Claude != "":
		return fmt.Sprintf("it reports an error each time, and lets what it checks go on (a %s hook that fails this way does not block)", h.Agent())
	case h.Event == PreToolCall:
		return "every tool call it applies to is denied"
	}
	return "it fails each time"
}

// FailsClosed reports whether the hook, unable to start, denies what it
// applies to: a pre-tool-call hook of Shrimp's own, or one imported with
// Cursor's failClosed.
func (h Hook) FailsClosed() bool { return h.Event == PreToolCall && (h.Claude == "" || h.FailClosed) }

// Applies reports whether a tool-call hook applies to a call of tool (its
// tool pattern selects it), or a SessionStart hook to a start (Sources).
func (h Hook) Applies(tool string) bool {
	if only := h.event().Only; h.Claude != "" && len(only) > 0 && !slices.ContainsFunc(only, func(p string) bool { ok, _ := path.Match(p, tool); return ok }) {
		return false
	}
	switch {
	case h.Tool == "":
		return true
	case h.Claude != "" && h.Event == SessionStart:
		return claudeMatches(h.Tool, tool)
	case h.Cursor: // a regular expression, names joined by | among them
		return slices.ContainsFunc(h.table().toolNames(tool), func(n string) bool { return matchesRegexp(h.Tool, n) })
	case h.Claude != "":
		return slices.ContainsFunc(h.table().toolNames(tool), func(n string) bool { return claudeMatches(h.Tool, n) })
	}
	ok, _ := path.Match(h.Tool, tool)
	return ok
}

// Config is hooks.json.
type Config struct {
	Hooks []Hook `json:"hooks"`
}

// Load reads hooks.json; a missing file has no hooks.
func Load(file string) (Config, error) {
	var c Config
	// Its commands run as the user: a file someone else could have
	// written is refused (and a pre-tool-call check then denies).
	b, err := datadir.ReadPrivate(file)
	if errors.Is(err, os.ErrNotExist) {
		return Config{Hooks: []Hook{}}, nil
	}
	if err != nil {
		return c, err
	}
	if b, err = jsonc.Standard(b); err == nil { // edited by hand: comments, a byte order mark
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		return c, fmt.Errorf("%s is not valid hooks.json (%v): fix it or remove it", file, err)
	}
	for i, h := range c.Hooks {
		h = h.upgraded()
		c.Hooks[i] = h
		if err := h.Check(); err != nil {
			return c, fmt.Errorf("%s: hook %s: %w", file, h.ID, err)
		}
	}
	if c.Hooks == nil {
		c.Hooks = []Hook{}
	}
	return c, nil
}

// Edit changes hooks.json: it loads it, lets edit change it and saves
// it, holding the file's lock ([datadir.Lock]) throughout, so the window
// and a terminal changing it at once both keep their change. An error from
// edit leaves the file as it was.
func Edit(file string, edit func(*Config) error) error {
	return datadir.Edit(file, Load, Config.Save, edit)
}

// Save writes hooks.json whole, mode 0600, with & < > as they are (a
// command line's "&&" and ">&2" stay readable for an edit by hand). A
// change made from what was loaded goes through [Edit].
func (c Config) Save(file string) error {
	b, err := jsonplain.Marshal(c, "  ")
	if err != nil {
		return err
	}
	return datadir.WritePrivate(file, append(b, '\n'))
}

// Add checks h, gives it an id and appends it.
func (c *Config) Add(h Hook) (Hook, error) {
	if err := h.Check(); err != nil {
		return h, err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	h.ID = hex.EncodeToString(b[:])
	c.Hooks = append(c.Hooks, h)
	return h, nil
}

// NotFound returns the hooks switched on whose command cannot be started
// from here (Hook.Findable).
func (c Config) NotFound(lookPath func(string) (string, error)) []Hook {
	out := []Hook{}
	for _, h := range c.Hooks {
		if !h.Disabled && !h.Findable(lookPath) {
			out = append(out, h)
		}
	}
	return out
}

// index is where the hook with that id is, or an error naming it.
func (c Config) index(id string) (int, error) {
	i := slices.IndexFunc(c.Hooks, func(h Hook) bool { return h.ID == id })
	if i < 0 {
		return -1, fmt.Errorf("no hook %q (see `shrimp hooks list`)", id)
	}
	return i, nil
}

// SetTimeout gives the hook with that id a timeout of seconds (0: the
// default), within the bounds Check keeps, and returns it so changed.
func (c *Config) SetTimeout(id string, seconds float64) (Hook, error) {
	i, err := c.index(id)
	if err != nil {
		return Hook{}, err
	}
	h := c.Hooks[i]
	h.Timeout = seconds
	if err := h.Check(); err != nil {
		return Hook{}, err
	}
	c.Hooks[i] = h
	return h, nil
}

// SetEnabled switches the hook with that id on or off, and returns it.
func (c *Config) SetEnabled(id string, enabled bool) (Hook, error) {
	i, err := c.index(id)
	if err != nil {
		return Hook{}, err
	}
	c.Hooks[i].Disabled = !enabled
	return c.Hooks[i], nil
}

// Remove drops the hook with that id.
func (c *Config) Remove(id string) error {
	i, err := c.index(id)
	if err != nil {
		return err
	}
	c.Hooks = slices.Delete(c.Hooks, i, i+1)
	return nil
}

// Hooks is the hooks file as the running harness sees it: read again
// whenever it changes on disk. A pre-tool-call check reads it at every
// call; the observers' filter only looks at what was last read, which
// Follow refreshes (an edit from another process reaches a running window
// within its interval).
type Hooks struct {
	File string
	// Transcripts, when set, gives Claude Code hooks their
	// transcript_path.
	Transcripts *Transcripts

	mu      sync.Mutex
	info    os.FileInfo // of the file last read
	cfg     Config
	err     error
	watched atomic.Pointer[map[string]bool] // event types with enabled observing hooks
}

// Current returns the hooks now in force, reading the file again when it
// changed; a file that does not parse gives no hooks and its error (said
// once per change by the caller).
func (h *Hooks) Current() (Config, error) {
	info, statErr := os.Stat(h.File)
	h.mu.Lock()
	defer h.mu.Unlock()
	if statErr != nil {
		if errors.Is(statErr, os.ErrNotExist) {
			h.cfg, h.err, h.info = Config{}, nil, nil
			h.watch()
			return h.cfg, nil
		}
		return Config{}, statErr
	}
	// Save renames a new file over the old one, so a new inode says it
	// changed even within one tick of the file system's clock.
	if h.info == nil || !os.SameFile(info, h.info) || !info.ModTime().Equal(h.info.ModTime()) || info.Size() != h.info.Size() {
		h.cfg, h.err = Load(h.File)
		h.info = info
		h.watch()
	}
	return h.cfg, h.err
}

// watch records which event types enabled hooks observe; call with h.mu
// held.
func (h *Hooks) watch() {
	types := map[string]bool{}
	for _, k := range h.cfg.Hooks {
		if !k.Disabled && !InLoop(k.Event) {
			types[k.Event] = true
		}
	}
	h.watched.Store(&types)
}

// Watched reports whether an enabled hook observes the event type, as of
// the last time the file was read (Current, Follow). It does no I/O, so
// it can filter every event on the bus.
func (h *Hooks) Watched(event string) bool {
	m := h.watched.Load()
	return m != nil && (*m)[event]
}

// Follow reads the file again every interval until ctx ends, so an edit
// from another process reaches Watched without any I/O on the bus.
func (h *Hooks) Follow(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		_, _ = h.Current()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Apply reports whether an enabled hook of a tool-call event applies to
// a call of tool.
func (h *Hooks) Apply(event, tool string) bool {
	hs, _ := h.For(event)
	return slices.ContainsFunc(hs, func(k Hook) bool { return k.Applies(tool) })
}

// For returns the enabled hooks of an event.
func (h *Hooks) For(event string) ([]Hook, error) {
	cfg, err := h.Current()
	var out []Hook
	for _, k := range cfg.Hooks {
		if k.Event == event && !k.Disabled {
			out = append(out, k)
		}
	}
	return out, err
}
