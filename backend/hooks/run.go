package hooks

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/internal/childproc"
	"github.com/shrimp-harness/shrimp/internal/jsonplain"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// maxOutput caps what is kept of a hook's stdout and stderr.
const maxOutput = 64 << 10

// Result is how one hook run went.
type Result struct {
	Exit     int // -1 when it did not exit by itself (timeout, signal, not started)
	Stdout   string
	Stderr   string
	Duration time.Duration
	Err      error // it could not start, timed out or was killed
}

// Run runs a hook's command with payload on stdin, without a shell, in
// its own process group (killed whole when it times out or ctx ends, and
// when Shrimp dies: childproc.Guard), in
// dir, with SHRIMP_HOOK_EVENT and SHRIMP_HOOK_ID added to the environment.
func Run(ctx context.Context, h Hook, dir string, payload []byte) Result {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, h.Limit())
	defer cancel()
	cmd := exec.Command(h.Command, h.Args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SHRIMP_HOOK_EVENT="+h.Event, "SHRIMP_HOOK_ID="+h.ID)
	if h.Claude != "" { // its scripts are named from the project: $CLAUDE_PROJECT_DIR/.claude/hooks/…
		cmd.Env = append(cmd.Env, "CLAUDE_PROJECT_DIR="+dir)
	}
	if h.Gemini { // Gemini CLI's names for it (it sets CLAUDE_PROJECT_DIR too)
		cmd.Env = append(cmd.Env, "GEMINI_PROJECT_DIR="+dir, "GEMINI_CWD="+dir)
	}
	if h.Cursor { // Cursor's (it sets CLAUDE_PROJECT_DIR too)
		cmd.Env = append(cmd.Env, "CURSOR_PROJECT_DIR="+dir)
	}
	for _, k := range slices.Sorted(maps.Keys(h.Env)) {
		cmd.Env = append(cmd.Env, k+"="+h.Env[k])
	}
	// payload is shared by hooks running side by side: read, never appended to.
	cmd.Stdin = io.MultiReader(bytes.NewReader(payload), strings.NewReader("\n"))
	stdout, stderr := &capped{max: maxOutput}, &capped{max: maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	childproc.Guard(cmd)
	// Output goes through pipes Shrimp owns: once the hook exits, a child
	// it left behind holding them does not keep the run waiting.
	cmd.WaitDelay = time.Second
	r := Result{Exit: -1}
	if err := cmd.Start(); err != nil {
		r.Err = fmt.Errorf("start %s: %w", h.Command, err)
		if why := h.ScriptProblem(exec.LookPath); why != "" {
			r.Err = fmt.Errorf("start %s: %s", h.Command, why)
		}
		r.Duration = time.Since(start)
		return r
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		if ctx.Err() == context.DeadlineExceeded {
			err = timedOut(h)
		} else {
			err = ctx.Err()
		}
	}
	// Whatever the hook started in its group goes with it.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	r.Duration = time.Since(start)
	r.Stdout, r.Stderr = stdout.String(), stderr.String()
	// 127 is "not found" from the guard's shell (and env): about a script
	// that is there, its first line says why.
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 127 {
		if why := h.ScriptProblem(exec.LookPath); why != "" {
			r.Stderr = why
		}
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		r.Exit = 0
	case errors.As(err, &exit) && exit.Exited():
		r.Exit = exit.ExitCode()
	case errors.As(err, &exit):
		r.Err = fmt.Errorf("killed by %v", exit.ProcessState)
	case errors.Is(err, exec.ErrWaitDelay):
		r.Exit = cmd.ProcessState.ExitCode()
	default:
		r.Err = err
	}
	return r
}

// capped is a buffer that keeps the first max bytes.
type capped struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// stdin makes what each hook of one call, request or event reads, once
// for each form: Shrimp's own, or Claude Code's (or Gemini CLI's, or
// Cursor's) for the hook's event.
type stdin struct {
	own    func() ([]byte, error)
	claude func(t claudeTable, event string) any // in Claude Code's form, with t's names
	prompt string                                // the request, for Gemini CLI's AfterAgent
	loops  int                                   // how often the run was sent back, for Cursor's stop
	made   map[string][]byte                     // by agent and event; "" is Shrimp's form
}

func (s *stdin) of(k Hook) ([]byte, error) {
	key := k.Agent() + ":" + k.Claude
	if k.Claude == "" {
		key = ""
	}
	if b, ok := s.made[key]; ok {
		return b, nil
	}
	var b []byte
	var err error
	switch {
	case k.Claude == "":
		b, err = s.own()
	case k.Gemini:
		var v any
		if v, err = geminiForm(s.claude(k.table(), k.Claude), s.prompt); err == nil {
			b, err = eventPayload(v)
		}
	case k.Cursor:
		var v map[string]any
		if v, err = cursorForm(s.claude(k.table(), k.Claude), s.loops); err == nil {
			b, err = eventPayload(v)
		}
	default:
		b, err = eventPayload(s.claude(k.table(), k.Claude))
	}
	if err != nil {
		return nil, err
	}
	if s.made == nil {
		s.made = map[string][]byte{}
	}
	s.made[key] = b
	return b, nil
}

// notBlocking says that a Claude Code hook exited with a status that is
// an error there but does not block (anything but 0 and 2), so what it
// applies to goes on: a script written for Claude Code ending in a `grep`
// that found nothing must not stop every call here.
func notBlocking(k Hook, r Result, goesOn string) string {
	if k.Prompt != "" { // no process exited: the model's answer was not one
		return fmt.Sprintf("%s: %s; so %s", describe(k), lastLine(r.Stderr), goesOn)
	}
	return fmt.Sprintf("%s exited with status %d, which for a %s hook is an error that does not block, so %s: %s", describe(k), r.Exit, k.Agent(), goesOn, lastLine(r.Stderr))
}

// exited says how a hook that did not answer as asked ended: its exit
// status, or for a prompt hook (no process ran) that the model's answer
// was not one (its stderr says what it was).
func exited(k Hook, r Result) string {
	if k.Prompt != "" {
		return "got an answer that is not {\"ok\": …}"
	}
	return fmt.Sprintf("exited with status %d", r.Exit)
}

// describe names a hook in messages.
func describe(h Hook) string {
	if h.Prompt != "" {
		who := "prompt hook"
		if h.Claude != "" {
			who = h.Agent() + " " + h.Claude + " prompt hook"
		}
		return fmt.Sprintf("%s %s (%s)", who, h.ID, cutCommand(h.Prompt))
	}
	if h.Claude != "" && len(h.Args) > 0 { // bash -c COMMAND: the command is what its author wrote
		return fmt.Sprintf("%s %s hook %s (%s)", h.Agent(), h.Claude, h.ID, cutCommand(h.Args[len(h.Args)-1]))
	}
	return fmt.Sprintf("hook %s (%s)", h.ID, cutCommand(strings.Join(append([]string{h.Command}, h.Args...), " ")))
}

// ToolCall is what a PreToolCall hook reads on stdin.
type ToolCall struct {
	Event     string          `json:"event"` // PreToolCall
	Session   string          `json:"session,omitempty"`
	Workspace string          `json:"workspace"`
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// PreToolCall runs the PreToolCall hooks that match the call, one after
// another: the first denial ends it (approval.HookDeny with its reason);
// a hook that asks for the user's decision makes it approval.HookAsk
// unless a later one denies; approval.HookPass when every hook let the
// call go on. A hooks file that cannot be read denies: the user meant
// something to check these calls. notes are what the hooks said for the
// user (a Claude Code hook's systemMessage, or its error that does not
// block).
func (h *Hooks) PreToolCall(ctx context.Context, call ToolCall) (reason string, verdict approval.HookVerdict, notes []string) {
	hs, err := h.For(PreToolCall)
	if err != nil {
		return fmt.Sprintf("the hooks file cannot be read, so tool calls are denied: %v", err), approval.HookDeny, nil
	}
	// The arguments as written, & < > not escaped, for hooks that grep.
	call.Event, call.Arguments = PreToolCall, jsonplain.Plain(call.Arguments)
	in := stdin{
		own: func() ([]byte, error) { return jsonplain.Marshal(call, "") },
		claude: func(t claudeTable, event string) any {
			return claudeCall(t, h.common(ctx, call.Session, call.Workspace, event, pendingCall(call)), call, nil)
		},
	}
	var asks []string
	for _, k := range hs {
		if !k.Applies(call.Tool) {
			continue
		}
		payload, err := in.of(k)
		if err != nil {
			return fmt.Sprintf("the call cannot be handed to its hooks, so it is denied: %v", err), approval.HookDeny, notes
		}
		r := h.runTold(ctx, PreToolCall, k, call.Workspace, payload)
		switch {
		case r.Err != nil:
			return fmt.Sprintf("%s failed, so the call is denied: %v", describe(k), r.Err), approval.HookDeny, notes
		case r.Exit == 2:
			msg := strings.TrimSpace(r.Stderr)
			if msg == "" {
				msg = "no reason given"
			}
			return fmt.Sprintf("denied by %s: %s", describe(k), msg), approval.HookDeny, notes
		case r.Exit != 0 && k.Claude != "" && !k.FailClosed:
			notes = append(notes, notBlocking(k, r, "the call goes on to the approval mode"))
			continue
		case r.Exit != 0:
			return fmt.Sprintf("%s %s, so the call is denied: %s", describe(k), exited(k, r), lastLine(r.Stderr)), approval.HookDeny, notes
		}
		a := readAnswer(r.Stdout)
		if a.notice != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", describe(k), a.notice))
		}
		switch a.verdict {
		case approval.HookDeny:
			return fmt.Sprintf("denied by %s: %s", describe(k), a.reason), approval.HookDeny, notes
		case approval.HookAsk:
			asks = append(asks, fmt.Sprintf("%s asks for your decision: %s", describe(k), a.reason))
		}
	}
	if len(asks) > 0 {
		return strings.Join(asks, "; "), approval.HookAsk, notes
	}
	return "", approval.HookPass, notes
}

// Judge asks a model a prompt hook's question and returns its answer
// (the app's: the request's model, told to answer in JSON); hook names
// the hook as messages do ("prompt hook a1 (Was a test written?…)").
type Judge func(ctx context.Context, hook, question string) (string, error)

type judgeKey struct{}

// WithJudge returns ctx carrying the Judge that answers prompt hooks for
// the request it belongs to.
func WithJudge(ctx context.Context, j Judge) context.Context {
	return context.WithValue(ctx, judgeKey{}, j)
}

type startingKey struct{}

// WithStarting returns ctx telling each hook the request waits for
// (SessionStart, PreRequest, PreToolCall, PostToolCall, PreRunEnd) as it
// starts (its event, and the hook as messages name it: "hook a1 (make
// test)"); the func it returns is called when the hook is done. A slow
// one (a SessionStart hook that installs dependencies, a check that runs
// the tests, a prompt hook asking the model about a call) would
// otherwise hold the request in silence.
func WithStarting(ctx context.Context, starting func(event, hook string) (done func())) context.Context {
	return context.WithValue(ctx, startingKey{}, starting)
}

// timedOut is the error of a hook that did not answer within its
// timeout, saying how to give it more.
func timedOut(h Hook) error {
	return fmt.Errorf("no answer within %s (give it longer: `shrimp hooks timeout %s SECONDS`, or its timeout in Extensions → Hooks)", h.Limit(), cmp.Or(h.ID, "ID"))
}

// runTold is run, told to ctx's WithStarting as event's hook.
func (h *Hooks) runTold(ctx context.Context, event string, k Hook, dir string, payload []byte) Result {
	if starting, _ := ctx.Value(startingKey{}).(func(string, string) func()); starting != nil {
		defer starting(event, describe(k))()
	}
	return h.run(ctx, k, dir, payload)
}

// run runs a hook: its command (Run), or its prompt put to ctx's Judge.
func (h *Hooks) run(ctx context.Context, k Hook, dir string, payload []byte) Result {
	if k.Prompt == "" {
		return Run(ctx, k, dir, payload)
	}
	return ask(ctx, k, payload)
}

// ask puts a prompt hook's question to ctx's Judge, within the hook's
// timeout: the prompt with payload where it says $ARGUMENTS (else after
// it). An answer {"ok": true} is exit status 0; {"ok": false, "reason"}
// is 2 with the reason on stderr; another answer is 1 (an error that
// does not block, for a Claude Code hook); no model, or none in time, is
// Err.
func ask(ctx context.Context, k Hook, payload []byte) Result {
	start := time.Now()
	r := Result{Exit: -1}
	judge, _ := ctx.Value(judgeKey{}).(Judge)
	if judge == nil {
		r.Err = errors.New("no model to ask here")
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, k.Limit())
	defer cancel()
	q := k.Prompt + "\n\n" + string(payload)
	if strings.Contains(k.Prompt, "$ARGUMENTS") {
		q = strings.ReplaceAll(k.Prompt, "$ARGUMENTS", string(payload))
	}
	out, err := judge(ctx, describe(k), q)
	r.Duration = time.Since(start)
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		r.Err = timedOut(k)
		return r
	}
	if err != nil {
		r.Err = fmt.Errorf("ask the model: %w", err)
		return r
	}
	var a struct {
		OK     *bool  `json:"ok"`
		Reason string `json:"reason"`
	}
	text := strings.TrimSpace(out)
	if i, j := strings.Index(text, "{"), strings.LastIndex(text, "}"); i >= 0 && j > i {
		text = text[i : j+1] // a model may fence it or talk around it
	}
	if json.Unmarshal([]byte(text), &a) != nil || a.OK == nil {
		r.Exit, r.Stderr = 1, "the model did not answer {\"ok\": true} or {\"ok\": false, \"reason\": …}: "+cut(lastLine(out))
		return r
	}
	r.Exit = 0
	if !*a.OK {
		r.Exit, r.Stderr = 2, a.Reason
		if len(a.Reason) > maxReason {
			r.Stderr = a.Reason[:textcut.Before(a.Reason, maxReason)] + "…"
		}
	}
	return r
}

