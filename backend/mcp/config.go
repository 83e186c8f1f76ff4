// Package mcp connects Shrimp to Model Context Protocol servers: it keeps
// their configuration (mcp.json in the data directory, in the mcpServers
// format Claude Desktop and Cursor use, so a user can paste theirs; VS
// Code's, Gemini CLI's, OpenCode's and Codex's are read for import, with
// their meaning: ParseForeign, ParseCodex) and talks to one server over
// stdio, streamable HTTP or the older HTTP+SSE with the official Go SDK:
// list its tools, call one.
//
// Its contract: the configuration file is written whole (a temporary file
// renamed over it) with mode 0600, since it may hold secrets in env;
// server names are checked, so a tool can be named mcp.<server>.<tool>; a
// stdio server runs without a shell, and its process dies with the
// session; a tool its server's settings exclude (IncludeTools,
// ExcludeTools) is listed but never offered, and a change of those alone
// does not restart the server. An imported server never brings another
// app's trust (Gemini CLI's trust, Codex's automatic approval).
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
	"github.com/samber/lo"
	"golang.org/x/text/unicode/norm"

	"github.com/shrimp-harness/shrimp/internal/datadir"
	"github.com/shrimp-harness/shrimp/internal/jsonc"
)

// FileName is the configuration file in the data directory.
const FileName = "mcp.json"

// Server is one configured server: a command (stdio) or a URL (HTTP).
type Server struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	// Type names the transport as Claude Code and VS Code write it:
	// "stdio", "http" (streamable HTTP) or "sse" (the older HTTP with
	// server-sent events); "" goes by command or url (a url whose path
	// ends in /sse is the older kind).
	Type string `json:"type,omitempty"`
	// Headers are sent with every HTTP request to a url server (an
	// Authorization token, most often): secrets, like Env.
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
	// ReadOnly is the user's word that the server's tools only read: the
	// approval gate treats them as read-only tools.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Local is the user's word that the server's answers come from their
	// own machine and data (files, a local database), not from others:
	// reading them does not count as content from outside, after which
	// the approval gate asks again (see package approval).
	Local bool `json:"local,omitempty"`
	// Roots says whether the server is told the workspaces Shrimp's runs
	// work in, as MCP roots (file:// addresses it should keep to; the
	// filesystem server then serves those folders, and needs no folder
	// of its own in Args). Unset: a server started here (Command) is
	// told, one reached by url is not (a folder's path is no business of
	// a server elsewhere).
	Roots *bool `json:"roots,omitempty"`
	// Timeout bounds one tool call, in seconds (0: DefaultTimeout); the
	// name is the one Cline's settings use.
	Timeout int `json:"timeout,omitempty"`
	// OAuth is the app registered in advance with the server's sign-in
	// (for a server whose authorization server registers no clients
	// itself); nil signs in as a client registered at the sign-in.
	OAuth *OAuthClient `json:"oauth,omitempty"`
	// IncludeTools, when given, are the only of its tools offered to the
	// model; ExcludeTools are never offered, whatever IncludeTools says
	// (Gemini CLI's names and meaning). A tool left out is listed, marked
	// Excluded, and a call of it is refused as of a tool that does not
	// exist.
	IncludeTools []string `json:"includeTools,omitempty"`
	ExcludeTools []string `json:"excludeTools,omitempty"`
}

// Offers reports whether the server's settings let the model be offered
// its tool of that name (IncludeTools, ExcludeTools).
func (s Server) Offers(tool string) bool {
	if slices.Contains(s.ExcludeTools, tool) {
		return false
	}
	return len(s.IncludeTools) == 0 || slices.Contains(s.IncludeTools, tool)
}

// unfiltered is s without its tool filters: what its process or
// connection depends on.
func (s Server) unfiltered() Server {
	s.IncludeTools, s.ExcludeTools = nil, nil
	return s
}

