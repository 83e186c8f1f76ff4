package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/facts"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/injection"
	"github.com/shrimp-harness/shrimp/backend/instructions"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/procedures/agentmem"
	"github.com/shrimp-harness/shrimp/backend/prompt"
	"github.com/shrimp-harness/shrimp/backend/protected"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/backend/skills"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/backend/tool/files"
	"github.com/shrimp-harness/shrimp/backend/tool/outputs"
	"github.com/shrimp-harness/shrimp/backend/tool/shell"
	"github.com/shrimp-harness/shrimp/backend/tool/web"
	"github.com/shrimp-harness/shrimp/backend/working"
)

// ChatOptions describe one request.
type ChatOptions struct {
	SessionID string            // "" starts a new session
	Model     string            // "" means the configured model, else the first installed
	Workspace string            // the directory the tools work in ("": the session's, else the current one)
	Text      string            // the request
	Images    []attach.Image    // attached to it (attach.Read), for a model that can see
	Approve   approval.Mode     // "" means ask
	Prompt    approval.Prompter // nil: nobody can be asked
	// Unasked says why nobody can be asked, when Prompt is nil ("": there
	// is no terminal).
	Unasked string
	// Ask puts a tool's question during its call (an MCP server's
	// elicitation) to the user; nil: nobody can be asked, and the tool is
	// told the question was cancelled.
	Ask Asker
	// MaxTurns is the model turns the request may take; 0: App.MaxTurns
	// ($SHRIMP_MAX_TURNS, else Settings, else DefaultMaxTurns).
	MaxTurns int
	// Think is what to ask of a reasoning model's thinking; ThinkDefault:
	// what Settings (or SHRIMP_THINK) says, else the model's own.
	Think model.Think
	// AllowPrivateNet lets web.fetch reach loopback and private addresses
	// (a local service the user wants the agent to read).
	AllowPrivateNet bool
	// NoMemory runs without procedural memory: nothing recalled, nothing
	// learned (the benchmark's "off" arm).
	NoMemory bool
	// Outside names where the request's text came from when the user did
	// not write it nor see it before it was sent (a project's saved
	// command sent from the terminal: its file): the session counts as
	// having read text from outside, as after a web page, so its calls
	// that write or run are asked again.
	Outside string
	// Replace, the seq of one of session SessionID's agent:run-started,
	// makes this request a retry or an edit of that request: it and the
	// requests after it leave the model's history (App.Retry fills it).
	Replace int64
	// UndoReplaced puts back the files the replaced requests changed
	// first (as UndoFiles from Replace on), so the retry starts from the
	// files they started from.
	UndoReplaced bool
	// Starting is told each session-start and pre-request hook as it
	// starts, before the run has events to say so (the terminal names one
	// that takes a while); the func it returns is called when it is done.
	Starting func(HookRunning) (done func())
}

// systemPrompt tells the model how to work in Shrimp.
const systemPrompt = `You are Shrimp, an assistant that completes tasks on the user's computer by calling tools.
Work inside the workspace directory; paths are relative to it. Call one tool at a time, read its result, then decide the next step.
To do something, call its tool in that reply: a reply without a tool call ends your turn.
When the task is done, answer briefly in plain text.`

// SessionModel returns the model to go on with session: the configured
// one (--model, SHRIMP_MODEL), else the one the session used when it is
// still installed, else ResolveModel's. A session goes on with its model
// unless the user names another: its history was written with it.
func (a *App) SessionModel(ctx context.Context, session string) (string, error) {
	var sess store.Session
	if session != "" && a.Config.Model == "" {
		sess, _ = a.Store.Session(ctx, session) // gone: as a new session
	}
	return a.modelFor(ctx, sess)
}

// modelFor is SessionModel for a session already read (zero: a new one).
func (a *App) modelFor(ctx context.Context, sess store.Session) (string, error) {
	if a.Config.Model == "" && sess.Model != "" {
		if models, err := a.Model.List(ctx); err == nil && slices.ContainsFunc(models, func(m model.Info) bool { return model.SameModel(m.Name, sess.Model) }) {
			return sess.Model, nil
		}
	}
	return a.ResolveModel(ctx)
}

// ResolveModel returns the configured model (--model, SHRIMP_MODEL: by the
// name Ollama lists it, model.Client.Listed), else
// the default chosen in Settings while it is installed, else the first
// installed one (by name) that can call tools; when Ollama says none can, the first
// that is not an embedding model (its tools then go in its prompt:
// backend/model).
func (a *App) ResolveModel(ctx context.Context) (string, error) {
	if a.Config.Model != "" {
		return a.Model.Listed(ctx, a.Config.Model), nil
	}
	models, err := a.Model.List(ctx)
	if err != nil {
		return "", err
	}
	if len(models) == 0 {
		return "", fmt.Errorf("no models are installed on %s: pull one with `ollama pull qwen3`, then pass --model or set SHRIMP_MODEL", a.Model.Shown())
	}
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = m.Name
	}
	if m := savedDefault(ctx, a.Store, names); m != "" {
		return m, nil
	}
	details := a.Model.ShowAll(ctx, names) // a model it could not describe is taken to chat
	for _, can := range []func(model.Details) bool{model.Details.Tools, model.Details.Chats} {
		if i := slices.IndexFunc(names, func(n string) bool { return can(details[n]) }); i >= 0 {
			return names[i], nil
		}
	}
	return names[0], nil
}

// savedDefault returns the installed model that the default chosen in
// Settings names, "" when none is chosen (or st is nil) or it is not
// installed.
func savedDefault(ctx context.Context, st *store.Store, installed []string) string {
	if st == nil {
		return ""
	}
	chosen, _ := st.Setting(ctx, SettingDefaultModel)
	if i := slices.IndexFunc(installed, func(n string) bool { return model.SameModel(n, chosen) }); chosen != "" && i >= 0 {
		return installed[i]
	}
	return ""
}