// maxReason bounds a prompt hook's reason, which goes to the model: a
// model's answer has no other bound than its own num_predict.
const maxReason = 2 << 10

// Request is what a PreRequest hook reads on stdin.
type Request struct {
	Event     string `json:"event"`             // PreRequest
	Session   string `json:"session,omitempty"` // a new session's too, chosen before its first run
	Workspace string `json:"workspace"`
	Text      string `json:"text"`
	// Images attached to the request (name, type, size, SHA-256; not
	// their data): a guard can stop a request that sends pictures.
	Images []attach.Image `json:"images,omitempty"`
}

// maxContext bounds the context all PreRequest hooks add to one request.
const maxContext = 8 << 10

// PreRequest runs the PreRequest hooks one after another, in the
// workspace. The first that stops the request (exit status 2 with its
// reason on stderr, or a "block" or "deny" answer, as Claude Code's
// UserPromptSubmit hooks give) ends it: stopped is why. Otherwise added
// is the context the hooks gave for the model (plain text on stdout, or
// an answer's additionalContext), each after a line naming its hook, cut
// at maxContext. A hook that fails (does not start, times out, exits
// otherwise), or a hooks file that cannot be read, stops the request: the
// user meant something to check it; a Claude Code hook's other exit
// statuses do not (notBlocking), and are notes for the user, as its
// systemMessage is.
func (h *Hooks) PreRequest(ctx context.Context, req Request) (added, stopped string, notes []string) {
	hs, err := h.For(PreRequest)
	if err != nil {
		return "", fmt.Sprintf("the hooks file cannot be read, so requests are stopped: %v", err), nil
	}
	if len(hs) == 0 {
		return "", "", nil
	}
	req.Event = PreRequest
	in := stdin{
		own: func() ([]byte, error) { return jsonplain.Marshal(req, "") },
		claude: func(_ claudeTable, event string) any {
			return struct {
				claudeCommon
				Prompt string `json:"prompt"`
			}{h.common(ctx, req.Session, req.Workspace, event), req.Text}
		},
	}
	var said []string
	for _, k := range hs {
		payload, err := in.of(k)
		if err != nil {
			return "", fmt.Sprintf("the request cannot be handed to its hooks, so it is stopped: %v", err), notes
		}
		r := h.runTold(ctx, PreRequest, k, req.Workspace, payload)
		switch {
		case r.Err != nil:
			return "", fmt.Sprintf("%s failed, so the request is stopped: %v", describe(k), r.Err), notes
		case r.Exit == 2:
			return "", fmt.Sprintf("stopped by %s: %s", describe(k), cmp.Or(strings.TrimSpace(r.Stderr), "no reason given")), notes
		case r.Exit != 0 && k.Claude != "" && !k.FailClosed:
			notes = append(notes, notBlocking(k, r, "the request goes on"))
			continue
		case r.Exit != 0:
			return "", fmt.Sprintf("%s %s, so the request is stopped: %s", describe(k), exited(k, r), lastLine(r.Stderr)), notes
		}
		text, a := contextFrom(k, r.Stdout)
		if a.verdict == approval.HookDeny {
			return "", fmt.Sprintf("stopped by %s: %s", describe(k), a.reason), notes
		}
		if a.notice != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", describe(k), a.notice))
		}
		if text != "" {
			said = append(said, fmt.Sprintf("[context from %s]\n%s", describe(k), text))
		}
	}
	return joinContext(said), "", notes
}