// Offer changes the server's filters so that its tool of that name is
// offered to the model or not (ExcludeTools; IncludeTools, when it has
// one, gains the tool offered). An empty name is an error: it names no
// tool, and Check refuses it.
func (s *Server) Offer(tool string, offered bool) error {
	if strings.TrimSpace(tool) == "" {
		return errors.New("name the tool, as `shrimp mcp tools SERVER` lists it")
	}
	s.ExcludeTools = slices.DeleteFunc(s.ExcludeTools, func(t string) bool { return t == tool })
	switch {
	case !offered:
		s.ExcludeTools = append(s.ExcludeTools, tool)
	case len(s.IncludeTools) > 0 && !slices.Contains(s.IncludeTools, tool):
		s.IncludeTools = append(s.IncludeTools, tool)
	}
	if len(s.ExcludeTools) == 0 {
		s.ExcludeTools = nil
	}
	return nil
}

// Mark sets Excluded on the tools (its own, as listed) the server's
// settings keep from the model.
func (s Server) Mark(tools []Tool) {
	for i, t := range tools {
		tools[i].Excluded = t.Kind == "" && !s.Offers(t.Name)
	}
}

// OAuthClient is an OAuth app registered in advance, in Claude Code's
// words for it: its client id, its secret when it has one (a secret, like
// Env), and the loopback port its redirect address names when the
// provider wants that exact address (0: any free port).
type OAuthClient struct {
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret,omitempty"`
	CallbackPort int    `json:"callbackPort,omitempty"`
}

// Config is mcp.json.
type Config struct {
	Servers map[string]Server `json:"mcpServers"`
	// Renamed and Skipped say what ParseForeign did with another client's
	// file: the servers given a name Shrimp can use (that name → the
	// file's), and those left out (the file's name → why).
	Renamed map[string]string `json:"-"`
	Skipped map[string]string `json:"-"`
	// FromWindows names the imported servers written for Windows (a
	// drive-letter path, cmd or a .exe): name → what says so.
	FromWindows map[string]string `json:"-"`
	// Notes say what of an imported server's settings means something
	// else here or is not kept (Gemini CLI's trust, cwd): name → notes.
	Notes map[string][]string `json:"-"`
}

// windowsPath is a path on a Windows drive (C:\Users, D:/data).
var windowsPath = regexp.MustCompile(`^[A-Za-z]:[\\/]`)

// windowsOnly returns what in a server's command or arguments only
// Windows runs: a drive-letter path, Windows' shells, a .exe, .cmd or
// .bat program; "" for none.
func (s Server) windowsOnly() string {
	switch strings.ToLower(s.Command) {
	case "cmd", "cmd.exe", "powershell", "powershell.exe", "pwsh.exe":
		return s.Command
	}
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		if strings.HasSuffix(strings.ToLower(s.Command), ext) {
			return s.Command
		}
	}
	for _, a := range append([]string{s.Command}, s.Args...) {
		if windowsPath.MatchString(a) {
			return a
		}
	}
	return ""
}

// validName is what a server name may be: it becomes part of tool names.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// validHeader is an HTTP header name (RFC 9110 token).
var validHeader = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// Check reports what is wrong with a server's configuration.
func (s Server) Check(name string) error {
	switch {
	case !validName.MatchString(name):
		return fmt.Errorf("server name %q: use up to 32 letters, digits, - and _ (it becomes part of tool names)", name)
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("server %s: give a command (stdio) or a url (streamable HTTP)", name)
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("server %s: a command or a url, not both", name)
	case s.Command != "" && len(s.Headers) > 0:
		return fmt.Errorf("server %s: headers are for a url server; a command's server gets env instead", name)
	case !slices.Contains([]string{"", "stdio", "http", "streamable-http", "sse"}, s.Type):
		return fmt.Errorf("server %s: type %q: use stdio, http or sse (or leave it out)", name, s.Type)
	case s.Type == "stdio" && s.Command == "", s.Type != "" && s.Type != "stdio" && s.URL == "":
		return fmt.Errorf("server %s: type %s does not go with a %s", name, s.Type, map[bool]string{true: "command", false: "url"}[s.Command != ""])
	case s.Timeout < 0:
		return fmt.Errorf("server %s: timeout %d: give the seconds one call may take (0 for the default)", name, s.Timeout)
	case slices.ContainsFunc(append(slices.Clone(s.IncludeTools), s.ExcludeTools...), func(t string) bool { return strings.TrimSpace(t) == "" }):
		return fmt.Errorf("server %s: includeTools and excludeTools name tools: an empty name selects none", name)
	}

	for k, v := range s.Headers {
		if !validHeader.MatchString(k) || strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("server %s: header %q: a header is a name of letters, digits and -, and a value on one line", name, k)
		}
	}
	if o := s.OAuth; o != nil {
		switch {
		case s.URL == "" || s.sse():
			return fmt.Errorf("server %s: oauth is for a url server (streamable HTTP)", name)
		case strings.TrimSpace(o.ClientID) == "":
			return fmt.Errorf("server %s: oauth needs the clientId of the app registered with the server's sign-in", name)
		case o.CallbackPort < 0 || o.CallbackPort > 65535:
			return fmt.Errorf("server %s: oauth callbackPort %d is not a port (1 to 65535, or 0 for any)", name, o.CallbackPort)
		}
	}
	return nil
}

