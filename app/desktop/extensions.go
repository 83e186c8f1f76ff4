package desktop

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/commands"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/backend/skills"
)

// hiddenValue stands for a secret the window does not show; sent back
// unchanged, it keeps the stored value.
const hiddenValue = "***"

// Extensions is the bound service of the Extensions view: MCP servers and
// event hooks.
type Extensions struct {
	app *app.App
	mu  sync.Mutex // hooks.json edits, sign-ins
	// openURL opens a sign-in page with the desktop's browser; set when
	// the window starts (nil: the window shows the address only).
	openURL func(url string)
	signIns map[string]*signing // by server
}

// NewExtensions returns the service.
func NewExtensions(a *app.App) *Extensions { return &Extensions{app: a} }

// ServerView is one configured server with its live status. Env values
// are never sent to the window: each shows as "***".
type ServerView struct {
	ServerInput
	// Variables are the variables of Shrimp's environment its settings
	// take (${NAME}), passed on to its program or url when it starts.
	Variables []string   `json:"variables"`
	Status    mcp.Status `json:"status"`
}

// Servers lists the configured servers, by name, with their status.
func (x *Extensions) Servers() ([]ServerView, error) {
	m, err := x.app.MCP()
	if err != nil {
		return []ServerView{}, err
	}
	cfg, err := mcp.Load(x.app.MCPPath())
	if err != nil {
		return []ServerView{}, err
	}
	status := map[string]mcp.Status{}
	for _, st := range m.Statuses() {
		status[st.Name] = st
	}
	out := []ServerView{}
	for _, name := range slices.Sorted(maps.Keys(cfg.Servers)) {
		s := cfg.Servers[name]
		env, hdrs := hidden(s.Env), hidden(s.Headers)
		st, ok := status[name]
		if !ok {
			st = mcp.Status{Name: name, State: mcp.StateStarting, Tools: []mcp.Tool{}, Prompts: []mcp.Prompt{}, Stderr: []string{}}
		}
		in := ServerInput{Name: name, Command: s.Command, Args: orEmpty(s.Args), URL: s.URL, Env: env, Headers: hdrs, SSE: s.Type == "sse",
			ReadOnly: s.ReadOnly, Local: s.Local, Roots: s.OffersRoots(), Disabled: s.Disabled, Timeout: s.Timeout}
		if o := s.OAuth; o != nil {
			in.OAuthClientID, in.OAuthCallbackPort = o.ClientID, o.CallbackPort
			if o.ClientSecret != "" {
				in.OAuthClientSecret = hiddenValue
			}
		}
		out = append(out, ServerView{ServerInput: in, Variables: orEmpty(s.Variables()), Status: st})
	}
	return out, nil
}