// contextFrom reads the context hook k printed: plain text, or a JSON
// answer's additionalContext (the answer is returned too: a verdict, a
// notice for the user). Cursor reads only a JSON answer there, so a
// Cursor hook's plain output (its logging) is no context.
func contextFrom(k Hook, stdout string) (string, answer) {
	text := strings.TrimSpace(stdout)
	if !strings.Contains(text, "{") {
		if k.Cursor {
			return "", answer{}
		}
		return text, answer{}
	}
	a := readAnswer(stdout)
	if a != (answer{}) || k.Cursor {
		text = a.feedback
	}
	return text, a
}

// joinContext joins what hooks gave for the model, cut at maxContext.
func joinContext(said []string) string {
	added := strings.Join(said, "\n\n")
	if len(added) > maxContext {
		added = added[:textcut.Before(added, maxContext)] + "\n[cut: the hooks gave more than 8 KiB]"
	}
	return added
}

// Begin is what a SessionStart hook reads on stdin.
type Begin struct {
	Event     string `json:"event"` // SessionStart
	Session   string `json:"session"`
	Workspace string `json:"workspace"`
	Source    string `json:"source"` // one of Sources
	Model     string `json:"model,omitempty"`
	// EnvFile is a file the hooks may write shell text to (export
	// NAME=value lines), given to them as CLAUDE_ENV_FILE (Claude Code's
	// name) and SHRIMP_ENV_FILE; the session's shell commands read it
	// first. "" for none.
	EnvFile string `json:"-"`
}