// Registry returns the built-in tools for a workspace, shell commands
// confined to it when confined is set (ShellSandbox). Close the returned
// workspace when the run is over.
func Registry(workspace string, allowPrivateNet, confined bool) (*tool.Registry, *files.Workspace, error) {
	reg, ws, _, err := registry(workspace, allowPrivateNet, confined)
	return reg, ws, err
}

// registry is Registry with the shell tool's runner, for a run to watch
// what its commands change.
func registry(workspace string, allowPrivateNet, confined bool) (*tool.Registry, *files.Workspace, *shell.Runner, error) {
	ws, err := files.Open(workspace)
	if err != nil {
		return nil, nil, nil, err
	}
	sh := &shell.Runner{Dir: ws.Dir(), Confined: confined}
	fetch := &web.Fetcher{AllowPrivate: allowPrivateNet}
	reg, err := tool.NewRegistry(append(ws.Tools(), sh.Tool(), fetch.Tool())...)
	if err != nil {
		ws.Close()
		return nil, nil, nil, err
	}
	reg.SetAliases(hooks.OtherTools()) // a model may call shell.run Bash, as Claude Code names it, with its arguments
	return reg, ws, sh, nil
}

// ErrStoppedByHook means a pre-request hook stopped the request before
// it started a run.
var ErrStoppedByHook = errors.New("the request was not sent")

