package cli

import (
	"context"
	"fmt"
	"maps"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/internal/anchor"
	"github.com/shrimp-harness/shrimp/internal/datadir"
	"github.com/shrimp-harness/shrimp/internal/plural"
	"github.com/shrimp-harness/shrimp/internal/shebang"
	"github.com/shrimp-harness/shrimp/internal/tail"
)

// runMCP manages MCP servers in the data directory's mcp.json.
func runMCP(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: mcp needs list, status, add, remove, enable, disable, tools, check, prompts, prompt, resources, resource, login, logout or import", errUsage)
	}
	sub, args := args[0], args[1:]
	var command []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
	}
	fs := newFlags("mcp " + sub)
	asJSON := fs.Bool("json", false, "print JSON")
	url := fs.String("url", "", "add: the server's streamable HTTP endpoint")
	readOnly := fs.Bool("read-only", false, "add: its tools only read (approval mode read runs them)")
	local := fs.Bool("local", false, "add: its answers come from this machine (reading them does not make Shrimp ask again about calls an \"always\" answers)")
	timeout := fs.Int("timeout", 0, "add: seconds one tool call may take (default 120)")
	noRoots := fs.Bool("no-roots", false, "add: do not tell the server the workspace as MCP roots (it keeps to the folders its arguments name); a --url server is never told")
	var envs, hdrs repeated
	fs.Var(&envs, "env", "add: KEY=VALUE for the server's environment (repeatable; kept in mcp.json, mode 0600; ${VAR} takes Shrimp's)")
	fs.Var(&hdrs, "header", "add: 'Name: value' sent to a --url server with every request, such as 'Authorization: Bearer ${TOKEN}' (repeatable; kept like --env)")
	sse := fs.Bool("sse", false, "add: the --url server speaks the older HTTP+SSE transport (a url ending in /sse is taken as one)")
	clientID := fs.String("client-id", "", "add: the --url server's sign-in wants an app registered in advance: its client id")
	clientSecret := fs.String("client-secret", "", "add: that app's client secret, if it has one (kept like --env; ${VAR} takes Shrimp's)")
	callbackPort := fs.Int("callback-port", 0, "add: the loopback port registered in that app's redirect address (default: any free port)")
	if err := parseInterleaved(fs, args, "url", "timeout", "env", "header", "client-id", "client-secret", "callback-port"); err != nil {
		return err
	}
	rest := fs.Args()
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	path := filepath.Join(a.Config.DataDir, mcp.FileName)
	switch sub {
	case "add", "enable", "disable", "remove", "import":
		// Held from the read to the write: the window or another terminal
		// changing the file meanwhile would lose its change, or this one.
		unlock, err := datadir.Lock(path, datadir.EditWait)
		if err != nil {
			return err
		}
		defer unlock()
	}
	cfg, err := mcp.Load(path)
	if err != nil {
		return err
	}
	named := func(name string) (string, mcp.Server, error) {
		s, ok := cfg.Servers[name]
		if !ok {
			return "", s, fmt.Errorf("no MCP server %q (see `shrimp mcp list`)", name)
		}
		return name, s, nil
	}
	one := func() (string, mcp.Server, error) {
		if len(rest) != 1 {
			return "", mcp.Server{}, fmt.Errorf("%w: mcp %s needs one server name", errUsage, sub)
		}
		return named(rest[0])
	}
	switch sub {
	case "list":
		if len(rest) > 0 {
			return fmt.Errorf("%w: mcp list takes no arguments", errUsage)
		}
		if *asJSON {
			type row struct {
				Name string `json:"name"`
				mcp.Server
			}
			out := []row{}
			for _, n := range slices.Sorted(maps.Keys(cfg.Servers)) {
				s := cfg.Servers[n]
				s.Env, s.Headers, s.URL = hideEnv(s.Env), hideEnv(s.Headers), e.hideSecrets(s.URL)
				if s.OAuth != nil && s.OAuth.ClientSecret != "" {
					o := *s.OAuth
					o.ClientSecret = "***"
					s.OAuth = &o
				}
				out = append(out, row{n, s})
			}
			return e.jsonOut().Encode(out)
		}
		if len(cfg.Servers) == 0 {
			fmt.Fprintln(e.stdout, "No MCP servers. Add one with `shrimp mcp add NAME -- COMMAND ARGS…` or `--url URL`, or import Claude Desktop's file with `shrimp mcp import FILE`.")
			return nil
		}
		for _, n := range slices.Sorted(maps.Keys(cfg.Servers)) {
			s := cfg.Servers[n]
			where := e.hideSecrets(s.URL)
			if where == "" {
				where = strings.Join(append([]string{s.Command}, s.Args...), " ")
			}
			state := ""
			if s.Disabled {
				state = " (disabled)"
			}
			if v := s.Variables(); len(v) > 0 {
				state += " (takes " + strings.Join(v, ", ") + " from your environment)"
			}
			if s.OffersRoots() {
				state += " (told the workspace)"
			}
			if len(s.IncludeTools) > 0 {
				state += " (offers only " + strings.Join(s.IncludeTools, ", ") + ")"
			}
			if len(s.ExcludeTools) > 0 {
				state += " (keeps " + strings.Join(s.ExcludeTools, ", ") + " from the model)"
			}
			fmt.Fprintf(e.stdout, "%s  %s%s\n", n, where, state)
		}
		return nil
	case "add":
		if len(rest) != 1 || (len(command) == 0) == (*url == "") {
			return fmt.Errorf("%w: mcp add NAME -- COMMAND ARGS… | mcp add NAME --url URL", errUsage)
		}
		if _, ok := cfg.Servers[rest[0]]; ok {
			return fmt.Errorf("MCP server %s exists: remove it first", rest[0])
		}
		s := mcp.Server{URL: *url, ReadOnly: *readOnly, Local: *local, Timeout: *timeout}
		if *noRoots && *url == "" {
			s.Roots = new(bool)
		}
		if len(envs) > 0 {
			s.Env = map[string]string{}
			for _, kv := range envs {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return fmt.Errorf("%w: --env wants KEY=VALUE, got %q", errUsage, kv)
				}
				s.Env[k] = v
			}
		}
		for _, h := range hdrs {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return fmt.Errorf("%w: --header wants 'Name: value', got %q", errUsage, h)
			}
			if s.Headers == nil {
				s.Headers = map[string]string{}
			}
			s.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		if *sse {
			s.Type = "sse"
		}
		if *clientID != "" || *clientSecret != "" || *callbackPort != 0 {
			s.OAuth = &mcp.OAuthClient{ClientID: *clientID, ClientSecret: *clientSecret, CallbackPort: *callbackPort}
		}
		var anchored []string
		wd, _ := os.Getwd()
		if len(command) > 0 {
			// A server starts from the window's folder or another
			// terminal's: a script named from here is kept as this file.
			if wd != "" {
				command, anchored = anchor.Words(wd, command)
			}
			s.Command, s.Args = command[0], command[1:]
		}
		if err := s.CheckNew(rest[0]); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		cfg.Servers[rest[0]] = s
		if err := cfg.Save(path); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "added %s (check it with `shrimp mcp check %s`)\n", rest[0], rest[0])
		for _, p := range anchored {
			fmt.Fprintf(e.stdout, "note: %s is kept as %s (a server starts from whatever folder Shrimp runs in)\n", p, filepath.Join(wd, p))
		}
		if found, err := exec.LookPath(s.Command); s.Command != "" && err == nil {
			if why := shebang.Problem(found); why != "" {
				fmt.Fprintf(e.stderr, "note: %s; until then the server cannot start\n", why)
			}
		}
		return nil
	case "enable", "disable":
		name, s, err := one()
		if err != nil {
			return err
		}
		s.Disabled = sub == "disable"
		cfg.Servers[name] = s
		if err := cfg.Save(path); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%sd %s\n", sub, name)
		return nil
	case "exclude", "include":
		if len(rest) != 2 {
			return fmt.Errorf("%w: mcp %s SERVER TOOL (the tool's name as `shrimp mcp tools SERVER` lists it)", errUsage, sub)
		}
		name, s, err := named(rest[0])
		if err != nil {
			return err
		}
		if err := s.Offer(rest[1], sub == "include"); err != nil {
			return fmt.Errorf("%w: mcp %s %s TOOL: %v", errUsage, sub, name, err)
		}
		cfg.Servers[name] = s
		if err := cfg.Save(path); err != nil {
			return err
		}
		if sub == "exclude" {
			fmt.Fprintf(e.stdout, "%s of %s is kept from the model (`shrimp mcp include %s %s` offers it again)\n", rest[1], name, name, rest[1])
		} else {
			fmt.Fprintf(e.stdout, "%s of %s is offered to the model\n", rest[1], name)
		}
		return nil
	case "status":
		if len(rest) > 0 {
			return fmt.Errorf("%w: mcp status takes no arguments", errUsage)
		}
		m, err := a.MCP()
		if err != nil {
			return err
		}
		if wd, err := os.Getwd(); err == nil {
			// Started here as a chat here would start them: a server
			// naming ${workspaceFolder} works in this folder.
			m.SetRoots([]string{wd})
		}
		wctx, cancel := context.WithTimeout(ctx, app.MCPReadyWait)
		defer cancel()
		_ = m.WaitReady(wctx)
		st := m.Statuses()
		if *asJSON {
			return e.jsonOut().Encode(st)
		}
		for _, s := range st {
			tasks := len(mcp.NeedTasks(s.Tools))
			own, resources := mcp.Offered(s.Tools)
			fmt.Fprintf(e.stdout, "%s  %s  %s", s.Name, s.State, plural.N(own, "tool", "tools"))
			if resources {
				fmt.Fprint(e.stdout, ", resources")
			}
			if excluded := lo.CountBy(s.Tools, func(t mcp.Tool) bool { return t.Excluded }); excluded > 0 {
				fmt.Fprintf(e.stdout, ", %s excluded by its settings", plural.N(excluded, "tool", "tools"))
			}
			if tasks > 0 {
				fmt.Fprintf(e.stdout, ", %s not offered (MCP tasks)", plural.N(tasks, "tool", "tools"))
			}
			if s.SignedIn {
				fmt.Fprint(e.stdout, ", signed in")
			}
			if len(s.Prompts) > 0 {
				fmt.Fprintf(e.stdout, ", %s", plural.N(len(s.Prompts), "prompt", "prompts"))
			}
			if s.LastError != "" {
				fmt.Fprintf(e.stdout, "  %s", e.hideSecrets(s.LastError))
			}
			fmt.Fprintln(e.stdout)
		}
		if len(st) == 0 {
			fmt.Fprintln(e.stdout, "No MCP servers.")
		}
		return nil
	case "login":
		name, s, err := one()
		if err != nil {
			return err
		}
		if err := mcp.SignIn(ctx, name, s, a.MCPTokens(), func(address string) error { return openBrowser(e, name, address) }); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Signed in to %s; the sign-in is kept in %s (mode 0600) and renewed by itself. `shrimp mcp logout %s` forgets it.\n", name, filepath.Join(a.Config.DataDir, mcp.TokenFile), name)
		return nil
	case "logout":
		name, _, err := one()
		if err != nil {
			return err
		}
		had, err := a.MCPTokens().Forget(name)
		if err != nil {
			return err
		}
		if !had {
			fmt.Fprintf(e.stdout, "No sign-in to %s was kept.\n", name)
			return nil
		}
		fmt.Fprintf(e.stdout, "Signed out of %s: its sign-in is forgotten here (the server may still list Shrimp among your authorised apps).\n", name)
		return nil
	case "remove":
		name, _, err := one()
		if err != nil {
			return err
		}
		delete(cfg.Servers, name)
		if err := cfg.Save(path); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "removed %s\n", name)
		return nil
	case "import":
		if len(rest) != 1 {
			return fmt.Errorf("%w: mcp import FILE", errUsage)
		}
		other, err := mcp.LoadForeign(rest[0])
		if err != nil {
			return err
		}
		names, err := cfg.Import(other)
		if err != nil {
			return err
		}
		if err := cfg.Save(path); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "imported %s: %s\n", plural.N(len(names), "server", "servers"), strings.Join(names, ", "))
		for _, n := range mcp.ImportNotes(other) {
			fmt.Fprintf(e.stdout, "note: %s\n", n)
		}
		for _, n := range names {
			if v := other.Servers[n].Variables(); len(v) > 0 {
				fmt.Fprintf(e.stdout, "note: %s takes %s from your environment when it starts, and passes it to %s\n", n, strings.Join(v, ", "), serverWhere(other.Servers[n]))
			}
		}
		return nil
	case "tools", "check", "prompts", "prompt", "resources", "resource":
		var name string
		var s mcp.Server
		switch {
		case sub == "prompt" && len(rest) < 2:
			return fmt.Errorf("%w: mcp prompt SERVER PROMPT [ARGUMENT=VALUE]…", errUsage)
		case sub == "resource" && len(rest) != 2:
			return fmt.Errorf("%w: mcp resource SERVER URI", errUsage)
		case sub == "resources" && len(rest) > 1:
			return fmt.Errorf("%w: mcp resources SERVER lists them; mcp resource SERVER URI reads one", errUsage)
		}
		if sub == "prompt" || sub == "resource" {
			name, s, err = named(rest[0])
		} else {
			name, s, err = one()
		}
		if err != nil {
			return err
		}
		if wd, err := os.Getwd(); err == nil {
			s = s.InWorkspace(wd) // ${workspaceFolder}: this folder, as a chat started here works in
		}
		stderr := tail.New(20) // written by the server's stderr and its stdout's stray lines at once
		sess, err := mcp.Connect(ctx, name, s, stderr, a.MCPTokens())
		if err != nil {
			if lines := stderr.Lines(); len(lines) > 0 {
				err = fmt.Errorf("%w; its stderr: %s", err, tail.Last(lines, 5))
			}
			return err
		}
		defer sess.Close()
		switch sub {
		case "prompts", "prompt":
			return mcpPrompts(ctx, e, sess, rest[1:], *asJSON)
		case "resources", "resource":
			return mcpResources(ctx, e, name, sess, rest[1:], *asJSON)
		}
		tools, err := sess.Tools(ctx)
		if err != nil {
			return err
		}
		s.Mark(tools)
		switch {
		case sub == "check":
			tasks := mcp.NeedTasks(tools)
			own, resources := mcp.Offered(tools)
			fmt.Fprintf(e.stdout, "%s: connected, %s", name, plural.N(own, "tool", "tools"))
			if resources {
				fmt.Fprint(e.stdout, " and resources (the model reads them through list_resources and read_resource)")
			}
			fmt.Fprintln(e.stdout)
			if len(tasks) > 0 {
				fmt.Fprintf(e.stdout, "note: %s must run as MCP tasks, which Shrimp does not support yet, so the model is not offered them\n", strings.Join(tasks, ", "))
			}
			if excluded := lo.FilterMap(tools, func(t mcp.Tool, _ int) (string, bool) { return t.Name, t.Excluded }); len(excluded) > 0 {
				fmt.Fprintf(e.stdout, "note: its settings (includeTools, excludeTools in mcp.json) keep %s from the model\n", strings.Join(excluded, ", "))
			}
			if n := sess.NotMCP(); n > 0 {
				fmt.Fprintf(e.stdout, "warning: it wrote %s to stdout that are not MCP messages; Shrimp sets them aside, but other clients may not: a stdio server should log to stderr, its stdout is for messages only\n", plural.N(int(n), "line", "lines"))
				for _, l := range stderr.Lines() {
					if l, ok := strings.CutPrefix(l, mcp.NotMCPPrefix); ok {
						fmt.Fprintf(e.stdout, "  %s\n", l)
					}
				}
			}
		case *asJSON:
			return e.jsonOut().Encode(tools)
		default:
			for _, t := range tools {
				desc := "(no description)"
				if strings.TrimSpace(t.Description) != "" {
					desc = firstLine(t.Description, 80)
				}
				fmt.Fprintf(e.stdout, "%s  %s%s\n", mcp.ToolName(name, t.Name), desc,
					lo.Ternary(t.NeedsTasks, "  [not offered: it must run as an MCP task]", lo.Ternary(t.Excluded, "  [not offered: its settings exclude it]", "")))
			}
		}
		return nil
	}
	return fmt.Errorf("%w: unknown mcp command %q: use list, status, add, remove, enable, disable, exclude, include, tools, check, prompts, prompt, resources, resource, login, logout or import", errUsage, sub)
}