// SessionStart runs the SessionStart hooks whose start pattern selects
// b.Source, one after another, in the workspace. added is the context
// they gave for the model (plain text on stdout, or an answer's
// additionalContext), each after a line naming its hook, cut at
// maxContext. They stop nothing: one that fails, times out or exits with
// another status than 0 is a note for the user (as its systemMessage
// is), and the session goes on without what it would have added.
func (h *Hooks) SessionStart(ctx context.Context, b Begin) (added string, notes []string) {
	hs, err := h.For(SessionStart)
	if err != nil {
		return "", []string{fmt.Sprintf("the hooks file cannot be read, so no session-start hook ran: %v", err)}
	}
	b.Event = SessionStart
	in := stdin{
		own: func() ([]byte, error) { return jsonplain.Marshal(b, "") },
		claude: func(_ claudeTable, event string) any {
			return struct {
				claudeCommon
				Source string `json:"source"`
				Model  string `json:"model,omitempty"`
			}{h.common(ctx, b.Session, b.Workspace, event), b.Source, b.Model}
		},
	}
	var said []string
	for _, k := range hs {
		if !k.Applies(b.Source) {
			continue
		}
		payload, err := in.of(k)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s did not run: %v", describe(k), err))
			continue
		}
		if b.EnvFile != "" {
			k.Env = maps.Clone(k.Env)
			if k.Env == nil {
				k.Env = map[string]string{}
			}
			k.Env["CLAUDE_ENV_FILE"], k.Env["SHRIMP_ENV_FILE"] = b.EnvFile, b.EnvFile
		}
		r := h.runTold(ctx, SessionStart, k, b.Workspace, payload)
		switch {
		case r.Err != nil:
			notes = append(notes, fmt.Sprintf("%s failed, so the session goes on without its context: %v", describe(k), r.Err))
			continue
		case r.Exit != 0:
			notes = append(notes, fmt.Sprintf("%s exited with status %d, so the session goes on without its context: %s", describe(k), r.Exit, lastLine(r.Stderr)))
			continue
		}
		text, a := contextFrom(k, r.Stdout)
		if a.notice != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", describe(k), a.notice))
		}
		if text != "" {
			said = append(said, fmt.Sprintf("[context from %s]\n%s", describe(k), text))
		}
	}
	return joinContext(said), notes
}

