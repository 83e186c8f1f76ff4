package app

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/backend/tool"
)

// TypeMCPServer is published (without a session) when an MCP server's
// state or tools change; its data is an mcp.Status.
const TypeMCPServer agent.Type = "mcp:server-changed"

// TypeToolProgress is published while a tool call runs and its tool says
// how far it has come (an MCP server's progress notifications); its data
// is a ToolProgress.
const TypeToolProgress agent.Type = "tool:progress"

// ToolProgress is the data of TypeToolProgress.
type ToolProgress struct {
	ID   string `json:"id"` // the tool call's
	Tool string `json:"tool"`
	tool.Progress
}

// TypeToolQuestion is published when a tool asks the user something
// during its call (an MCP server's elicitation); its data is a
// ToolQuestion. TypeToolAnswered follows with what the user did (a
// ToolAnswered: never the values, which go to the tool only).
const (
	TypeToolQuestion agent.Type = "tool:question"
	TypeToolAnswered agent.Type = "tool:answered"
)

// ToolQuestion is the data of TypeToolQuestion: the call's tool.Question
// (its fields written out, which the window's generated types need).
type ToolQuestion struct {
	ID      string       `json:"id"` // the tool call's
	Tool    string       `json:"tool"`
	Message string       `json:"message"`
	Fields  []tool.Field `json:"fields"`
	// URL is a page the tool asks the user to open (tool.Question.URL):
	// accepting opens it in the browser.
	URL      string   `json:"url,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Sample: the tool asks to use the user's model (tool.Question.Sample).
	Sample bool `json:"sample,omitempty"`
}

// Form is the question as the tool asked it.
func (q ToolQuestion) Form() tool.Question {
	return tool.Question{Message: q.Message, Fields: q.Fields, URL: q.URL, Warnings: q.Warnings, Sample: q.Sample}
}

// ToolAnswered is the data of TypeToolAnswered.
type ToolAnswered struct {
	ID     string `json:"id"`
	Tool   string `json:"tool"`
	Action string `json:"action"` // tool.Accept, Decline or Cancel
}

// Asker puts a tool's question to the user and waits for the answer; the
// question is asked as the tool will get the answer (nothing redacted).
// It calls ready once the answer can be given (the question's event then
// goes out: a window answers what the event announces), before it waits.
type Asker func(ctx context.Context, q ToolQuestion, ready func()) (tool.Answer, error)

// questionAsker gives each call's tool a tool.Asker that asks through ask
// (nobody: cancelled) and publishes the question and the action taken. An
// error asking, or an answer of another kind, is a cancel.
func questionAsker(emit func(context.Context, agent.Type, any) error, ask Asker) func(id, name string) tool.Asker {
	return func(id, name string) tool.Asker {
		return func(ctx context.Context, q tool.Question) (tool.Answer, error) {
			tq := ToolQuestion{ID: id, Tool: name, Message: q.Message, Fields: q.Fields, URL: q.URL, Warnings: q.Warnings, Sample: q.Sample}
			asked := sync.OnceFunc(func() { _ = emit(context.Background(), TypeToolQuestion, tq) })
			a := tool.Answer{Action: tool.Cancel}
			if ask != nil {
				var err error
				if a, err = ask(ctx, tq, asked); err != nil || a.Action != tool.Accept && a.Action != tool.Decline {
					a = tool.Answer{Action: tool.Cancel}
				}
			}
			asked()
			_ = emit(context.Background(), TypeToolAnswered, ToolAnswered{ID: id, Tool: name, Action: a.Action})
			return a, nil
		}
	}
}

// progressEvery is the most often one call's progress is published (the
// last step always is).
const progressEvery = 250 * time.Millisecond

// progressReporter publishes a call's progress through emit, at most
// every progressEvery, and its last step (progress reaching the total)
// once: a server that says "done" a hundred thousand times is heard once,
// not stored a hundred thousand times.
func progressReporter(emit func(context.Context, agent.Type, any) error) func(id, name string) func(tool.Progress) {
	return func(id, name string) func(tool.Progress) {
		var last time.Time
		finished := false
		return func(p tool.Progress) {
			final := p.Total > 0 && p.Progress >= p.Total
			switch {
			case final && finished:
				return
			case final:
				finished = true
			case time.Since(last) < progressEvery:
				return
			}
			last = time.Now()
			_ = emit(context.Background(), TypeToolProgress, ToolProgress{ID: id, Tool: name, Progress: p})
		}
	}
}

// MCPReadyWait bounds how long a request waits for MCP servers that are
// still starting (an npx server's first start downloads it).
var MCPReadyWait = 20 * time.Second

// MCPWaitNote is how long a request waits for MCP servers still starting
// before it says so.
var MCPWaitNote = time.Second

// MCPPath is the data directory's mcp.json.
func (a *App) MCPPath() string { return filepath.Join(a.Config.DataDir, mcp.FileName) }

// MCPTokens are the sign-ins to MCP servers, kept in the data directory.
func (a *App) MCPTokens() *mcp.Tokens {
	return mcp.NewTokens(filepath.Join(a.Config.DataDir, mcp.TokenFile))
}

// MCP returns the MCP server supervisor, starting the configured servers
// on first use and following mcp.json after (servers whose entry did not
// change are left running). The window calls it at startup and from its
// Extensions view, the CLI at the first request; Close stops every server.
// The error is mcp.json's, when it cannot be read: fixing the file is
// enough, no restart is needed.
func (a *App) MCP() (*mcp.Manager, error) {
	a.mcpOnce.Do(func() {
		m := mcp.NewManager()
		m.Log = a.Log
		m.Tokens = a.MCPTokens()
		m.OnChange = func(st mcp.Status) {
			a.Bus.Publish(agent.Event{Type: TypeMCPServer, Time: time.Now().UTC(), Data: st})
		}
		a.rootsMu.Lock()
		m.SetRoots(slices.Sorted(maps.Keys(a.roots)))
		a.mcp.Store(m)
		a.rootsMu.Unlock()
	})
	return a.mcp.Load(), a.ReloadMCP()
}

// enterRoots counts a run in workspace dir until the returned function is
// called: the MCP servers that take roots are told the workspaces of the
// runs under way (file:// roots, mcp.Server.Roots). Once none is under
// way they keep the last ones, so a server between requests still works
// where the last one did.
func (a *App) enterRoots(dir string) (leave func()) {
	a.rootsMu.Lock()
	defer a.rootsMu.Unlock()
	if a.roots == nil {
		a.roots = map[string]int{}
	}
	a.roots[dir]++
	a.tellRoots()
	return sync.OnceFunc(func() {
		a.rootsMu.Lock()
		defer a.rootsMu.Unlock()
		if a.roots[dir]--; a.roots[dir] <= 0 {
			delete(a.roots, dir)
		}
		if len(a.roots) > 0 {
			a.tellRoots()
		}
	})
}

// tellRoots gives the servers the workspaces counted; call with rootsMu.
func (a *App) tellRoots() {
	if m := a.mcp.Load(); m != nil {
		m.SetRoots(slices.Sorted(maps.Keys(a.roots)))
	}
}

// ReloadMCP reads mcp.json again and makes the running servers match it.
func (a *App) ReloadMCP() error {
	// Under the edit lock: a reload that read the file before an edit must
	// not apply the old servers after it.
	a.mcpEdit.Lock()
	defer a.mcpEdit.Unlock()
	cfg, err := mcp.Load(a.MCPPath())
	if err != nil {
		return err
	}
	a.mcp.Load().Apply(cfg)
	return nil
}

// EditMCP changes mcp.json (mcp.Edit: under its lock, which other Shrimp
// processes take too), saves it and applies it to the running servers.
func (a *App) EditMCP(edit func(*mcp.Config) error) error {
	a.mcpEdit.Lock()
	defer a.mcpEdit.Unlock()
	var cfg mcp.Config
	if err := mcp.Edit(a.MCPPath(), func(c *mcp.Config) error {
		if err := edit(c); err != nil {
			return err
		}
		cfg = *c
		return nil
	}); err != nil {
		return err
	}
	if m := a.mcp.Load(); m != nil {
		m.Apply(cfg)
	}
	return nil
}

// HasTool reports whether a request made now could call the named tool:
// a built-in or memory tool, or a tool of an MCP server that is running
// (when the servers are not started in this process, one that is
// configured and enabled). Procedures naming a tool for which it is false
// are shown as stale and not recalled.
func (a *App) HasTool(name string) bool { return a.ToolChecker()(name) }

// ToolChecker is HasTool for many names at once (a list of procedures):
// the MCP servers' tools, or mcp.json, are read once, when it is made.
func (a *App) ToolChecker() func(name string) bool {
	var mcpHas func(string) bool
	if m := a.mcp.Load(); m != nil {
		names := map[string]bool{}
		for _, t := range m.RegistryTools() {
			names[t.Name()] = true
		}
		mcpHas = func(name string) bool { return names[name] }
	} else {
		cfg, err := mcp.Load(a.MCPPath())
		mcpHas = func(name string) bool {
			s, ok := cfg.Servers[mcp.ServerOf(name)]
			return err == nil && ok && !s.Disabled
		}
	}
	return func(name string) bool {
		if KnownTool(name) {
			return true
		}
		return mcp.ServerOf(name) != "" && mcpHas(name)
	}
}

// startMCP starts the servers (first request); the run waits for those
// still starting (liveTools.Prepare). Errors become warnings: a broken
// mcp.json must not stop the built-in tools.
func (a *App) startMCP() (*mcp.Manager, []string) {
	m, err := a.MCP()
	if err != nil {
		return m, []string{fmt.Sprintf("MCP servers not started: %v", err)}
	}
	return m, nil
}

// Prepare waits, up to MCPReadyWait and while the run goes on, for the
// MCP servers still starting, so their tools are offered from the first
// model call; past MCPWaitNote it says which it waits for. Then it warns
// of the servers whose tools are not offered.
func (l *liveTools) Prepare(ctx context.Context, say func(agent.Event) bool) {
	if l.mgr == nil {
		return
	}
	warn := func(msg string) bool {
		return say(agent.Event{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: msg}})
	}
	wctx, cancel := context.WithTimeout(ctx, MCPReadyWait)
	defer cancel()
	ready := make(chan struct{})
	go func() {
		_ = l.mgr.WaitReady(wctx)
		close(ready)
	}()
	note := time.NewTimer(MCPWaitNote)
	defer note.Stop()
	select {
	case <-ready:
	case <-note.C:
		var names []string
		for _, st := range l.mgr.Statuses() {
			if st.State == mcp.StateStarting {
				names = append(names, st.Name)
			}
		}
		what := "server"
		if len(names) > 1 {
			what = "servers"
		}
		if len(names) > 0 && !warn(fmt.Sprintf("waiting up to %s for MCP %s %s to start, so the model is offered its tools (`shrimp mcp check %s` says why one is slow; disable one in Extensions or with `shrimp mcp disable %[4]s` not to wait for it)",
			MCPReadyWait.Round(time.Second), what, strings.Join(names, ", "), names[0])) {
			return
		}
		<-ready
	}
	if ctx.Err() != nil {
		return
	}
	for _, w := range mcpWarnings(l.mgr, l.dir) {
		if !warn(w) {
			return
		}
	}
}

// mcpWarnings says which servers' tools are not offered to a run in
// workspace dir, and why.
func mcpWarnings(m *mcp.Manager, dir string) []string {
	var warns []string
	for _, st := range m.Statuses() {
		switch st.State {
		case mcp.StateRunning:
			if st.Folder != "" && st.Folder != dir {
				warns = append(warns, fmt.Sprintf("MCP server %s names ${workspaceFolder} and works in %s for a request still under way there: its tools are not offered to this one, in %s; it moves here once that request ends and you send another", st.Name, st.Folder, dir))
			}
		case mcp.StateStarting:
			warns = append(warns, fmt.Sprintf("MCP server %s is still starting: its tools are not offered yet", st.Name))
		case mcp.StateRestarting, mcp.StateFailing:
			warns = append(warns, fmt.Sprintf("MCP server %s is %s (%s): its tools are not offered", st.Name, st.State, st.LastError))
		case mcp.StateSignIn:
			warns = append(warns, fmt.Sprintf("MCP server %s waits for you to sign in (Sign in in Extensions, or `shrimp mcp login %s`): its tools are not offered", st.Name, st.Name))
		}
	}
	return warns
}

// projectMCPFiles are where other clients keep a folder's own MCP servers
// (Claude Code, Cursor, VS Code, Gemini CLI, Codex, OpenCode).
var projectMCPFiles = []string{
	".mcp.json", filepath.Join(".cursor", "mcp.json"), filepath.Join(".vscode", "mcp.json"),
	filepath.Join(".gemini", "settings.json"), filepath.Join(".codex", "config.toml"),
	"opencode.json", "opencode.jsonc", filepath.Join(".opencode", "opencode.json"), filepath.Join(".opencode", "opencode.jsonc"),
}

// maxProjectMCPFile bounds a folder's MCP file read for its server names.
const maxProjectMCPFile = 1 << 20

// ProjectServers says which MCP servers a workspace's own files offer
// that mcp.json does not hold ("" when none): Shrimp does not start them
// by itself, since a cloned folder's servers are commands someone else
// wrote; the user reviews them and imports the file. Only the servers'
// names are read into the message (names are letters, digits, - and _).
func (a *App) ProjectServers(dir string) string {
	mine, _ := mcp.Load(a.MCPPath())
	for _, f := range projectMCPFiles {
		path := filepath.Join(dir, f)
		info, err := os.Lstat(path)
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxProjectMCPFile {
			continue
		}
		theirs, err := mcp.LoadForeign(path)
		if err != nil {
			continue
		}
		var names []string
		for _, n := range slices.Sorted(maps.Keys(theirs.Servers)) {
			s, ok := mine.Servers[n]
			if !ok || !sameServer(s, theirs.Servers[n]) {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			return fmt.Sprintf("this folder's %s offers MCP servers Shrimp does not start by itself (%s): a folder's servers run commands someone else wrote, so review them and add the ones you trust with `shrimp mcp import %s` or Extensions → Import", f, strings.Join(names, ", "), path)
		}
	}
	return ""
}

// sameServer reports whether two configurations start the same server.
func sameServer(a, b mcp.Server) bool {
	return a.Command == b.Command && slices.Equal(a.Args, b.Args) && a.URL == b.URL
}