// Chat runs one request and returns its session and its event stream.
// Call done when the stream has been consumed.
func (a *App) Chat(ctx context.Context, o ChatOptions) (sessionID string, events iter.Seq2[agent.Event, error], done func(), err error) {
	if o.Text == "" {
		return "", nil, nil, errors.New("the request is empty: say what Shrimp should do")
	}
	turns := o.MaxTurns
	if turns == 0 {
		if turns, err = a.MaxTurns(ctx); err != nil {
			return "", nil, nil, err
		}
	} else if err := checkTurns(turns); err != nil {
		return "", nil, nil, err
	}
	// Pasted text (an email, a page) can hide instructions from the user
	// who pastes it, not from the model.
	var hidden int
	o.Text, hidden = injection.Unhide(o.Text)
	// A session goes on in the folder it worked in: its history is about
	// that folder's files (the current directory may be another project).
	var sess store.Session // the session gone on with, if any
	if o.SessionID != "" {
		if sess, err = a.Store.Session(ctx, o.SessionID); err != nil {
			return "", nil, nil, err
		}
	}
	if o.Workspace == "" && o.SessionID != "" {
		if sess.Workspace != "" {
			if fi, err := os.Stat(sess.Workspace); err != nil || !fi.IsDir() {
				return "", nil, nil, fmt.Errorf("session %s worked in %s, which is no longer a folder; to go on with it elsewhere, name the folder (--workspace DIR)", o.SessionID, sess.Workspace)
			}
			o.Workspace = sess.Workspace
		}
	}
	if o.Workspace == "" {
		if o.Workspace, err = os.Getwd(); err != nil {
			return "", nil, nil, err
		}
	}
	// A slip in the folder's name is said before Ollama is asked anything
	// (it may be down too: that is the next thing to mend).
	ws, err := files.Open(o.Workspace)
	if err != nil {
		return "", nil, nil, err
	}
	ws.Close()
	modelName := o.Model
	if modelName == "" {
		modelName, err = a.modelFor(ctx, sess)
	}
	if err != nil {
		return "", nil, nil, err
	}
	confined := a.ShellSandbox(ctx).On
	reg, ws, sh, err := registry(o.Workspace, o.AllowPrivateNet, confined)
	if err != nil {
		return "", nil, nil, err
	}
	// What the file tools replace, and what shell commands change, is
	// kept first, so the request's file changes can be undone.
	calls := &runCalls{}
	journal := a.Undo.Journal(ws.Dir(), calls.at)
	ws.Journal = journal
	if undoShellOn() {
		sh.Watch = journal.Watch
	}
	var sessID string
	emit := func(ctx context.Context, t agent.Type, data any) error {
		return a.Recorder.Emit(ctx, sessID, t, data)
	}
	// Without procedural memory (another Shrimp owns its index, and this
	// one could not build its own) the request still runs; the loop
	// reports the recall error as a warning.
	var recaller agent.Recaller
	var mem *procedures.Memory
	memErr := errNoMemory
	if !o.NoMemory {
		mem, memErr = a.Memory(ctx)
	}
	switch {
	case errors.Is(memErr, errNoMemory):
	case memErr == nil:
		if reg, err = reg.With(agentmem.ForgetTool(mem, emit)); err != nil {
			ws.Close()
			return "", nil, nil, err
		}
	case errors.Is(memErr, procedures.ErrLocked):
		recaller = unavailable{memErr}
	default:
		ws.Close()
		return "", nil, nil, memErr
	}
	var live *liveTools // set below, before the run starts
	seen := a.outsideSeen(sess.Outside, func() string { return sessID })
	if o.Outside != "" {
		seen.mark(o.Outside)
	}
	rules := pinnedRules{a.Store, func(name string) (tool.Tool, bool) { return live.Lookup(name) }}
	wsKey := WorkspaceKey(ws.Dir())
	desc := describe(ws.Dir(), confined, a.ownFolders()...)
	gate := &approval.Gate{
		Mode:      o.Approve,
		Workspace: wsKey,
		Rules:     rules,
		Calls:     secretCalls{a.Store, a.Recorder.RedactText},
		ReadOnly: func(name string) bool {
			t, ok := live.Lookup(name)
			return ok && t.ReadOnly()
		},
		Prompt:  o.Prompt,
		Unasked: o.Unasked,
		Emit:    emit,
		Outside: seen.source,
		Hooks: func(ctx context.Context, call agent.ToolCall) (string, approval.HookVerdict) {
			reason, verdict, notes := a.Hooks.PreToolCall(namedWhenSlow(ctx, emit), hooks.ToolCall{Session: sessID, Workspace: ws.Dir(), ID: call.ID, Tool: call.Name, Arguments: call.Arguments})
			for _, n := range notes {
				_ = emit(context.Background(), agent.TypeError, agent.Error{Kind: agent.KindWarning, Message: "hook: " + n})
			}
			return reason, verdict
		},
		Describe: func(call agent.ToolCall) approval.Detail {
			d := desc(call)
			// A server's tool is what its server says it is: the user sees
			// that, as the model does, before trusting it.
			if t, ok := live.Lookup(call.Name); ok {
				if s, ok := t.(said); ok {
					effects, warnings := s.Said()
					d.Effects = append(d.Effects, effects...)
					d.Warnings = append(d.Warnings, warnings...)
				}
			}
			if why := rules.changed(context.Background(), wsKey, call.Name); why != "" {
				d.MustAsk = true
				d.Warnings = append(d.Warnings, why)
			}
			d.Warnings = append(d.Warnings, ws.Doubts(context.Background(), call.Name, call.Arguments)...)
			if o, ok := live.offeredBy(call.ID); ok {
				d.MustAsk = true
				runs := ""
				if !o.removed && o.mode&0o111 != 0 {
					runs = fmt.Sprintf(" (executable, mode %04o: it can run)", o.mode)
				}
				d.Warnings = append(d.Warnings, fmt.Sprintf("the model did not ask for this: %s, which a standing answer allowed, changed this file, and Shrimp put it back as it was; allow to leave it as %s did%s, deny to keep it as it was", o.by, o.by, runs))
			}
			return d
		},
		Preview: func(ctx context.Context, call agent.ToolCall) string {
			switch call.Name {
			case "fs.write":
				return ws.WritePreview(ctx, call.Arguments)
			case "fs.edit":
				return ws.EditPreview(ctx, call.Arguments)
			}
			return ""
		},
	}
	numCtx, err := a.Store.NumCtx(ctx, modelName)
	if err != nil {
		ws.Close()
		return "", nil, nil, err
	}
	params, err := a.ModelParams(ctx, modelName)
	if err != nil {
		ws.Close()
		return "", nil, nil, err
	}
	// A model Ollama does not have, or cannot chat with, is said before
	// the run: not after a note that Ollama loads it.
	d, err := a.details(ctx, modelName)
	if err := model.CheckChat(modelName, d, err); err != nil {
		ws.Close()
		if errors.Is(err, model.ErrModelMissing) {
			// `ollama pull qwen3:4b`, then `--model qwen3`: the tag is
			// what is missing.
			if others := a.Model.OtherTags(ctx, modelName); len(others) > 0 {
				err = fmt.Errorf("%w; installed with another tag: %s (--model %s)", err, strings.Join(others, ", "), others[0])
			}
		}
		return "", nil, nil, err
	}
	if err := a.checkImages(ctx, modelName, d, o.Images); err != nil {
		ws.Close()
		return "", nil, nil, err
	}
	n, capped := contextFor(numCtx, d.ContextLength)
	var ctxNote string
	if capped {
		ctxNote = fmt.Sprintf("the context size set for %s (%d tokens) is more than it was trained for; Ollama gives it %d, so this request is fitted to %d (`shrimp models ctx %s %d`, or Settings, says so for good)", modelName, numCtx, n, n, modelName, n)
	}
	numCtx = n
	fm, err := a.Facts(ctx)
	if err != nil {
		ws.Close()
		return "", nil, nil, err
	}
	notes := working.New(a.Store, func() string { return sessID })
	notes.Redact = a.Recorder.RedactText
	extra := append(append([]tool.Tool{outputs.Tool(a.Store, func() string { return sessID }, ws.Dir())}, fm.Tools(emit)...), notes.Tools()...)
	// The workspace's and the user's skills: their catalog goes into the
	// instructions below, and skill.read is offered only when there are
	// some.
	found := a.Skills(ws.Dir())
	if len(found.Skills) > 0 {
		extra = append(extra, skills.Tool(func() skills.Found { return found }))
	}
	if reg, err = reg.With(extra...); err != nil {
		ws.Close()
		return "", nil, nil, err
	}
	// Facts and working memory go into the system prompt, each under a
	// tenth of num_ctx, in tokens (internal/tokens).
	ctxTokens := numCtx
	if ctxTokens == 0 {
		ctxTokens = agent.DefaultNumCtx
	}
	// Prompt hooks are asked of the request's model; what that costs is
	// the run's (hook:judged), held until the run starts for the hooks
	// that run before it.
	var judged struct {
		sync.Mutex
		early []agent.Event
		live  bool
	}
	ctx = hooks.WithJudge(ctx, a.judge(ctx, modelName, ctxTokens, a.thinking(o.Think).Value(), func(j HookJudged) {
		judged.Lock()
		defer judged.Unlock()
		if !judged.live {
			judged.early = append(judged.early, agent.Event{Type: TypeHookJudged, Data: j})
			return
		}
		_ = emit(context.Background(), TypeHookJudged, j)
	}))
	// MCP servers' tools join the run's tools, live; their definitions
	// share a quarter of the context with the built-ins'. The servers are
	// told the workspace (MCP roots) while the run is under way.
	leaveRoots := a.enterRoots(ws.Dir())
	closeWS := func() { ws.Close(); leaveRoots() }
	mgr, mcpWarns := a.startMCP()
	maxTools := 0
	v := os.Getenv("SHRIMP_MAX_TOOLS")
	if v == "" {
		v, _ = a.Store.Setting(ctx, SettingMaxTools)
	}
	if v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			maxTools = n
		}
	}
	sub := instructions.NewNested(ws.Dir())
	live = &liveTools{base: reg, mgr: mgr, dir: ws.Dir(), fileWrites: &a.fileWrites, request: o.Text, budget: ctxTokens / ToolShare, maxTools: maxTools,
		outside: func(src string) { seen.mark(a.Recorder.RedactText(src)) },
		warn: func(msg string) {
			_ = emit(context.Background(), agent.TypeError, agent.Error{Kind: agent.KindWarning, Message: msg})
		},
		nested:   subfolderInstructions(sub, ws.Dir(), emit),
		progress: progressReporter(emit),
		ask:      questionAsker(emit, o.Ask),
		sample:   a.sampler(o.Approve, o.Ask != nil, modelName, params, ctxTokens, a.thinking(o.Think).Value(), emit),
		after: func(ctx context.Context, name string, args json.RawMessage, out string, err error) hooks.After {
			done := hooks.ToolDone{ToolCall: hooks.ToolCall{Session: sessID, Workspace: ws.Dir(), ID: agent.CallID(ctx), Tool: name, Arguments: args}, Output: out}
			if err != nil {
				done.Error = err.Error()
			}
			// What a hook changes (a formatter rewriting the file just
			// written) is part of the call, watched as a command is: undo
			// then takes the file back past it, instead of leaving it as
			// changed since Shrimp wrote it.
			if undoShellOn() && a.Hooks.Apply(hooks.PostToolCall, name) {
				defer journal.Watch(ctx)()
			}
			r := a.Hooks.PostToolCall(namedWhenSlow(ctx, emit), done)
			for _, f := range r.Failures {
				_ = emit(context.Background(), agent.TypeError, agent.Error{Kind: agent.KindWarning, Message: "hook: " + f})
			}
			return r
		},
	}
	if o.Prompt != nil {
		live.offer = func(ctx context.Context, call agent.ToolCall) agent.Decision {
			d, err := gate.Approve(ctx, call)
			if err != nil {
				return agent.Decision{}
			}
			return d
		}
	}
	var watchChecks func(context.Context) func() // what pre-run-end hooks change
	if undoShellOn() {
		live.watch = journal.Watch
		watchChecks = journal.Watch
	}
	if memErr == nil {
		recaller = tapRecall{&agentmem.Recaller{Memory: mem, Has: live.Has, Declines: a.declines}, live}
	}
	share := ctxTokens / 10
	system := systemPrompt
	if p := fm.Prompt(o.Text, share); p != "" {
		system += "\n\n" + p
	}
	if o.SessionID != "" {
		sessID = o.SessionID
		if p := notes.Prompt(ctx, share); p != "" {
			system += "\n\n" + p
		}
	}
	// The workspace's AGENTS.md files, read afresh for every request, in
	// a share of the context like the rest (a fifth of it).
	var prep []agent.Event
	if hidden > 0 {
		prep = append(prep, agent.Event{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: fmt.Sprintf("the request held %d invisible characters (Unicode tags or variation selectors, as pasted text can carry) that could hold instructions you did not see: they were removed", hidden)}})
	}
	if o.SessionID == "" { // said once, when a session starts
		if msg := a.ProjectServers(ws.Dir()); msg != "" {
			mcpWarns = append(mcpWarns, msg)
		}
		if msg := a.ProjectHooks(ws.Dir()); msg != "" {
			mcpWarns = append(mcpWarns, msg)
		}
	}
	for _, w := range mcpWarns {
		prep = append(prep, agent.Event{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: w}})
	}
	if ctxNote != "" {
		prep = append(prep, agent.Event{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: ctxNote}})
	}
	// The session-start hooks run at a session's first request in this
	// process, and what they add is context for each of its requests here.
	newID, source := "", "resume"
	if o.SessionID == "" {
		newID, source = session.NewID(), "startup"
	}
	// A new session that is not started after all leaves no transcript
	// a Claude Code hook was given, and no context held for it.
	notStarted := func() {
		closeWS()
		if newID != "" {
			a.begun.Delete(newID)
			_ = a.Hooks.Transcripts.Forget(newID)
			if f := a.sessionEnvFile(newID); f != "" {
				_ = os.Remove(f)
			}
		}
	}
	hookCtx := ctx
	if o.Starting != nil {
		hookCtx = hooks.WithStarting(ctx, func(event, hook string) func() { return o.Starting(HookRunning{Event: event, Hook: hook}) })
	}
	known, _ := a.known.LoadOrStore(cmp.Or(o.SessionID, newID)+"|"+ws.Dir(), &files.Known{})
	ws.Known = known.(*files.Known)
	sh.EnvFile = a.sessionEnvFile(cmp.Or(o.SessionID, newID))
	begun, first, said := a.sessionBegun(hookCtx, hooks.Begin{Session: cmp.Or(o.SessionID, newID), Workspace: ws.Dir(), Source: source, Model: modelName, EnvFile: sh.EnvFile})
	if err := ctx.Err(); err != nil {
		notStarted()
		return "", nil, nil, stoppedBefore(hooks.SessionStart, err)
	}
	for _, n := range said {
		prep = append(prep, agent.Event{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: "hook: " + n}})
	}
	if begun != "" {
		system += "\n\nContext your own hooks added when this session began:\n" + begun
		if first {
			prep = append(prep, agent.Event{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: fmt.Sprintf("your session-start hooks added %d characters of context for the model, for each request of this session", len(begun))}})
		}
	}
	// The user's pre-request hooks may stop the request or add context
	// (theirs: hooks.json is the user's own file).
	added, stopped, said := a.Hooks.PreRequest(hookCtx, hooks.Request{Session: cmp.Or(o.SessionID, newID), Workspace: ws.Dir(), Text: o.Text, Images: o.Images})
	for _, n := range said {
		prep = append(prep, agent.Event{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: "hook: " + n}})
	}
	if err := ctx.Err(); err != nil {
		notStarted()
		return "", nil, nil, stoppedBefore(hooks.PreRequest, err)
	}
	if stopped != "" {
		notStarted()
		return "", nil, nil, fmt.Errorf("%w: %s (see `shrimp hooks list`)", ErrStoppedByHook, stopped)
	}
	if added != "" {
		// What a hook prints may come from files it read (a commit
		// message): text the user cannot see is removed, as from any tool.
		added, _ = injection.Unhide(added)
		system += "\n\nContext your own hooks added for this request:\n" + added
		prep = append(prep, agent.Event{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: fmt.Sprintf("your pre-request hooks added %d characters of context for the model", len(added))}})
	}
	if c := found.Catalog(share * 4); c != "" { // share is in tokens: about four bytes each
		system += "\n\n" + c
	}
	for _, w := range found.Warnings {
		prep = append(prep, agent.Event{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: "skills: " + w}})
	}
	in := a.Instructions(ws.Dir(), share*2)
	sub.Use(in) // the rules a file tool's result may bring, read once
	if len(in.Files) > 0 || len(in.Warnings) > 0 {
		if in.Block != "" {
			system += "\n\n" + in.Block
		}
		prep = append(prep, agent.Event{Type: instructions.TypeLoaded, Data: instructions.LoadedEvent{Files: in.Files, Warnings: in.Warnings}})
		for _, w := range in.Warnings {
			prep = append(prep, agent.Event{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: "instructions: " + w}})
		}
	}
	ag := &agent.Agent{Model: a.Model, Tools: live, Approver: gate, NumCtx: numCtx, MaxTurns: turns, Recaller: recaller, Shortfall: a.shortfall(modelName),
		Context:  &prompt.Fitter{Model: a.Model, ModelName: modelName, Memory: summaries{a.Store.Summaries(), a.Recorder, &sessID}},
		Outputs:  keeper{a.Recorder, a.Store, &sessID, ws.Dir()},
		Finisher: checks{a.Hooks, &sessID, ws.Dir(), o.Text, emit, watchChecks},
	}
	// A model without tool calling gets its tools in the prompt, a busy
	// Ollama is asked again (backend/model); the run says each once.
	var noticed sync.Map
	ctx = model.WithNotice(ctx, func(msg string) {
		if _, said := noticed.LoadOrStore(msg, true); !said {
			_ = emit(context.Background(), agent.TypeError, agent.Error{Kind: agent.KindWarning, Message: msg})
		}
	})
	judged.Lock()
	prep = append(prep, judged.early...)
	judged.live = true
	judged.Unlock()
	start := session.Start{
		SessionID: cmp.Or(o.SessionID, newID),
		New:       o.SessionID == "",
		Workspace: ws.Dir(),
		Request:   agent.Request{Model: modelName, Text: o.Text, Images: o.Images, Blind: !d.Sees(), System: system, Think: a.thinking(o.Think).Value(), Options: params.Options(), Events: prep},
	}
	if o.SessionID != "" && o.Replace > 0 {
		start.Replace = o.Replace
		start.BeforeReplace = func(ctx context.Context) error {
			if o.UndoReplaced {
				if _, err := a.undoHeld(ctx, o.SessionID, o.Replace); err != nil { // a plan without files when they changed none
					return err
				}
			}
			return a.declineRetried(ctx, o.SessionID, o.Replace, o.Text)
		}
	}
	sessID, events, err = a.Runner.Run(ctx, ag, start)
	if err != nil {
		notStarted()
		return "", nil, nil, err
	}
	// The session is stored now: a mark made before it was (the request's
	// own text from outside, o.Outside) is kept for its later runs, even
	// when this one calls no tool.
	seen.flush()
	return sessID, calls.follow(events), closeWS, nil
}

