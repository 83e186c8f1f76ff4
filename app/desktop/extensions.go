package desktop

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/mcp"
)

// hiddenValue stands for a secret the window does not show; sent back
// unchanged, it keeps the stored value.
const hiddenValue = "***"

// Extensions is the bound service of the Extensions view: MCP servers and
// event hooks.
type Extensions struct {
	app *app.App
	mu  sync.Mutex // hooks.json edits
}

// NewExtensions returns the service.
func NewExtensions(a *app.App) *Extensions { return &Extensions{app: a} }

// ServerView is one configured server with its live status. Env values
// are never sent to the window: each shows as "***".
type ServerView struct {
	ServerInput
	Status mcp.Status `json:"status"`
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
		env := map[string]string{}
		for k := range s.Env {
			env[k] = hiddenValue
		}
		st, ok := status[name]
		if !ok {
			st = mcp.Status{Name: name, State: mcp.StateStarting, Tools: []mcp.Tool{}, Stderr: []string{}}
		}
		out = append(out, ServerView{ServerInput: ServerInput{Name: name, Command: s.Command, Args: orEmpty(s.Args), URL: s.URL, Env: env,
			ReadOnly: s.ReadOnly, Local: s.Local, Disabled: s.Disabled, Timeout: s.Timeout}, Status: st})
	}
	return out, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ServerInput is a server as the window's form sends it. Env values of
// "***" keep the stored value of that key.
type ServerInput struct {
	Name     string            `json:"name"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	URL      string            `json:"url"`
	Env      map[string]string `json:"env"`
	ReadOnly bool              `json:"read_only"`
	Local    bool              `json:"local"` // its answers come from this machine
	Disabled bool              `json:"disabled"`
	Timeout  int               `json:"timeout"`
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
		s.Args = slices.Clone(in.Args)
		for k, v := range in.Env {
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			if v == hiddenValue {
				prev, ok := old.Env[k]
				if !ok {
					return fmt.Errorf("env %s: type its value (*** keeps a value already stored)", k)
				}
				v = prev
			}
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			s.Env[k] = v
		}
		if err := s.Check(name); err != nil {
			return err
		}
		if previous != "" && previous != name {
			delete(c.Servers, previous)
		}
		c.Servers[name] = s
		return nil
	})
}

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

// ImportServers adds the servers of a pasted mcp.json (Claude Desktop's,
// Cursor's: {"mcpServers": {…}}) and returns their names.
func (x *Extensions) ImportServers(text string) ([]string, error) {
	if _, err := x.app.MCP(); err != nil {
		return nil, err
	}
	var other mcp.Config
	if err := json.Unmarshal([]byte(text), &other); err != nil {
		return nil, fmt.Errorf("that is not an mcp.json ({\"mcpServers\": {…}}): %v", err)
	}
	if len(other.Servers) == 0 {
		return nil, errors.New(`no servers found: paste a file with {"mcpServers": {"name": {"command": …}}}`)
	}
	var names []string
	err := x.app.EditMCP(func(c *mcp.Config) error {
		var err error
		names, err = c.Import(other)
		return err
	})
	return names, err
}

// Hooks lists the hooks in hooks.json.
func (x *Extensions) Hooks() ([]hooks.Hook, error) {
	cfg, err := hooks.Load(x.hooksFile())
	if err != nil {
		return []hooks.Hook{}, err
	}
	return cfg.Hooks, nil
}

// saveHooks writes hooks.json and has this process's observers follow it
// at once.
func (x *Extensions) saveHooks(cfg hooks.Config) error {
	if err := cfg.Save(x.hooksFile()); err != nil {
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
	cfg, err := hooks.Load(x.hooksFile())
	if err != nil {
		return h, err
	}
	h.Event, h.Command, h.Tool = strings.TrimSpace(h.Event), strings.TrimSpace(h.Command), strings.TrimSpace(h.Tool)
	if h, err = cfg.Add(h); err != nil {
		return h, err
	}
	return h, x.saveHooks(cfg)
}

// RemoveHook deletes a hook.
func (x *Extensions) RemoveHook(id string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	cfg, err := hooks.Load(x.hooksFile())
	if err != nil {
		return err
	}
	if err := cfg.Remove(id); err != nil {
		return err
	}
	return x.saveHooks(cfg)
}

// SetHookEnabled turns a hook on or off.
func (x *Extensions) SetHookEnabled(id string, enabled bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	cfg, err := hooks.Load(x.hooksFile())
	if err != nil {
		return err
	}
	i := slices.IndexFunc(cfg.Hooks, func(h hooks.Hook) bool { return h.ID == id })
	if i < 0 {
		return fmt.Errorf("no hook %q", id)
	}
	cfg.Hooks[i].Disabled = !enabled
	return x.saveHooks(cfg)
}

// HookEvents lists what a hook can be attached to: pre-tool-call, then
// the event types the harness publishes.
func (x *Extensions) HookEvents() []string {
	out := []string{hooks.PreToolCall}
	for _, t := range app.Events {
		out = append(out, string(t))
	}
	return out
}