// openBrowser shows the sign-in page's address on stderr and opens it
// (startBrowser); the address is enough when no browser opens (an SSH
// session: the browser must reach this machine's loopback, so forward
// the port).
func openBrowser(e *env, name, address string) error {
	fmt.Fprintf(e.stderr, "Sign in to %s in your browser; waiting for it to come back (at most %s). If no browser opens, open:\n  %s\n", name, mcp.SignInTimeout, address)
	startBrowser(e, address)
	return nil
}

// startBrowser opens address with $BROWSER, or xdg-open when there is a
// desktop; it says on stderr when neither could be started.
func startBrowser(e *env, address string) {
	cmd := ""
	switch {
	case os.Getenv("BROWSER") != "":
		cmd = os.Getenv("BROWSER")
	case os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "":
		cmd = "xdg-open"
	}
	if cmd == "" {
		fmt.Fprintln(e.stderr, "(no browser here: set $BROWSER, or open the address yourself)")
		return
	}
	c := exec.Command(cmd, address)
	c.Stdout, c.Stderr = nil, nil
	if err := c.Start(); err != nil {
		fmt.Fprintf(e.stderr, "(%s could not be started: %v)\n", cmd, err)
		return
	}
	go func() { _ = c.Wait() }()
}

// mcpResources lists a server's resources (no args), or reads one (args:
// its uri) and prints it as the user would put it in a request, named and
// fenced (`shrimp chat "summarize this: $(shrimp mcp resource …)"`).
func mcpResources(ctx context.Context, e *env, name string, sess *mcp.Session, args []string, asJSON bool) error {
	if len(args) == 1 {
		text, err := sess.ReadResource(ctx, args[0])
		if err != nil {
			return err
		}
		fmt.Fprint(e.stdout, mcp.Quoted(name, args[0], text))
		return nil
	}
	res, err := sess.Resources(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return e.jsonOut().Encode(res)
	}
	if len(res) == 0 {
		fmt.Fprintln(e.stdout, "It offers no resources.")
	}
	for _, r := range res {
		line := r.URI
		if d := strings.TrimSpace(strings.Join(lo.Compact([]string{r.Name, r.MIMEType, r.Description}), " · ")); d != "" {
			line += "  " + firstLine(d, 100)
		}
		fmt.Fprintln(e.stdout, line)
	}
	return nil
}