// stoppedBefore is the error of a request stopped (its context ended,
// the cause it wraps) while its event's hooks ran, before its run
// started: nothing of it is kept, and the user may send it again.
func stoppedBefore(event string, err error) error { return stoppedEarly{event, err} }

type stoppedEarly struct {
	event string
	cause error
}

// Error says what happened in the user's words: the cause (context
// canceled) is theirs.
func (s stoppedEarly) Error() string {
	return fmt.Sprintf("the request was stopped while its %s hooks ran, before it started: nothing of it was kept, and it can be sent again", s.event)
}

func (s stoppedEarly) Unwrap() error { return s.cause }

// begunContext is what the session-start hooks added for a session in
// this process, and which hooks they were (sessionStartHooks).
type begunContext struct {
	hooks, added string
}

// sessionBegun returns what the session-start hooks added for b.Session
// in this process, running them at its first request here (b.Source
// "startup" for a new session, "resume" for one taken up again), and
// again, as "resume", at a later request once the session-start hooks
// have changed (one added, edited, switched on or off in Extensions
// while the session is open), so a new hook applies from the next
// request, not from the next process. first says they ran now; notes
// are what they said for the user.
func (a *App) sessionBegun(ctx context.Context, b hooks.Begin) (added string, first bool, notes []string) {
	now := a.sessionStartHooks()
	if v, ok := a.begun.Load(b.Session); ok {
		if held := v.(begunContext); held.hooks == now {
			return held.added, false, nil
		}
		b.Source = "resume"
		notes = append(notes, "the session-start hooks changed since this session began here, so they ran now")
	}
	// What they export is the session's from now on: written afresh
	// each time they run (a resumed session's hooks export again).
	if b.EnvFile != "" {
		err := os.MkdirAll(filepath.Dir(b.EnvFile), 0o700)
		if err == nil {
			err = os.WriteFile(b.EnvFile, nil, 0o600)
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("the session's environment file could not be made, so the hooks get no CLAUDE_ENV_FILE: %v", err))
			b.EnvFile = ""
		}
	}
	added, said := a.Hooks.SessionStart(ctx, b)
	if ctx.Err() != nil { // stopped: they run again at the next request
		return "", false, nil
	}
	// What a hook prints may come from files it read: text the user
	// cannot see is removed, as from any tool.
	added, _ = injection.Unhide(added)
	a.begun.Store(b.Session, begunContext{now, added})
	return added, true, append(notes, said...)
}