// CheckNew is Check for a server being added (by hand, from the window,
// or imported): its url must also be one it can reach (checkURL). A
// server already in mcp.json with such a url fails alone, at its start,
// rather than keep the file's other servers from starting.
func (s Server) CheckNew(name string) error {
	if err := s.Check(name); err != nil {
		return err
	}
	return s.checkURL(name)
}

// checkURL reports a url that cannot name a server: http or https with a
// host. A url with ${…} in it is checked once filled in.
func (s Server) checkURL(name string) error {
	if u, err := url.Parse(s.URL); s.URL != "" && !strings.Contains(s.URL, "${") && (err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
		return fmt.Errorf("server %s: url %q: give the server's whole address, as https://host/path (or http:// for one on this machine)", name, s.URL)
	}
	return nil
}

// OffersRoots reports whether the server is told the workspaces (Roots).
func (s Server) OffersRoots() bool {
	if s.Roots != nil {
		return *s.Roots
	}
	return s.Command != ""
}

// sse reports whether a url server speaks the older HTTP transport
// (server-sent events).
func (s Server) sse() bool {
	if s.Type != "" {
		return s.Type == "sse"
	}
	u, err := url.Parse(s.URL)
	return err == nil && strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/sse")
}

// Load reads Shrimp's own configuration at path; a missing file is an
// empty one. A file another user could have written is refused: it names
// commands Shrimp would run. A server whose settings fail Check is kept as
// written; it cannot start (connect checks it first) and says why.
func Load(path string) (Config, error) {
	return load(path)
}

// LoadForeign reads another application's MCP configuration (for
// import; ParseForeign), without the ownership check: nothing in it runs
// until it is imported.
func LoadForeign(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read %s: %w", path, err)
	}
	var c Config
	if strings.HasSuffix(path, ".toml") {
		c, err = ParseCodex(b)
	} else {
		c, err = parseForeign(b, filepath.Base(filepath.Dir(path)) == ".gemini")
	}
	if err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseForeign reads another application's MCP configuration: the
// {"mcpServers": …} of Claude Desktop, Claude Code's .mcp.json, Cursor,
// Windsurf, Cline and Gemini CLI's settings.json, VS Code's
// {"servers": …} (its mcp.json) and {"mcp": {"servers": …}} (its
// settings.json), or OpenCode's opencode.json ({"mcp": …}, its servers
// with a type, local or remote, and the command as an array). A file with
// no servers is an error saying what was expected.
func ParseForeign(b []byte) (Config, error) { return parseForeign(b, false) }

// foreignServer is a server as other clients write it: Shrimp's fields,
// and Gemini CLI's and OpenCode's own.
type foreignServer struct {
	Server
	HTTPURL string `json:"httpUrl"` // Gemini CLI: streamable HTTP (its url is SSE)
	Trust   *bool  `json:"trust"`   // Gemini CLI: no confirmation of its calls
	CWD     string `json:"cwd"`     // Gemini CLI: the folder it starts in
	// OpenCode's: its command is the whole argv (an array), its env is
	// environment, and enabled false switches it off.
	Environment map[string]string `json:"environment"`
	Enabled     *bool             `json:"enabled"`
	argv        bool              // its command was an array
}

// opencode reports whether the server is written in OpenCode's form.
func (f foreignServer) opencode() bool {
	return f.argv || f.Type == "local" || f.Type == "remote" || f.Environment != nil || f.Enabled != nil
}