// RunEnd is what a PreRunEnd hook reads on stdin: the model's answer.
type RunEnd struct {
	Event     string `json:"event"` // PreRunEnd
	Session   string `json:"session,omitempty"`
	Workspace string `json:"workspace"`
	Request   string `json:"request"` // the user's request
	Answer    string `json:"answer"`
	// SentBack is how many times this request's run was sent back
	// already: a check that asks only once says nothing when it is over 0.
	SentBack int `json:"sent_back"`
	// ToolCalls is how many tool calls the run made so far: a request
	// answered without any changed nothing a test could check.
	ToolCalls int `json:"tool_calls"`
}

// PreRunEnd runs the PreRunEnd hooks one after another, in the
// workspace, once the model has answered. A hook sends the model back to
// work with exit status 2 and what is left to do on stderr, or a JSON
// answer {"decision": "block", "reason": "…"} (Claude Code's Stop
// hooks'); more is what the model is told then (each such hook's reason
// after a line naming it), "" to let the run end. {"continue": false}
// ends it whatever the others said. A hook that fails (does not start,
// times out, exits with another status, answers what cannot be read), a
// "block" without a reason, or a hooks file that cannot be read lets the
// run end: notes say so. A check that failed must not hold the model in
// a loop; the answer is there for the user to judge. Each hook is told
// to ctx's WithStarting as it starts: a check can take minutes.
func (h *Hooks) PreRunEnd(ctx context.Context, end RunEnd) (more string, notes []string) {
	hs, err := h.For(PreRunEnd)
	if err != nil {
		return "", []string{fmt.Sprintf("the hooks file cannot be read, so no %s hook checked the answer: %v", PreRunEnd, err)}
	}
	if len(hs) == 0 {
		return "", nil
	}
	end.Event = PreRunEnd
	in := stdin{
		prompt: end.Request,
		loops:  end.SentBack,
		own:    func() ([]byte, error) { return jsonplain.Marshal(end, "") },
		claude: func(_ claudeTable, event string) any {
			return struct {
				claudeCommon
				Active bool   `json:"stop_hook_active"`
				Answer string `json:"last_assistant_message"`
			}{h.common(ctx, end.Session, end.Workspace, event), end.SentBack > 0, end.Answer}
		},
	}
	var said []string
	for _, k := range hs {
		payload, err := in.of(k)
		if err != nil {
			return "", append(notes, fmt.Sprintf("the answer cannot be handed to its %s hooks, so none checked it: %v", PreRunEnd, err))
		}
		r := h.runTold(ctx, PreRunEnd, k, end.Workspace, payload)
		if k.event().Observe {
			if why := observerFailed(k, r); why != "" {
				notes = append(notes, why)
			}
			continue
		}
		reason, says := "", "says the request is not done"
		switch {
		case r.Err != nil:
			notes = append(notes, fmt.Sprintf("%s failed, so it did not check the answer: %v", describe(k), r.Err))
			continue
		case r.Exit == 2:
			reason = strings.TrimSpace(r.Stderr)
		case r.Exit != 0 && k.Claude != "":
			notes = append(notes, notBlocking(k, r, "the run may end"))
			continue
		case r.Exit != 0:
			notes = append(notes, fmt.Sprintf("%s %s, so it did not check the answer: %s", describe(k), exited(k, r), lastLine(r.Stderr)))
			continue
		default:
			a, found, looked := lastReply(r.Stdout)
			if !found {
				if looked != "" {
					notes = append(notes, fmt.Sprintf("%s answered what is not a JSON answer (%s), so it did not check the answer", describe(k), cut(looked)))
				}
				continue
			}
			if n := firstOf(a.Notice); n != "" {
				notes = append(notes, fmt.Sprintf("%s: %s", describe(k), n))
			}
			if a.Continue != nil && !*a.Continue {
				notes = append(notes, fmt.Sprintf("%s ends the run: %s", describe(k), firstOf(a.StopReason, "no reason given")))
				return "", notes
			}
			if f := firstOf(a.Followup); f != "" { // Cursor's stop: what the agent is sent next
				reason, says = f, "sends you this"
				break
			}
			switch d := strings.ToLower(strings.TrimSpace(a.Decision)); d {
			case "", "approve", "allow":
				continue
			case "block", "deny":
				reason = firstOf(a.Reason, a.Specific.Context)
			default:
				notes = append(notes, fmt.Sprintf("%s answered %q, which is not block, so it did not send the model back", describe(k), cut(a.Decision)))
				continue
			}
		}
		if reason == "" {
			notes = append(notes, fmt.Sprintf("%s said the request is not done without saying why, so the model was not sent back (write what is left on stderr, or as the answer's reason)", describe(k)))
			continue
		}
		said = append(said, fmt.Sprintf("[%s, run when you answered, %s]\n%s", describe(k), says, reason))
	}
	more = strings.Join(said, "\n\n")
	if len(more) > maxContext {
		more = more[:textcut.Before(more, maxContext)] + "\n[cut: the hooks said more than 8 KiB]"
	}
	return more, notes
}