// SessionEnvDir is where, in the data directory, each session's
// environment is kept: what its session-start hooks exported through
// CLAUDE_ENV_FILE, read by its shell commands first. Not in a folder a
// confined command may write, so a command cannot change what the next
// one runs with.
const SessionEnvDir = "session-env"

// sessionEnvFile is the session's environment file (SessionEnvDir).
func (a *App) sessionEnvFile(session string) string {
	if session == "" || strings.ContainsAny(session, `/\`) {
		return ""
	}
	return filepath.Join(a.Config.DataDir, SessionEnvDir, session+".sh")
}

// sessionStartHooks names the session-start hooks in force, and all
// they are set to run: what sessionBegun compares to know they changed.
func (a *App) sessionStartHooks() string {
	hs, err := a.Hooks.For(hooks.SessionStart)
	b, _ := json.Marshal(hs)
	return fmt.Sprint(string(b), err)
}

// checkImages refuses images for a model that cannot see them, before
// the run: Ollama would drop them and the model answer about a picture it
// never saw. The error names the installed models that can.
func (a *App) checkImages(ctx context.Context, modelName string, d model.Details, images []attach.Image) error {
	if len(images) == 0 {
		return nil
	}
	if err := attach.Count(len(images)); err != nil {
		return err
	}
	if d.Sees() {
		return nil
	}
	var can []string
	if models, err := a.Model.List(ctx); err == nil {
		names := lo.Map(models, func(m model.Info, _ int) string { return m.Name })
		details := a.Model.ShowAll(ctx, names)
		can = lo.Filter(names, func(n string, _ int) bool {
			dn, ok := details[n]
			return ok && dn.ListsVision() && dn.Chats()
		})
	}
	advice := "install one that can (for example `ollama pull gemma3` or `ollama pull qwen2.5vl`) and choose it"
	if len(can) > 0 {
		advice = "choose one that can: " + strings.Join(can, ", ")
	}
	return fmt.Errorf("%w: %s cannot see images (Ollama does not list vision among what it can do); %s, or send the request without them", ErrCannotSee, modelName, advice)
}

// ErrCannotSee marks images attached for a model that cannot see.
var ErrCannotSee = errors.New("the images were not sent")

// subfolderInstructions hands a run the AGENTS.md files of the
// workspace's subfolders, and the rules attached to files, as its file
// tools reach them (sub, the run's instructions.Nested), each once, and
// tells the timeline.
func subfolderInstructions(sub *instructions.Nested, workspace string, emit func(context.Context, agent.Type, any) error) func(string, json.RawMessage) string {
	return func(name string, args json.RawMessage) string {
		var a struct {
			Path    string `json:"path"`
			Command string `json:"command"`
		}
		if json.Unmarshal(args, &a) != nil {
			return ""
		}
		var paths []string
		switch {
		case strings.HasPrefix(name, "fs."):
			paths = []string{a.Path}
		case name == "shell.run":
			// The files and folders a command names that are there (`cd
			// packages/api && npm test`, `sed -i … src/Button.tsx`): a
			// word that names nothing is no path.
			for _, w := range shell.Describe(a.Command, workspace).Words {
				p := w
				if !filepath.IsAbs(p) {
					p = filepath.Join(workspace, p)
				}
				if _, err := os.Stat(p); err == nil {
					paths = append(paths, p)
				}
			}
		}
		var blocks []string
		for _, p := range paths {
			got := sub.For(p)
			if len(got.Files) > 0 || len(got.Warnings) > 0 {
				_ = emit(context.Background(), instructions.TypeLoaded, instructions.LoadedEvent{Files: got.Files, Warnings: got.Warnings})
			}
			for _, w := range got.Warnings {
				_ = emit(context.Background(), agent.TypeError, agent.Error{Kind: agent.KindWarning, Message: "instructions: " + w})
			}
			if got.Block != "" {
				blocks = append(blocks, got.Block)
			}
		}
		return strings.Join(blocks, "\n")
	}
}