// UnmarshalJSON reads a server as Shrimp's reading does, and a command
// given as an array (OpenCode's argv) as the command and its arguments.
func (f *foreignServer) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	var argv []string
	if c, ok := raw["command"]; ok && bytes.HasPrefix(bytes.TrimSpace(c), []byte("[")) {
		if err := json.Unmarshal(c, &argv); err != nil {
			return fmt.Errorf("command: %w", err)
		}
		delete(raw, "command")
		var err error
		if b, err = json.Marshal(raw); err != nil {
			return err
		}
	}
	type plain foreignServer // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*f = foreignServer(p)
	if len(argv) > 0 {
		f.Command, f.Args, f.argv = argv[0], append(slices.Clone(argv[1:]), f.Args...), true
	}
	return nil
}

// gemini reports whether the server is written in Gemini CLI's form
// (fields only it has: its includeTools and excludeTools are Shrimp's
// too, so they tell nothing).
func (f foreignServer) gemini() bool {
	return f.HTTPURL != "" || f.Trust != nil || f.CWD != ""
}

// maxSecondsTimeout is the longest tool-call timeout other clients give
// in seconds (Cline's range ends at 3600): a longer one is in
// milliseconds, as Gemini CLI (default 600000) and OpenCode give them.
const maxSecondsTimeout = 3600