// ToolDone is what a PostToolCall hook reads on stdin: the call and its
// result.
type ToolDone struct {
	ToolCall
	Output string `json:"output"`
	Error  string `json:"error,omitempty"`
}

// maxDoneOutput is the most of a call's output handed to a PostToolCall
// hook.
const maxDoneOutput = 256 << 10

// After is what the PostToolCall hooks made of a call's result.
type After struct {
	Feedback string   // for the model, after the result (or the replacement)
	Failures []string // for the user
	// Replaced, when not "", is what the model reads in place of the
	// result, after a line naming the hook: a Gemini CLI AfterTool hook
	// that hides it (exit status 2 with stderr, "decision": "deny" with a
	// reason, or hookSpecificOutput.tool_output), or a Claude Code
	// PostToolUse hook's updatedToolOutput (updatedMCPToolOutput for an
	// MCP tool), as a redacting hook there does. The last such hook's
	// text wins.
	Replaced string
	// Stop, when not "", says that a hook ended the run after this call
	// ({"continue": false}, with its stopReason: Claude Code's and Gemini
	// CLI's meaning, and Shrimp's own, as at pre-run-end), and why.
	Stop string
}

// PostToolCall runs the PostToolCall hooks that match the call, one after
// another, and returns what they made of its result: what they said for
// the model, each after a line naming its hook; a message for each hook
// that failed (it could not start, timed out, crashed or exited with a
// status other than 0 and 2) or said something for the user (a Claude
// Code hook's systemMessage), reported, not given to the model; the
// text that replaces the result, when a hook hid it; and why the run
// ends, when a hook answered {"continue": false}.
func (h *Hooks) PostToolCall(ctx context.Context, done ToolDone) After {
	hs, err := h.For(PostToolCall)
	if err != nil {
		return After{Failures: []string{fmt.Sprintf("the hooks file cannot be read, so no %s hook ran: %v", PostToolCall, err)}}
	}
	done.Event = PostToolCall
	if len(done.Output) > maxDoneOutput {
		done.Output = done.Output[:textcut.Before(done.Output, maxDoneOutput)]
	}
	in := stdin{ // made for the first hook that matches: most calls have none
		own: func() ([]byte, error) {
			done.Arguments = jsonplain.Plain(done.Arguments)
			return jsonplain.Marshal(done, "")
		},
		claude: func(t claudeTable, event string) any {
			return claudeCall(t, h.common(ctx, done.Session, done.Workspace, event, pendingCall(done.ToolCall)), done.ToolCall, &done)
		},
	}
	var said []string
	var out After
	replace := func(k Hook, text string) {
		out.Replaced = fmt.Sprintf("[the result was replaced by %s]\n%s", describe(k), cmp.Or(strings.TrimSpace(text), "(no text given)"))
	}
	for _, k := range hs {
		if !k.Applies(done.Tool) || !k.claudeRuns(done.Error != "") {
			continue
		}
		payload, err := in.of(k)
		if err != nil {
			out.Failures = append(out.Failures, fmt.Sprintf("the call cannot be handed to its %s hooks: %v", PostToolCall, err))
			return out
		}
		r := h.runTold(ctx, PostToolCall, k, done.Workspace, payload)
		if k.event().Observe {
			if why := observerFailed(k, r); why != "" {
				out.Failures = append(out.Failures, why)
			}
			continue
		}
		switch {
		case r.Err != nil:
			out.Failures = append(out.Failures, fmt.Sprintf("%s after %s: %v", describe(k), done.Tool, r.Err))
		case r.Exit == 2 && k.Gemini:
			replace(k, r.Stderr)
		case r.Exit == 2:
			if msg := strings.TrimSpace(r.Stderr); msg != "" {
				said = append(said, fmt.Sprintf("[%s after this call]\n%s", describe(k), msg))
			}
		case r.Exit != 0:
			out.Failures = append(out.Failures, fmt.Sprintf("%s after %s %s: %s", describe(k), done.Tool, exited(k, r), lastLine(r.Stderr)))
		default:
			rep, found, looked := lastReply(r.Stdout)
			if found && rep.Continue != nil && !*rep.Continue {
				out.Stop = fmt.Sprintf("%s ended the run after %s: %s", describe(k), done.Tool, firstOf(rep.StopReason, rep.Reason, "no reason given"))
				continue
			}
			a := answerOf(rep, found, looked)
			if found && k.Claude != "" {
				text, replaces := rep.replacement(done.Tool)
				switch {
				case k.Gemini && a.verdict == approval.HookDeny:
					replace(k, firstOf(rep.Reason, rep.StopReason, rep.Specific.Output))
					a.feedback = rep.Specific.Context
				case k.Gemini && rep.Specific.Output != "":
					replace(k, rep.Specific.Output)
					a.feedback = rep.Specific.Context
				case !k.Gemini && replaces:
					replace(k, text)
				}
			}
			if a.feedback != "" {
				said = append(said, fmt.Sprintf("[%s after this call]\n%s", describe(k), a.feedback))
			}
			if a.notice != "" {
				out.Failures = append(out.Failures, fmt.Sprintf("%s after %s: %s", describe(k), done.Tool, a.notice))
			}
		}
	}
	out.Feedback = strings.Join(said, "\n\n")
	return out
}