// Instructions reads the AGENTS.md files in force for workspace (see
// package instructions) within budget tokens: the user-wide one in
// Shrimp's config folder ($XDG_CONFIG_HOME/shrimp), then the folders from
// the home folder down to the workspace.
func (a *App) Instructions(workspace string, budget int) instructions.Loaded {
	home, _ := os.UserHomeDir()
	config := ""
	if dir, err := os.UserConfigDir(); err == nil {
		config = filepath.Join(dir, "shrimp")
	}
	return instructions.Load(workspace, home, config, budget)
}

// Skills finds the workspace's skills, then the user's: the data
// directory's skills folder, then ~/.agents/skills and ~/.claude/skills
// (where other agents keep theirs).
func (a *App) Skills(workspace string) skills.Found {
	dirs := []string{filepath.Join(a.Config.DataDir, "skills")}
	if home, err := os.UserHomeDir(); err == nil {
		for _, d := range skills.UserFolders {
			dirs = append(dirs, filepath.Join(home, d))
		}
	}
	return skills.Find(workspace, dirs)
}

// WorkspaceKey is the form of a workspace path that approval rules are kept
// under: absolute, cleaned, with symlinks resolved, so one folder reached
// by two paths has one set of rules.
func WorkspaceKey(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// describe says what a call would do, for the approval question: a shell
// command is parsed and judged whole; a write to a file that runs
// commands or steers later runs (package protected), and a sandboxed
// command in a workspace that holds Shrimp's own folders, must be
// answered by the user, whatever rule is stored.
func describe(workspace string, confined bool, own ...protected.Folder) func(agent.ToolCall) approval.Detail {
	return func(call agent.ToolCall) approval.Detail {
		switch call.Name {
		case "shell.run":
			var in shell.Args
			if json.Unmarshal(call.Arguments, &in) != nil {
				return approval.Detail{}
			}
			d := shell.Describe(in.Command, workspace)
			mustAsk := d.Unparsed != ""
			// A file it names that runs commands later is asked about as
			// fs.write's is (a command that writes one unnamed, from a
			// script, has it put back after: liveTools.protect).
			for _, p := range d.Writes {
				if why := protected.Check(workspace, p, own...); why != "" {
					d.Warnings = append(d.Warnings, fmt.Sprintf("writes %s — %s", p, why))
					mustAsk = true
				}
			}
			// git config's keys that name a command to run (hooksPath,
			// fsmonitor, an alias…) are asked about as a write of
			// .git/config is; a remote or the user's name is not.
			for _, key := range d.GitConfig {
				if !protected.SafeGitKey(key) {
					what := "a key the command does not name"
					if key != "" {
						what = key
					}
					d.Warnings = append(d.Warnings, fmt.Sprintf("sets %s in the repository's git config, which can make git run a command later (on your next git command): no stored answer covers it", what))
					mustAsk = true
				}
			}
			if confined {
				d.Effects = append(d.Effects, "runs in the shell sandbox: it writes only in the workspace and the temporary folders")
				// The sandbox cannot keep a command out of a folder inside
				// the workspace: where that is Shrimp's own, a command may
				// change its rules, hooks or MCP servers (which run
				// unconfined), as a write there would.
				if f, ok := protected.Holds(workspace, own...); ok {
					d.Warnings = append(d.Warnings, fmt.Sprintf("the sandbox lets a command write in %s, which this workspace holds — %s — so no stored answer covers it: choose a project folder as the workspace", f.Dir, f.Why))
					mustAsk = true
				}
			}
			return approval.Detail{Effects: d.Effects, Warnings: d.Warnings, MustAsk: mustAsk}
		case "web.fetch":
			var in web.Args
			if json.Unmarshal(call.Arguments, &in) == nil {
				return approval.Detail{Warnings: web.Warnings(in.URL)}
			}
		case "memory.facts.set":
			var in facts.Args
			if json.Unmarshal(call.Arguments, &in) == nil && facts.Flagged(in.Key, in.Value) {
				return approval.Detail{Warnings: []string{"this fact reads like instructions, not a fact about you: stored, it is flagged and kept out of prompts until you approve it in Memory (shrimp facts approve)"}}
			}
		case "fs.write", "fs.edit":
			var in struct {
				Path string `json:"path"` // as WriteArgs and EditArgs read it
			}
			if json.Unmarshal(call.Arguments, &in) != nil || in.Path == "" {
				return approval.Detail{}
			}
			if why := protected.Check(workspace, in.Path, own...); why != "" {
				return approval.Detail{Warnings: []string{fmt.Sprintf("%s — %s", in.Path, why)}, MustAsk: true}
			}
		}
		return approval.Detail{}
	}
}

// ownFolders are Shrimp's data and config folders: writing there changes
// what Shrimp runs and remembers.
func (a *App) ownFolders() []protected.Folder {
	out := []protected.Folder{{Dir: a.Config.DataDir, Why: "Shrimp's data folder: its sessions, memory, approval rules, hooks and MCP servers (which run commands)"}}
	if dir, err := os.UserConfigDir(); err == nil {
		out = append(out, protected.Folder{Dir: filepath.Join(dir, "shrimp"), Why: "Shrimp's config folder: instructions every request follows"})
	}
	return out
}

// keeper stores cut tool outputs for the run's session.
type keeper struct {
	rec       *session.Recorder // takes secrets out of what is kept
	st        *store.Store
	session   *string
	workspace string
}

func (k keeper) Keep(ctx context.Context, tool, output string) (string, error) {
	return k.st.KeepOutput(context.WithoutCancel(ctx), *k.session, k.workspace, tool, k.rec.RedactText(output))
}

// slowCheck is how long a hook on a call runs before the run names it (a
// variable for tests, which cannot rely on a process starting in time).
var slowCheck = time.Second

// namedWhenSlow returns ctx naming each hook on a call that is still
// running after slowCheck (hook:running: a prompt hook asks the model);
// most take milliseconds and say nothing.
func namedWhenSlow(ctx context.Context, emit func(context.Context, agent.Type, any) error) context.Context {
	return hooks.WithStarting(ctx, func(event, hook string) func() {
		t := time.AfterFunc(slowCheck, func() {
			_ = emit(context.Background(), TypeHookRunning, HookRunning{Event: event, Hook: hook})
		})
		return func() { t.Stop() }
	})
}

// TypeHookRunning is published when a hook the run waits for starts (a
// pre-run-end hook checking the answer, which can take minutes), or has
// run for slowCheck (a pre- or post-tool-call hook on a call).
const TypeHookRunning agent.Type = "hook:running"

// HookRunning is the data of TypeHookRunning.
type HookRunning struct {
	Event string `json:"event"` // the hook's: hooks.PreRunEnd, PreToolCall or PostToolCall
	Hook  string `json:"hook"`  // which, as messages name it: "hook a1 (make test)"
}

// checks runs the user's pre-run-end hooks on the run's answers
// (agent.Finisher): one may send the model back to work. Each hook is
// announced (hook:running) as it starts: a test suite can take minutes,
// and the window would say it waits for the model. What the hooks change
// in the workspace (a formatter run at the end) is watched as part of
// the run, as a command's changes are (watch; nil when that is off), so
// undoing the request takes it back too.
type checks struct {
	hooks     *hooks.Hooks
	session   *string
	workspace string
	request   string
	emit      func(context.Context, agent.Type, any) error
	watch     func(context.Context) func()
}

func (c checks) Finish(ctx context.Context, fin agent.Finishing) (string, []string) {
	if hs, _ := c.hooks.For(hooks.PreRunEnd); len(hs) > 0 && c.watch != nil {
		defer c.watch(ctx)()
	}
	ctx = hooks.WithStarting(ctx, func(event, hook string) func() {
		_ = c.emit(context.WithoutCancel(ctx), TypeHookRunning, HookRunning{Event: event, Hook: hook})
		return func() {}
	})
	more, notes := c.hooks.PreRunEnd(ctx, hooks.RunEnd{Session: *c.session, Workspace: c.workspace, Request: c.request, Answer: fin.Answer, SentBack: fin.SentBack, ToolCalls: fin.ToolCalls})
	for i, n := range notes {
		notes[i] = "hook: " + n
	}
	// What a check prints may come from files it read (a test's output):
	// text the user cannot see is removed, as from any tool.
	more, _ = injection.Unhide(more)
	return more, notes
}

// summaries keeps the run's session's summary (see prompt.Memory).
type summaries struct {
	repo    store.SummaryRepo
	rec     *session.Recorder // takes secrets out of what is kept
	session *string
}

func (m summaries) Summary(ctx context.Context) (prompt.Summary, bool, error) {
	s, err := m.repo.Get(ctx, *m.session)
	if errors.Is(err, store.ErrNotFound) {
		return prompt.Summary{}, false, nil
	}
	if err != nil {
		return prompt.Summary{}, false, err
	}
	return prompt.Summary{Text: s.Text, Covers: s.Covers, Digest: s.Digest}, true, nil
}

func (m summaries) KeepSummary(ctx context.Context, s prompt.Summary) error {
	// The model summarised what it saw, secrets included.
	return m.repo.Put(ctx, store.SessionSummary{SessionID: *m.session, Text: m.rec.RedactText(s.Text), Covers: s.Covers, Digest: s.Digest})
}

// errNoMemory marks a run asked to go without procedural memory.
var errNoMemory = errors.New("procedural memory off for this run")

// unavailable is the recaller when procedural memory cannot be opened.
type unavailable struct{ err error }

func (u unavailable) Recall(context.Context, string) (string, []agent.Event, error) {
	return "", nil, u.err
}

var (
	knownOnce sync.Once
	known     map[string]bool
)

// KnownTool reports whether a run registers a tool of that name: the
// built-in tools and the memory tools. The set is fixed, so it is worked
// out once.
func KnownTool(name string) bool {
	knownOnce.Do(func() {
		known = map[string]bool{agentmem.ForgetToolName: true, "tool.output.read": true, "skill.read": true}
		if reg, ws, err := Registry(os.TempDir(), false, false); err == nil {
			for _, n := range reg.Names() {
				known[n] = true
			}
			ws.Close()
		}
		for _, t := range (&facts.Facts{}).Tools(nil) {
			known[t.Name()] = true
		}
		for _, t := range (&working.Working{}).Tools() {
			known[t.Name()] = true
		}
	})
	return known[name]
}

// contextFor is the num_ctx a request sends for a model: the size set for
// it (set; 0: none), else the default (0 here), or less when the model
// was trained for less (trained; 0: not said), since Ollama gives a model
// no more and cuts a longer prompt from its start (the instructions, the
// tools). capped says a size set was more than that.
func contextFor(set, trained int) (n int, capped bool) {
	switch {
	case trained <= 0:
		return set, false
	case set == 0 && trained < agent.DefaultNumCtx:
		return trained, false
	case set > trained:
		return trained, true
	}
	return set, false
}

// details returns what /api/show says of a model, asked once per App for
// each build of it Ollama lists (a.shown, by model.Client.Revision): a
// model pulled again under its name while the window is open (a new
// template, another context length, tools it could not call before) is
// asked about again. An error is not kept (the server may come up, or the
// model be pulled), nor is what Ollama said of a model it does not list.
func (a *App) details(ctx context.Context, modelName string) (model.Details, error) {
	key := a.Model.Host() + "|" + modelName
	rev, listed := a.Model.Revision(ctx, modelName)
	if v, ok := a.shown.Load(key); ok && listed && v.(shownModel).rev == rev {
		return v.(shownModel).d, nil
	}
	d, err := a.Model.Show(ctx, modelName)
	if err != nil {
		return d, err
	}
	if listed {
		a.shown.Store(key, shownModel{rev: rev, d: d})
	}
	return d, nil
}

// shownModel is what /api/show said of one build of a model (a.shown).
type shownModel struct {
	rev string // model.Client.Revision's
	d   model.Details
}

// Settle waits until every recorded event is written, published and
// handled, including the events subscribers emit in response (usage).
func (a *App) Settle(ctx context.Context) error {
	for range 3 {
		if err := a.Recorder.Sync(ctx); err != nil {
			return err
		}
		if err := a.Bus.Wait(ctx); err != nil {
			return err
		}
	}
	return nil
}

// said is a tool another party describes (an MCP server's,
// mcp.RegTool): what it says the tool does, for the approval question.
type said interface {
	Said() (effects, warnings []string)
}