// hidden is m with every value shown as hiddenValue (never nil).
func hidden(m map[string]string) map[string]string {
	out := map[string]string{}
	for k := range m {
		out[k] = hiddenValue
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ServerInput is a server as the window's form sends it. Env and header
// values of "***" keep the stored value of that key.
type ServerInput struct {
	Name     string            `json:"name"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	URL      string            `json:"url"`
	Env      map[string]string `json:"env"`
	Headers  map[string]string `json:"headers"` // sent to a url server with every request
	SSE      bool              `json:"sse"`     // the url server speaks the older HTTP+SSE transport
	ReadOnly bool              `json:"read_only"`
	Local    bool              `json:"local"` // its answers come from this machine
	// Roots: the server is told the workspace as MCP roots (mcp.Server.Roots;
	// shown as it is in effect, kept unset while it is the default).
	Roots    bool `json:"roots"`
	Disabled bool `json:"disabled"`
	Timeout  int  `json:"timeout"`
	// OAuthClientID names the app registered in advance with the server's
	// sign-in ("": none, the sign-in registers one itself); its secret
	// ("***" keeps the stored one) and the loopback port its redirect
	// address names (0: any).
	OAuthClientID     string `json:"oauth_client_id"`
	OAuthClientSecret string `json:"oauth_client_secret"`
	OAuthCallbackPort int    `json:"oauth_callback_port"`
}

// SaveServer adds a server (previous "") or replaces the one named
// previous, renaming it if the name changed; the running servers follow.
func (x *Extensions) SaveServer(previous string, in ServerInput) error {
	if _, err := x.app.MCP(); err != nil {
		return err
	}
	name := strings.TrimSpace(in.Name)
	return x.app.EditMCP(func(c *mcp.Config) error {
		old, had := c.Servers[previous]
		if previous != "" && !had {
			return fmt.Errorf("no MCP server %q: it was removed meanwhile", previous)
		}
		if _, taken := c.Servers[name]; taken && name != previous {
			return fmt.Errorf("an MCP server is already called %s: choose another name", name)
		}
		if in.Timeout < 0 {
			return errors.New("the timeout is in seconds, 0 for the default")
		}
		s := mcp.Server{Command: strings.TrimSpace(in.Command), URL: strings.TrimSpace(in.URL), ReadOnly: in.ReadOnly, Local: in.Local, Disabled: in.Disabled, Timeout: in.Timeout}
		var err error
		if s.OAuth, err = oauthApp(in, old.OAuth); err != nil {
			return err
		}
		s.Args = slices.Clone(in.Args)
		// Which of its tools are offered is not in the form: kept.
		s.IncludeTools, s.ExcludeTools = old.IncludeTools, old.ExcludeTools
		if in.Roots != s.OffersRoots() {
			s.Roots = &in.Roots
		}
		switch {
		case in.SSE:
			s.Type = "sse"
		case old.Type == "stdio" && s.Command != "", (old.Type == "http" || old.Type == "streamable-http") && s.URL != "":
			s.Type = old.Type // from an imported file, kept while it still fits
		}
		if s.Env, err = secrets("env", in.Env, old.Env); err != nil {
			return err
		}
		if s.Headers, err = secrets("header", in.Headers, old.Headers); err != nil {
			return err
		}
		if err := s.CheckNew(name); err != nil {
			return err
		}
		if previous != "" && previous != name {
			delete(c.Servers, previous)
		}
		c.Servers[name] = s
		return nil
	})
}

// oauthApp is the registered OAuth app a form names (nil when its client
// id is empty), its secret "***" replaced by the one stored.
func oauthApp(in ServerInput, stored *mcp.OAuthClient) (*mcp.OAuthClient, error) {
	id := strings.TrimSpace(in.OAuthClientID)
	if id == "" {
		return nil, nil
	}
	o := &mcp.OAuthClient{ClientID: id, ClientSecret: strings.TrimSpace(in.OAuthClientSecret), CallbackPort: in.OAuthCallbackPort}
	if o.ClientSecret == hiddenValue {
		if stored == nil || stored.ClientSecret == "" {
			return nil, errors.New("the app's client secret: type it (*** keeps a secret already stored)")
		}
		o.ClientSecret = stored.ClientSecret
	}
	return o, nil
}

// secrets is a form's env or header values, "***" replaced by the value
// stored before (nil when there are none).
func secrets(what string, in, stored map[string]string) (map[string]string, error) {
	var out map[string]string
	for k, v := range in {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if v == hiddenValue {
			prev, ok := stored[k]
			if !ok {
				return nil, fmt.Errorf("%s %s: type its value (*** keeps a value already stored)", what, k)
			}
			v = prev
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out, nil
}

// PromptChoice is a prompt a running server offers, for the chat box.
type PromptChoice struct {
	Server string `json:"server"` // "" for a saved command
	// From says whose a saved command is ("this folder", "yours"), and
	// File is its file; both "" for a server's prompt.
	From string `json:"from,omitempty"`
	File string `json:"file,omitempty"`
	mcp.Prompt
}

// Commands lists the saved commands (package commands: Claude Code's
// .claude/commands, Codex's prompts, the data folder's) a request in
// workspace may start from, as the message box's "/" list shows a
// server's prompts: one that takes what is typed after it has one
// argument, "arguments".
func (x *Extensions) Commands(workspace string) []PromptChoice {
	out := []PromptChoice{}
	if strings.TrimSpace(workspace) == "" {
		return out
	}
	for _, c := range x.app.Commands(workspace).Commands {
		p := PromptChoice{From: "yours", File: c.File, Prompt: mcp.Prompt{Name: c.Name, Description: c.Description, Arguments: []mcp.PromptArgument{}}}
		if c.Scope == "workspace" {
			p.From = "this folder"
		}
		if c.Arguments || c.ArgumentHint != "" {
			p.Arguments = append(p.Arguments, mcp.PromptArgument{Name: "arguments", Title: "Arguments", Description: c.ArgumentHint})
		}
		out = append(out, p)
	}
	return out
}

// UseCommand is the saved command name of workspace filled in with args
// (what was typed for it), for the message box: the request it stands
// for, unsent, with its !`shell` lines left for the model to run.
func (x *Extensions) UseCommand(workspace, name, args string) (string, error) {
	c, ok := x.app.Commands(workspace).Lookup(name)
	if !ok {
		return "", fmt.Errorf("no saved command /%s for %s now (its file may have moved)", name, workspace)
	}
	text, _ := c.Fill(args)
	return text, nil
}

// Prompts lists the prompts of the running servers, by server and name.
func (x *Extensions) Prompts() ([]PromptChoice, error) {
	out := []PromptChoice{}
	m, err := x.app.MCP()
	if err != nil {
		return out, err
	}
	for _, st := range m.Statuses() {
		if st.State != mcp.StateRunning {
			continue
		}
		for _, p := range st.Prompts {
			out = append(out, PromptChoice{Server: st.Name, Prompt: p})
		}
	}
	return out, nil
}

// ResourceChoice is a resource a running server offers, for the chat box.
type ResourceChoice struct {
	Server string `json:"server"`
	mcp.Resource
}

// Resources lists the resources of the running servers that offer any,
// by server (each asked for at most promptWait). One that fails is left
// out, logged, so the others' still reach the list; the error says why
// when nothing could be listed.
func (x *Extensions) Resources() ([]ResourceChoice, error) {
	out := []ResourceChoice{}
	m, err := x.app.MCP()
	if err != nil {
		return out, err
	}
	var failed []error
	for _, st := range m.Statuses() {
		if st.State != mcp.StateRunning || !slices.ContainsFunc(st.Tools, func(t mcp.Tool) bool { return t.Kind == mcp.KindListResources }) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), promptWait)
		res, err := m.Resources(ctx, st.Name)
		cancel()
		if err != nil {
			failed = append(failed, err)
			continue
		}
		for _, r := range res {
			out = append(out, ResourceChoice{Server: st.Name, Resource: r})
		}
	}
	if len(out) == 0 {
		return out, errors.Join(failed...)
	}
	for _, err := range failed {
		x.app.Log.Warn("an MCP server's resources could not be listed", "err", err)
	}
	return out, nil
}

// UseResource reads a running server's resource and returns it for the
// chat box, where the user reads it before sending, as UsePrompt does
// (mcp.Quoted: named, fenced, hidden text removed, cut at 32 KiB).
func (x *Extensions) UseResource(server, uri string) (string, error) {
	m, err := x.app.MCP()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), promptWait)
	defer cancel()
	text, err := m.ReadResource(ctx, server, uri)
	if err != nil {
		return "", err
	}
	return mcp.Quoted(server, uri, text), nil
}

// UsePrompt fills in a running server's prompt and returns its text for
// the chat box, where the user reads it before sending: a server's text,
// like its tools' answers. Arguments it requires and lacks, or does not
// take, are named before the server is asked.
func (x *Extensions) UsePrompt(server, name string, args map[string]string) (string, error) {
	m, err := x.app.MCP()
	if err != nil {
		return "", err
	}
	statuses := m.Statuses()
	i := slices.IndexFunc(statuses, func(st mcp.Status) bool { return st.Name == server })
	if i < 0 {
		return "", fmt.Errorf("no MCP server %q", server)
	}
	prompts := statuses[i].Prompts
	j := slices.IndexFunc(prompts, func(p mcp.Prompt) bool { return p.Name == name })
	if j < 0 {
		return "", fmt.Errorf("MCP server %s offers no prompt %q now (it may have restarted: see Extensions)", server, name)
	}
	if err := prompts[j].Check(args); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), promptWait)
	defer cancel()
	return m.GetPrompt(ctx, server, name, args)
}

// CompletePrompt returns the values a running server suggests for a
// prompt's argument as the user types it (MCP's completion), given the
// arguments already filled in; none when it suggests none, or not within
// completeWait (typing goes on either way).
func (x *Extensions) CompletePrompt(server, prompt, arg, typed string, filled map[string]string) ([]string, error) {
	m, err := x.app.MCP()
	if err != nil {
		return []string{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), completeWait)
	defer cancel()
	return m.Complete(ctx, server, prompt, arg, typed, filled)
}

// completeWait bounds one completion asked for while the user types.
const completeWait = 3 * time.Second

// promptWait bounds filling in a prompt from the window (the server's own
// timeout may be longer; the user is waiting on the chat box).
const promptWait = 30 * time.Second

// SetServerEnabled starts or stops a server and remembers it.
func (x *Extensions) SetServerEnabled(name string, enabled bool) error {
	if _, err := x.app.MCP(); err != nil {
		return err
	}
	return x.app.EditMCP(func(c *mcp.Config) error {
		s, ok := c.Servers[name]
		if !ok {
			return fmt.Errorf("no MCP server %q", name)
		}
		s.Disabled = !enabled
		c.Servers[name] = s
		return nil
	})
}

// SetToolOffered offers a server's tool to the model or keeps it from
// the model (its excludeTools in mcp.json; includeTools gains it when
// offered), without restarting the server.
func (x *Extensions) SetToolOffered(server, tool string, offered bool) error {
	if _, err := x.app.MCP(); err != nil {
		return err
	}
	return x.app.EditMCP(func(c *mcp.Config) error {
		s, ok := c.Servers[server]
		if !ok {
			return fmt.Errorf("no MCP server %q", server)
		}
		if err := s.Offer(tool, offered); err != nil {
			return err
		}
		c.Servers[server] = s
		return nil
	})
}

// RemoveServer stops a server and forgets it.
func (x *Extensions) RemoveServer(name string) error {
	if _, err := x.app.MCP(); err != nil {
		return err
	}
	return x.app.EditMCP(func(c *mcp.Config) error {
		if _, ok := c.Servers[name]; !ok {
			return fmt.Errorf("no MCP server %q", name)
		}
		delete(c.Servers, name)
		return nil
	})
}

// Imported is what an import added: the servers' names, and notes on
// those renamed or left out (mcp.ImportNotes).
type Imported struct {
	Names []string `json:"names"`
	Notes []string `json:"notes"`
}

// ImportServers adds the servers of a pasted MCP configuration (Claude
// Desktop's, Claude Code's, Cursor's, Gemini CLI's {"mcpServers": {…}},
// VS Code's {"servers": {…}}: mcp.ParseForeign; Codex's config.toml
// [mcp_servers.NAME] tables: mcp.ParseCodex).
func (x *Extensions) ImportServers(text string) (Imported, error) {
	out := Imported{Names: []string{}, Notes: []string{}}
	if _, err := x.app.MCP(); err != nil {
		return out, err
	}
	parse := mcp.ParseForeign
	if !strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(text, "\ufeff")), "{") && strings.Contains(text, "[mcp_servers") {
		parse = mcp.ParseCodex
	}
	other, err := parse([]byte(text))
	if err != nil {
		return out, err
	}
	err = x.app.EditMCP(func(c *mcp.Config) error {
		var err error
		out.Names, err = c.Import(other)
		return err
	})
	if err != nil {
		return out, err
	}
	out.Notes = append(out.Notes, mcp.ImportNotes(other)...)
	return out, nil
}

// Hooks lists the hooks in hooks.json.
func (x *Extensions) Hooks() ([]hooks.Hook, error) {
	cfg, err := hooks.Load(x.hooksFile())
	if err != nil {
		return []hooks.Hook{}, err
	}
	return cfg.Hooks, nil
}

// HookProblems returns, by id, why each hook switched on whose command is
// found cannot start by its script's first line (Windows line endings, an
// interpreter that is not installed: hooks.Hook.ScriptProblem).
func (x *Extensions) HookProblems() (map[string]string, error) {
	out := map[string]string{}
	cfg, err := hooks.Load(x.hooksFile())
	if err != nil {
		return out, err
	}
	for _, h := range cfg.Hooks {
		if h.Disabled || !h.Findable(exec.LookPath) {
			continue
		}
		if why := h.ScriptProblem(exec.LookPath); why != "" {
			out[h.ID] = why
		}
	}
	return out, nil
}

// HooksNotFound returns the ids of the hooks switched on whose command
// cannot be found (a pre-tool-call one denies every call it applies to).
func (x *Extensions) HooksNotFound() ([]string, error) {
	cfg, err := hooks.Load(x.hooksFile())
	if err != nil {
		return []string{}, err
	}
	return lo.Map(cfg.NotFound(exec.LookPath), func(h hooks.Hook, _ int) string { return h.ID }), nil
}

// editHooks changes hooks.json (hooks.Edit: under its lock, which other
// Shrimp processes take too) and has this process's observers follow it
// at once.
func (x *Extensions) editHooks(edit func(*hooks.Config) error) error {
	if err := hooks.Edit(x.hooksFile(), edit); err != nil {
		return err
	}
	_, _ = x.app.Hooks.Current()
	return nil
}

func (x *Extensions) hooksFile() string { return filepath.Join(x.app.Config.DataDir, hooks.FileName) }

// AddHook checks and stores a hook; it applies from the next event.
func (x *Extensions) AddHook(h hooks.Hook) (hooks.Hook, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	h.Event, h.Command, h.Tool = strings.TrimSpace(h.Event), strings.TrimSpace(h.Command), strings.TrimSpace(h.Tool)
	err := x.editHooks(func(cfg *hooks.Config) (err error) {
		h, err = cfg.Add(h)
		return err
	})
	return h, err
}

// TryHook runs one hook once on a sample of its event, in workspace (the
// chat's folder; "" is the home folder), and says what Shrimp makes of
// its answer (app.TryHook): a hook that silently blocks nothing is found
// from the window.
func (x *Extensions) TryHook(id string, s app.HookSample) (app.HookTrial, error) {
	return x.app.TryHook(context.Background(), id, s)
}

// RemoveHook deletes a hook.
func (x *Extensions) RemoveHook(id string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.editHooks(func(cfg *hooks.Config) error { return cfg.Remove(id) })
}

// SetHookEnabled turns a hook on or off.
func (x *Extensions) SetHookEnabled(id string, enabled bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.editHooks(func(cfg *hooks.Config) error {
		_, err := cfg.SetEnabled(id, enabled)
		return err
	})
}

// SetHookTimeout gives a hook seconds to run (0: the default; at most
// 600).
func (x *Extensions) SetHookTimeout(id string, seconds float64) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.editHooks(func(cfg *hooks.Config) error {
		_, err := cfg.SetTimeout(id, seconds)
		return err
	})
}

// ClaudeSettingsFile is the user's own Claude Code settings, where the
// window offers to import hooks from.
func (x *Extensions) ClaudeSettingsFile() string { return app.ClaudeSettingsFile() }

// ImportClaudeHooks adds the hooks of the Claude Code settings file at
// path ("" for the user's own; ~/ is the home folder), each run as
// written for Claude Code, leaving out those already there; dry only
// says what it would add, what is there already, and what it cannot run
// and why.
func (x *Extensions) ImportClaudeHooks(path string, dry bool) (app.HooksImport, error) {
	if path = strings.TrimSpace(path); path != "" {
		var err error
		if path, err = filePath(path); err != nil {
			return app.HooksImport{}, err
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.app.ImportClaudeHooks(path, dry)
}

// Skills lists the skills a request in workspace would be offered (its
// .agents/skills and .claude/skills first, then the user's: the data
// directory's skills folder, ~/.agents/skills, ~/.claude/skills), with the
// warnings about those left out; workspace "" lists the user's alone.
func (x *Extensions) Skills(workspace string) skills.Found { return x.app.Skills(workspace) }

// SavedCommands lists the saved commands a request in workspace may start
// from (its .claude/commands first, then the user's: the data
// directory's commands, ~/.claude/commands, ~/.codex/prompts), with the
// warnings about those left out; workspace "" lists the user's alone.
func (x *Extensions) SavedCommands(workspace string) commands.Found {
	return x.app.Commands(workspace)
}

// HookEvents lists what a hook can be attached to: the points in the
// loop (session-start, pre-request, pre-tool-call, post-tool-call,
// pre-run-end), then the event types the harness publishes.
func (x *Extensions) HookEvents() []string {
	out := slices.Clone(hooks.InLoopEvents)
	for _, t := range app.Events {
		out = append(out, string(t))
	}
	return out
}

// signing is a sign-in under way from the window.
type signing struct {
	address chan string // the sign-in page, once the server named it
	done    chan error  // how the sign-in ended
	cancel  context.CancelFunc
}

// BeginSignIn starts signing in to a server that asks for it (OAuth): the
// server's sign-in page opens in the browser, and its address is returned
// for the window to show (a browser that did not open can be given it).
// FinishSignIn waits for the end. A sign-in that fails before the page
// is known returns its error here.
func (x *Extensions) BeginSignIn(name string) (string, error) {
	m, err := x.app.MCP()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &signing{address: make(chan string, 1), done: make(chan error, 1), cancel: cancel}
	x.mu.Lock()
	if x.signIns == nil {
		x.signIns = map[string]*signing{}
	}
	if old := x.signIns[name]; old != nil {
		old.cancel() // one sign-in per server: the newer one counts
	}
	x.signIns[name] = s
	open := x.openURL
	x.mu.Unlock()
	go func() {
		s.done <- m.SignIn(ctx, name, func(address string) error {
			select {
			case s.address <- address:
			default: // a second page (a server asking for more): opened, not returned
			}
			if open != nil {
				open(address)
			}
			return nil
		})
	}()
	select {
	case address := <-s.address:
		return address, nil
	case err := <-s.done:
		x.endSignIn(name, s)
		if err == nil {
			err = errors.New("the sign-in ended before its page was known")
		}
		return "", err
	}
}

// FinishSignIn waits for the sign-in BeginSignIn started (the browser
// coming back, a failure, CancelSignIn, or mcp.SignInTimeout).
func (x *Extensions) FinishSignIn(name string) error {
	x.mu.Lock()
	s := x.signIns[name]
	x.mu.Unlock()
	if s == nil {
		return fmt.Errorf("no sign-in to %s is under way", name)
	}
	err := <-s.done
	x.endSignIn(name, s)
	return err
}

// CancelSignIn stops the sign-in under way to a server, if any.
func (x *Extensions) CancelSignIn(name string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if s := x.signIns[name]; s != nil {
		s.cancel()
	}
}

// endSignIn forgets a sign-in that ended.
func (x *Extensions) endSignIn(name string, s *signing) {
	s.cancel()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.signIns[name] == s {
		delete(x.signIns, name)
	}
}

// SignOut forgets a server's sign-in; it then waits for a new one.
func (x *Extensions) SignOut(name string) error {
	m, err := x.app.MCP()
	if err != nil {
		return err
	}
	return m.SignOut(name)
}

// RetryServer tries a failed server again now, not after its backoff: the
// user has fixed what failed.
func (x *Extensions) RetryServer(name string) error {
	m, err := x.app.MCP()
	if err != nil {
		return err
	}
	return m.Retry(name)
}