// observerFailed says how a hook whose answer is not read (an observe
// event's: Cursor's afterFileEdit) failed, "" when it did not.
func observerFailed(k Hook, r Result) string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("%s failed: %v", describe(k), r.Err)
	case r.Exit != 0:
		return fmt.Sprintf("%s exited with status %d: %s", describe(k), r.Exit, lastLine(r.Stderr))
	}
	return ""
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// Observer is the bus subscriber that runs the observing hooks: each
// event goes to the hooks of its type, run side by side in dir (the
// user's home folder when empty). A Claude Code hook runs in the
// session's workspace instead, when Workspace knows it: its scripts are
// named from the project ($CLAUDE_PROJECT_DIR), and cwd tells it where.
type Observer struct {
	Hooks     *Hooks
	Dir       string
	Workspace func(ctx context.Context, session string) string // optional
}

// Wants reports whether any enabled hook observes the event type (the
// subscriber's filter, on the publisher's path: it does no I/O, and
// events nobody hooks cost nothing).
func (o *Observer) Wants(t agent.Type) bool {
	return t != "" && !InLoop(string(t)) && o.Hooks.Watched(string(t))
}

// Handle runs the event's hooks and reports those that failed as one
// error (the bus turns it into bus:subscriber-failed).
func (o *Observer) Handle(ctx context.Context, e agent.Event) error {
	hs, err := o.Hooks.For(string(e.Type))
	if err != nil {
		return err
	}
	if len(hs) == 0 {
		return nil
	}
	payload, err := eventPayload(e)
	if err != nil {
		return fmt.Errorf("hooks: encode %s: %w", e.Type, err)
	}
	dir := o.Dir
	if dir == "" {
		dir, _ = os.UserHomeDir()
	}
	// What a Claude Code hook reads, worked out only when one observes.
	project, seen := dir, eventView{}
	if slices.ContainsFunc(hs, func(k Hook) bool { return k.Claude != "" }) {
		seen = viewOf(e, payload)
		if o.Workspace != nil && e.Session != "" {
			project = cmp.Or(o.Workspace(ctx, e.Session), dir)
		}
	}
	// The session's transcript is brought up to date once for the event,
	// however many Claude Code hooks read it.
	common := sync.OnceValue(func() claudeCommon { return o.Hooks.common(ctx, e.Session, project, "") })
	errs := make([]error, len(hs))
	var wg sync.WaitGroup
	for i, k := range hs {
		in, at := payload, dir
		if k.Claude != "" {
			v, ok := claudeObserved(k, seen, func() claudeCommon { c := common(); c.Event = k.Claude; return c })
			if !ok {
				continue
			}
			var err error
			if k.Gemini {
				v, err = geminiForm(v, "")
			}
			if err == nil {
				in, err = eventPayload(v)
			}
			if err != nil {
				errs[i] = fmt.Errorf("hooks: encode %s for %s: %w", e.Type, describe(k), err)
				continue
			}
			at = project
		}
		wg.Go(func() {
			r := Run(ctx, k, at, in)
			switch {
			case r.Err != nil:
				errs[i] = fmt.Errorf("%s on %s: %w", describe(k), e.Type, r.Err)
			case r.Exit != 0:
				errs[i] = fmt.Errorf("%s on %s exited with status %d: %s", describe(k), e.Type, r.Exit, lastLine(r.Stderr))
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