// parseForeign is ParseForeign; gemini says the file is Gemini CLI's
// (its url is SSE, its timeouts milliseconds), as a server in it with
// Gemini CLI's own fields says too.
func parseForeign(b []byte, gemini bool) (Config, error) {
	var f struct {
		MCPServers map[string]foreignServer `json:"mcpServers"`
		Servers    map[string]foreignServer `json:"servers"`
		// VS Code's settings and OpenCode's later config: {"servers": …};
		// OpenCode's earlier: the servers themselves, each with a type.
		MCP map[string]json.RawMessage `json:"mcp"`
	}
	b, err := jsonc.Standard(b) // VS Code's and Zed's have comments, Windows' a byte order mark
	if err != nil {
		return Config{}, fmt.Errorf("not an MCP configuration (%v)", err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return Config{}, fmt.Errorf("not an MCP configuration (%v)", err)
	}
	inMCP := map[string]foreignServer{}
	if raw, ok := f.MCP["servers"]; ok {
		if err := json.Unmarshal(raw, &inMCP); err != nil {
			return Config{}, fmt.Errorf("not an MCP configuration (mcp.servers: %v)", err)
		}
	} else {
		for name, raw := range f.MCP {
			var s foreignServer
			if json.Unmarshal(raw, &s) == nil && (s.Type == "local" || s.Type == "remote") {
				inMCP[name] = s
			}
		}
	}
	all := map[string]foreignServer{}
	for _, m := range []map[string]foreignServer{inMCP, f.Servers, f.MCPServers} {
		maps.Copy(all, m)
	}
	if len(all) == 0 {
		return emptyForeign(), errors.New(`no servers found: expected {"mcpServers": {"name": {"command": …}}} (Claude, Cursor, Gemini CLI) or {"servers": {…}} (VS Code)`)
	}
	// One server in Gemini CLI's (or OpenCode's) own form says whose the
	// file is.
	servers, form := slices.Collect(maps.Values(all)), ""
	switch {
	case gemini || slices.ContainsFunc(servers, foreignServer.gemini):
		form = "gemini"
	case slices.ContainsFunc(servers, foreignServer.opencode):
		form = "opencode"
	}
	return foreignConfig(all, func(f foreignServer) (Server, []string) { return f.converted(form) })
}

func emptyForeign() Config {
	return Config{Servers: map[string]Server{}, Renamed: map[string]string{}, Skipped: map[string]string{}, FromWindows: map[string]string{}, Notes: map[string][]string{}}
}

// foreignConfig is another client's servers as Shrimp keeps them, each
// converted (with notes on what changes meaning), renamed where its name
// cannot be a tool name's part, and left out, saying why, where it
// cannot start here.
func foreignConfig[T any](all map[string]T, convert func(T) (Server, []string)) (Config, error) {
	c := emptyForeign()
	taken := map[string]bool{}
	for name := range all {
		taken[strings.ToLower(name)] = true
	}
	for _, name := range slices.Sorted(maps.Keys(all)) {
		n := name
		if !validName.MatchString(name) {
			n = usableName(name, taken)
		}
		srv, notes := convert(all[name])
		if err := srv.CheckNew(n); err != nil {
			c.Skipped[name] = err.Error()
			continue
		}
		c.Servers[n] = srv
		if len(notes) > 0 {
			c.Notes[n] = notes
		}
		if n != name {
			c.Renamed[n] = name
		}
		if w := srv.windowsOnly(); w != "" {
			c.FromWindows[n] = w
		}
	}
	if len(c.Servers) == 0 { // every one left out: why, one line each
		why := lo.Map(slices.Sorted(maps.Keys(c.Skipped)), func(n string, _ int) string { return c.Skipped[n] })
		return c, errors.New(strings.Join(why, "\n"))
	}
	return c, nil
}

// openCodeVar is how OpenCode's config names a variable of its
// environment: {env:NAME}; geminiVar Gemini CLI's shorter form, $NAME
// (beside ${NAME}, Shrimp's own).
var (
	openCodeVar = regexp.MustCompile(`\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)
	geminiVar   = regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)`)
)

// rewriteVars writes each variable re matches in v (its name the first
// group) as ${NAME}, except where it is part of a ${…} already.
func rewriteVars(re *regexp.Regexp, v string) string {
	var out strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(v, -1) {
		if m[0] > 0 && v[m[0]-1] == '$' || m[0] > 0 && strings.LastIndex(v[:m[0]], "${") > strings.LastIndex(v[:m[0]], "}") {
			continue // inside ${…}: Shrimp's own already
		}
		out.WriteString(v[last:m[0]] + "${" + v[m[2]:m[3]] + "}")
		last = m[1]
	}
	return out.String() + v[last:]
}

// converted is f as Shrimp keeps it, from a file in form ("gemini",
// "opencode": their timeouts are milliseconds, Gemini CLI's url is SSE,
// OpenCode's {env:NAME} is ${NAME}; "" for the others), with what of it
// means something else here or is not kept.
func (f foreignServer) converted(form string) (Server, []string) {
	s, notes := f.Server, []string(nil)
	switch s.Type { // OpenCode's kinds
	case "local":
		s.Type = "stdio"
	case "remote":
		s.Type = "" // by its url
	}
	if len(f.Environment) > 0 {
		s.Env = maps.Clone(s.Env)
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		for k, v := range f.Environment {
			if _, set := s.Env[k]; !set {
				s.Env[k] = v
			}
		}
	}
	if f.Enabled != nil && !*f.Enabled {
		s.Disabled = true
	}
	switch {
	case f.HTTPURL != "" && s.URL == "" && s.Command == "":
		s.URL = f.HTTPURL
		if s.Type == "" {
			s.Type = "http"
		}
	case form == "gemini" && s.URL != "" && s.Type == "":
		s.Type = "sse" // Gemini CLI's url is the older transport; httpUrl the newer
	}
	switch form {
	case "opencode":
		s = s.mapSettings(func(v string) string { return rewriteVars(openCodeVar, v) })
	case "gemini":
		s = s.mapSettings(func(v string) string { return rewriteVars(geminiVar, v) })
	}
	if s.Timeout > 0 && (form != "" || s.Timeout > maxSecondsTimeout) {
		s.Timeout = min(maxImportedTimeout, (s.Timeout-1)/1000+1) // milliseconds there, rounded up without overflowing
	}
	if f.Trust != nil && *f.Trust {
		notes = append(notes, "it was trusted in Gemini CLI (its calls not confirmed); here its calls go through the approval mode like any tool's")
	}
	if f.CWD != "" {
		notes = append(notes, fmt.Sprintf("it started in %q in Gemini CLI; here it starts in Shrimp's folder, so give its arguments whole paths", f.CWD))
	}
	if s.NamesWorkspace() {
		notes = append(notes, "it names ${workspaceFolder}, the folder open in the editor: here it is the workspace of the request the server works for, so it starts with the first request and again when a request works in another workspace")
	}
	return s, notes
}

// NamesWorkspace reports whether the server's settings name the folder
// an editor has open (${workspaceFolder}, ${workspaceFolderBasename},
// ${workspaceRoot}: VS Code's and Cursor's), which Shrimp fills with the
// workspace the server works for (InWorkspace).
func (s Server) NamesWorkspace() bool {
	found := false
	s.mapSettings(func(v string) string {
		for _, ref := range reference.FindAllStringSubmatch(v, -1) {
			found = found || editorOnly(ref[1]) && strings.HasPrefix(ref[1], "workspace")
		}
		return v
	})
	return found
}

// InWorkspace returns the server with the editor's open folder in its
// settings (${workspaceFolder}, ${workspaceRoot}; ${workspaceFolderBasename}
// its name) filled with dir, a workspace; dir "" leaves them, and such a
// server cannot start.
func (s Server) InWorkspace(dir string) Server {
	if dir == "" || !s.NamesWorkspace() {
		return s
	}
	return s.mapSettings(func(v string) string {
		return reference.ReplaceAllStringFunc(v, func(ref string) string {
			switch ref[2 : len(ref)-1] {
			case "workspaceFolder", "workspaceRoot":
				return dir
			case "workspaceFolderBasename":
				return filepath.Base(dir)
			}
			return ref
		})
	})
}

// codexServer is one [mcp_servers.NAME] table of Codex's config.toml.
type codexServer struct {
	Command         string            `toml:"command"`
	Args            []string          `toml:"args"`
	Env             map[string]string `toml:"env"`
	EnvVars         []any             `toml:"env_vars"` // names, or {name, source} tables
	CWD             string            `toml:"cwd"`
	URL             string            `toml:"url"`
	BearerTokenVar  string            `toml:"bearer_token_env_var"`
	HTTPHeaders     map[string]string `toml:"http_headers"`
	EnvHTTPHeaders  map[string]string `toml:"env_http_headers"`
	Enabled         *bool             `toml:"enabled"`
	ToolTimeout     float64           `toml:"tool_timeout_sec"`
	EnabledTools    []string          `toml:"enabled_tools"`
	DisabledTools   []string          `toml:"disabled_tools"`
	DefaultApproval string            `toml:"default_tools_approval_mode"`
	Tools           map[string]struct {
		Approval string `toml:"approval_mode"`
	} `toml:"tools"`
}

// maxImportedTimeout bounds an imported tool-call timeout, in seconds (a
// day): a larger one is no bound, and would not fit.
const maxImportedTimeout = 24 * 60 * 60

// ParseCodex reads the MCP servers of Codex's config.toml (its
// [mcp_servers.NAME] tables, ~/.codex/config.toml or a project's
// .codex/config.toml) as ParseForeign reads JSON: a url server speaks
// streamable HTTP; bearer_token_env_var, env_http_headers and env_vars
// become ${NAME} references Shrimp fills in from its environment;
// enabled_tools and disabled_tools are IncludeTools and ExcludeTools;
// tool_timeout_sec is the timeout. Codex approving a server's tools
// without asking, and its cwd, do not carry over (said in Notes).
func ParseCodex(b []byte) (Config, error) {
	var f struct {
		Servers map[string]codexServer `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(b), &f); err != nil {
		return emptyForeign(), fmt.Errorf("not a Codex config.toml (%v)", err)
	}
	if len(f.Servers) == 0 {
		return emptyForeign(), errors.New("no [mcp_servers.NAME] tables in it: Codex keeps its MCP servers there (~/.codex/config.toml)")
	}
	return foreignConfig(f.Servers, codexServer.converted)
}

func (cs codexServer) converted() (Server, []string) {
	s := Server{Command: cs.Command, Args: cs.Args, URL: cs.URL, IncludeTools: cs.EnabledTools, ExcludeTools: cs.DisabledTools}
	var notes []string
	if cs.URL != "" {
		s.Type = "http"
	}
	if len(cs.Env) > 0 {
		s.Env = maps.Clone(cs.Env)
	}
	for _, v := range cs.EnvVars {
		name, _ := v.(string)
		if t, ok := v.(map[string]any); ok {
			name, _ = t["name"].(string)
		}
		if m := variable.FindStringSubmatch(name); m != nil && m[1] == name {
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			if _, set := s.Env[name]; !set {
				s.Env[name] = "${" + name + "}"
			}
		}
	}
	header := func(k, v string) {
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[k] = v
	}
	for k, v := range cs.HTTPHeaders {
		header(k, v)
	}
	for k, v := range cs.EnvHTTPHeaders {
		header(k, "${"+v+"}")
	}
	if cs.BearerTokenVar != "" {
		header("Authorization", "Bearer ${"+cs.BearerTokenVar+"}")
	}
	s.Disabled = cs.Enabled != nil && !*cs.Enabled
	if cs.ToolTimeout > 0 {
		s.Timeout = int(math.Ceil(min(cs.ToolTimeout, maxImportedTimeout)))
	}
	auto := cs.DefaultApproval == "auto" || cs.DefaultApproval == "approve"
	for _, t := range cs.Tools {
		auto = auto || t.Approval == "auto" || t.Approval == "approve"
	}
	if auto {
		notes = append(notes, "Codex ran some of its tools without asking; here its calls go through the approval mode like any tool's")
	}
	if cs.CWD != "" {
		notes = append(notes, fmt.Sprintf("it started in %q in Codex; here it starts in Shrimp's folder, so give its arguments whole paths", cs.CWD))
	}
	return s, notes
}

// ImportNotes says, one line each, which of another client's servers
// ParseForeign renamed and which it left out, and why.
func ImportNotes(c Config) []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(c.Renamed)) {
		out = append(out, fmt.Sprintf("%q is named %s here (a server's name becomes part of its tools' names: letters, digits, - and _)", c.Renamed[n], n))
	}
	for _, n := range slices.Sorted(maps.Keys(c.Skipped)) {
		out = append(out, fmt.Sprintf("%q was not imported: %s", n, c.Skipped[n]))
	}
	for _, n := range slices.Sorted(maps.Keys(c.Notes)) {
		for _, note := range c.Notes[n] {
			out = append(out, fmt.Sprintf("%s: %s", n, note))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.FromWindows)) {
		w := c.FromWindows[n]
		if strings.IndexFunc(w, unicode.IsControl) >= 0 {
			w = strconv.Quote(w) // on one line, and no terminal control
		}
		out = append(out, fmt.Sprintf("%s was written for Windows (%s): give it this machine's command and paths (shrimp mcp remove %s, then add it again), or it cannot start", n, w, n))
	}
	return out
}

// usableName makes a name another client allows (VS Code's "AWS API MCP
// Server", its gallery's "github/github-mcp-server") one Shrimp can put in
// tool names: the part after the last /, lower case, accents dropped,
// each run of other characters a -, 32 characters at most, and a -2, -3…
// when taken already (taken is updated, its keys in lower case).
func usableName(name string, taken map[string]bool) string {
	if i := strings.LastIndexByte(strings.TrimRight(name, "/"), '/'); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(norm.NFD.String(name)) {
		if unicode.Is(unicode.Mn, r) {
			continue // an accent, its letter kept: é is e
		}
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	base := strings.TrimLeft(b.String(), "_")
	if base == "" {
		base = "server"
	}
	n := base[:min(len(base), 32)]
	for i := 2; taken[n]; i++ {
		suffix := fmt.Sprintf("-%d", i)
		n = strings.TrimRight(base[:min(len(base), 32-len(suffix))], "-") + suffix
	}
	taken[n] = true
	return n
}

func load(path string) (Config, error) {
	c := Config{Servers: map[string]Server{}}
	b, err := datadir.ReadPrivate(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if b, err = jsonc.Standard(b); err == nil { // edited by hand: comments, a byte order mark
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		return c, fmt.Errorf("%s is not valid mcp.json (%v): fix it or remove it", path, err)
	}
	if c.Servers == nil {
		c.Servers = map[string]Server{}
	}
	// An entry that fails Check (a name or header written by hand) is
	// kept: it fails alone when it starts, saying why, and the others run.
	return c, nil
}

// Edit changes the configuration at path: it loads it, lets edit change
// it and saves it, holding the file's lock ([datadir.Lock]) throughout, so
// the window and a terminal changing it at once both keep their change. An
// error from edit leaves the file as it was.
func Edit(path string, edit func(*Config) error) error {
	return datadir.Edit(path, Load, Config.Save, edit)
}

// Save writes the configuration to path whole, mode 0600. A change made
// from what was loaded goes through [Edit].
func (c Config) Save(path string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return datadir.WritePrivate(path, append(b, '\n'))
}

// Import adds the servers of another mcp.json (Claude Desktop's, Cursor's)
// and returns their names; a name already configured is an error, so
// nothing is replaced silently.
func (c *Config) Import(other Config) ([]string, error) {
	names := slices.Sorted(maps.Keys(other.Servers))
	for _, n := range names {
		if _, ok := c.Servers[n]; ok {
			return nil, fmt.Errorf("server %s is already configured: remove it first or rename it in the file", n)
		}
		if err := other.Servers[n].CheckNew(n); err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		c.Servers[n] = other.Servers[n]
	}
	return names, nil
}

// reference is a ${…} in a server's settings.
var reference = regexp.MustCompile(`\$\{([^}]*)\}`)

// variable is what a reference may name: a variable of Shrimp's
// environment, as Claude Code (${NAME}, ${NAME:-default}) and Cursor
// (${env:NAME}) write it.
var variable = regexp.MustCompile(`^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$`)

// expanded returns the server with the ${…} references in its command,
// args, env values, url and header values replaced from lookup (Shrimp's
// environment), so a file imported from another client, which keeps a
// token out of the file that way, works as it did there. A variable that
// is not set and has no default is an error naming it.
func (s Server) expanded(lookup func(string) (string, bool)) (Server, error) {
	var bad error
	expand := func(v string) string {
		return reference.ReplaceAllStringFunc(v, func(ref string) string {
			m := variable.FindStringSubmatch(ref[2 : len(ref)-1])
			switch name := ref[2 : len(ref)-1]; {
			case bad != nil:
				return ref
			case name == "userHome": // Cursor's and VS Code's name for it
				m = []string{"", "HOME", ""}
			case name == "pathSeparator" || name == "/":
				return string(filepath.Separator)
			case editorOnly(name):
				bad = fmt.Errorf("%s is the folder open in the editor (Cursor, VS Code): Shrimp fills it with the workspace of the request the server works for, and none was given; start it from a request, or write the folder's path", ref)
				return ref
			case m == nil:
				bad = fmt.Errorf("%s is not a variable Shrimp can fill in (it takes ${NAME}, ${env:NAME} and ${NAME:-default} from its environment): write the value itself", ref)
				return ref
			}
			if val, ok := lookup(m[1]); ok {
				return val
			}
			if strings.Contains(ref, ":-") {
				return m[2]
			}
			bad = fmt.Errorf("%s is not set in Shrimp's environment: set it before starting Shrimp, or write the value itself", ref)
			return ref
		})
	}
	return s.mapSettings(expand), bad
}

// Variables names the variables of Shrimp's environment the server's
// settings take (${NAME} and the like), sorted: what a server passes on
// to its program or its url that Shrimp would not otherwise give it, for
// the user to see before it starts.
func (s Server) Variables() []string {
	seen := map[string]bool{}
	s.mapSettings(func(v string) string {
		for _, ref := range reference.FindAllStringSubmatch(v, -1) {
			switch m := variable.FindStringSubmatch(ref[1]); {
			case ref[1] == "userHome":
				seen["HOME"] = true
			case editorOnly(ref[1]):
			case m != nil:
				seen[m[1]] = true
			}
		}
		return v
	})
	return slices.Sorted(maps.Keys(seen))
}

// editorOnly reports whether a ${…} names what only an editor knows (its
// open folder) or a separator, not a variable of the environment.
func editorOnly(name string) bool {
	return slices.Contains([]string{"workspaceFolder", "workspaceFolderBasename", "workspaceRoot", "pathSeparator", "/"}, name)
}

// mapSettings returns the server with f applied to every setting that
// may hold a ${…}: its command, args, url, env and header values, and its
// OAuth client's id and secret.
func (s Server) mapSettings(f func(string) string) Server {
	values := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			out[k] = f(v)
		}
		return out
	}
	out := s
	out.Command, out.URL = f(s.Command), f(s.URL)
	if s.Args != nil {
		out.Args = make([]string, len(s.Args))
		for i, a := range s.Args {
			out.Args[i] = f(a)
		}
	}
	out.Env, out.Headers = values(s.Env), values(s.Headers)
	if s.OAuth != nil {
		o := *s.OAuth
		o.ClientID, o.ClientSecret = f(o.ClientID), f(o.ClientSecret)
		out.OAuth = &o
	}
	return out
}