// mcpPrompts lists a server's prompts (no args), or fills one in (args:
// its name, then ARGUMENT=VALUE each) and prints its text, the request
// to send (`shrimp chat "$(shrimp mcp prompt …)"`). Arguments the prompt
// requires and lacks, or does not take, are named before the server is
// asked.
func mcpPrompts(ctx context.Context, e *env, sess *mcp.Session, args []string, asJSON bool) error {
	prompts, err := sess.Prompts(ctx)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		if asJSON {
			return e.jsonOut().Encode(prompts)
		}
		if len(prompts) == 0 {
			fmt.Fprintln(e.stdout, "It offers no prompts.")
		}
		for _, p := range prompts {
			line := p.Name
			if d := strings.TrimSpace(p.Title + " " + p.Description); d != "" {
				line += "  " + firstLine(d, 80)
			}
			if len(p.Arguments) > 0 {
				line += "  (" + strings.Join(lo.Map(p.Arguments, func(a mcp.PromptArgument, _ int) string {
					return a.Name + lo.Ternary(a.Required, "", "?")
				}), ", ") + ")"
			}
			fmt.Fprintln(e.stdout, line)
		}
		return nil
	}
	i := slices.IndexFunc(prompts, func(p mcp.Prompt) bool { return p.Name == args[0] })
	if i < 0 {
		return fmt.Errorf("it offers no prompt %q (see `shrimp mcp prompts`)", args[0])
	}
	p, values := prompts[i], map[string]string{}
	for _, kv := range args[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("%w: %q: give each argument as NAME=VALUE", errUsage, kv)
		}
		values[k] = v
	}
	if err := p.Check(values); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	text, err := sess.GetPrompt(ctx, p.Name, values)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, text)
	return nil
}

// serverWhere says where a server's settings go: its url's host, or its
// program.
func serverWhere(s mcp.Server) string {
	if s.URL != "" {
		if u, err := neturl.Parse(s.URL); err == nil && u.Host != "" {
			return u.Host
		}
		return "its url"
	}
	return "the program " + s.Command
}

// hideEnv hides the values of a server's environment or headers (secrets).
func hideEnv(env map[string]string) map[string]string {
	if env == nil {
		return nil
	}
	out := map[string]string{}
	for k := range env {
		out[k] = "***"
	}
	return out
}

// hideSecrets takes out of text what the redactor finds: a key in a
// hosted server's address (?api_key=…), which, like headers' values, `mcp
// list` does not show (its output gets pasted).
func (e *env) hideSecrets(text string) string {
	out, _ := e.secrets.String(text)
	return out
}

// repeated collects a flag given more than once (--env KEY=VALUE,
// --header, chat's --image), in order.
type repeated []string

func (f *repeated) String() string     { return strings.Join(*f, ",") }
func (f *repeated) Set(v string) error { *f = append(*f, v); return nil }
