package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/app"
	mcpconf "github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/mcptest"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestMCPCommands: add, list, tools, check, import and remove against a
// real MCP server (the official Go SDK's, over streamable HTTP).
func TestMCPCommands(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	type in struct {
		Path string `json:"path" jsonschema:"a file"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "read_file", Description: "Read a file."}, func(context.Context, *sdk.CallToolRequest, in) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{}, nil, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	defer srv.Close()
	data := t.TempDir()
	mcp := func(args ...string) (int, string, string) {
		return run(append([]string{"--data-dir", data, "mcp"}, args...)...)
	}
	if code, out, _ := mcp("list"); code != 0 || !strings.Contains(out, "No MCP servers") {
		t.Fatalf("empty list: %d %s", code, out)
	}
	if code, out, errOut := mcp("add", "web", "--url", srv.URL); code != 0 || !strings.Contains(out, "added web") {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	if info, err := os.Stat(filepath.Join(data, "mcp.json")); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mcp.json: %v %v", info, err)
	}
	if code, out, errOut := mcp("check", "web"); code != 0 || !strings.Contains(out, "web: connected, 1 tool") {
		t.Fatalf("check: %d %s %s", code, out, errOut)
	}
	code, out, errOut := mcp("tools", "web", "--json")
	var tools []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &tools) != nil || len(tools) != 1 || tools[0]["name"] != "read_file" || !strings.Contains(out, `"path"`) {
		t.Fatalf("tools: %d %s %s", code, out, errOut)
	}
	if _, out, _ := mcp("tools", "web"); !strings.Contains(out, "mcp.web.read_file  Read a file.") {
		t.Fatalf("tools text: %s", out)
	}
	// A server with resources: check says so, and tools lists the two
	// tools the model reads them through.
	s.AddResource(&sdk.Resource{URI: "x://1", Name: "one"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "x://1", Text: "1"}}}, nil
	})
	if code, out, errOut := mcp("check", "web"); code != 0 || !strings.Contains(out, "web: connected, 1 tool and resources") {
		t.Fatalf("check with resources: %d %s %s", code, out, errOut)
	}
	if _, out, _ := mcp("tools", "web"); !strings.Contains(out, "mcp.web.read_resource  Read one resource of MCP server web") {
		t.Fatalf("tools with resources: %s", out)
	}
	// Claude Desktop's file: a stdio server with a secret, and one taken
	// from the environment; listing hides them.
	t.Setenv("MY_API_KEY", "from-the-environment")
	claude := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.WriteFile(claude, []byte(`{"mcpServers": {"files": {"command": "/nonexistent/mcp-files", "args": ["/tmp"], "env": {"TOKEN": "s3cret", "KEY": "${MY_API_KEY}"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := mcp("import", claude); code != 0 || !strings.Contains(out, "imported 1 server: files") ||
		!strings.Contains(out, "note: files takes MY_API_KEY from your environment when it starts, and passes it to the program /nonexistent/mcp-files") {
		t.Fatalf("import: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := mcp("import", claude); code == 0 || !strings.Contains(errOut, "already configured") {
		t.Fatalf("import twice: %d %s", code, errOut)
	}
	// VS Code's file, as its gallery writes it: names with / and spaces
	// are renamed, an entry Shrimp cannot start is left out; both said.
	vscode := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(vscode, []byte(`{"servers": {"github/github-mcp-server": {"type": "http", "url": "https://api.example/mcp/"}, "Ws Thing": {"type": "websocket", "url": "ws://x"}}, "inputs": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := mcp("import", vscode); code != 0 || !strings.Contains(out, "imported 1 server: github-mcp-server") ||
		!strings.Contains(out, `note: "github/github-mcp-server" is named github-mcp-server here`) || !strings.Contains(out, `note: "Ws Thing" was not imported: server ws-thing: type "websocket"`) {
		t.Fatalf("import VS Code's: %d %s %s", code, out, errOut)
	}
	if _, out, _ := mcp("list", "--json"); strings.Contains(out, "s3cret") || !strings.Contains(out, `"TOKEN":"***"`) {
		t.Fatalf("list shows the secret: %s", out)
	}
	if code, _, errOut := mcp("check", "files"); code == 0 || !strings.Contains(errOut, "shrimp mcp check files") {
		t.Fatalf("check a missing command: %d %s", code, errOut)
	}
	// A header with a token: kept, hidden when listed, checked.
	if code, out, errOut := mcp("add", "gh", "--url", "https://api.example/mcp", "--header", "Authorization: Bearer ${SHRIMP_TEST_UNSET_TOKEN}"); code != 0 || !strings.Contains(out, "added gh") {
		t.Fatalf("add with a header: %d %s %s", code, out, errOut)
	}
	if _, out, _ := mcp("list", "--json"); strings.Contains(out, "SHRIMP_TEST_UNSET_TOKEN") || !strings.Contains(out, `"Authorization":"***"`) {
		t.Fatalf("list shows the header: %s", out)
	}
	if cfg, err := mcpconf.Load(filepath.Join(data, "mcp.json")); err != nil || cfg.Servers["gh"].Headers["Authorization"] != "Bearer ${SHRIMP_TEST_UNSET_TOKEN}" {
		t.Fatalf("stored header: %+v %v", cfg.Servers["gh"], err)
	}
	if code, _, errOut := mcp("check", "gh"); code == 0 || !strings.Contains(errOut, "${SHRIMP_TEST_UNSET_TOKEN} is not set in Shrimp's environment") {
		t.Fatalf("check with a variable unset: %d %s", code, errOut)
	}
	if code, _, errOut := mcp("add", "h2", "--header", "Authorization: x", "--", "cmd"); code != 2 || !strings.Contains(errOut, "headers are for a url server") {
		t.Fatalf("a header for a command: %d %s", code, errOut)
	}
	if code, _, errOut := mcp("add", "bad.name", "--url", srv.URL); code != 2 || !strings.Contains(errOut, "server name") {
		t.Fatalf("bad name: %d %s", code, errOut)
	}
	if code, _, _ := mcp("add", "both", "--url", srv.URL, "--", "cmd"); code != 2 {
		t.Fatalf("url and command: %d", code)
	}
	// A server started here is told the workspace unless --no-roots; a
	// url server never is, and the list says which are.
	if code, _, errOut := mcp("add", "fs", "--no-roots", "--", "npx", "server-filesystem", "/srv"); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := mcp("add", "fs2", "--", "npx", "server-filesystem"); code != 0 {
		t.Fatal(errOut)
	}
	if cfg, err := mcpconf.Load(filepath.Join(data, "mcp.json")); err != nil || cfg.Servers["fs"].Roots == nil || *cfg.Servers["fs"].Roots || cfg.Servers["fs2"].Roots != nil {
		t.Fatalf("stored roots: %+v %+v %v", cfg.Servers["fs"].Roots, cfg.Servers["fs2"].Roots, err)
	}
	if _, out, _ := mcp("list"); !strings.Contains(out, "fs2  npx server-filesystem (told the workspace)") || strings.Contains(out, "/srv (told") || strings.Contains(out, "/mcp (told") {
		t.Fatalf("list: %s", out)
	}
	for _, n := range []string{"fs", "fs2"} {
		if code, _, errOut := mcp("remove", n); code != 0 {
			t.Fatal(errOut)
		}
	}
	if code, out, _ := mcp("remove", "web"); code != 0 || !strings.Contains(out, "removed web") {
		t.Fatalf("remove: %d %s", code, out)
	}
	if code, _, errOut := mcp("tools", "web"); code == 0 || !strings.Contains(errOut, "no MCP server") {
		t.Fatalf("tools of a removed server: %d %s", code, errOut)
	}
}

// TestMCPCheckNoisyServer: a stdio server that prints a banner and log
// lines to stdout connects, and `mcp check` names the lines it set aside
// so the server's author can move them to stderr.
func TestMCPCheckNoisyServer(t *testing.T) {
	data := t.TempDir()
	s := testServerConfig(t, false)
	s.Env[mcptest.Env] = "noisy"
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"noisy": s}})
	code, out, errOut := run("--data-dir", data, "mcp", "check", "noisy")
	if code != 0 || !strings.Contains(out, "noisy: connected") || !strings.Contains(out, "warning: it wrote 4 lines to stdout that are not MCP messages") ||
		!strings.Contains(out, "\n  "+mcptest.Noise[0]+"\n") || !strings.Contains(out, "\n  Allowed directories: [ '/tmp' ]\n") {
		t.Fatalf("check: %d\n%s\n%s", code, out, errOut)
	}
	s.Env[mcptest.Env] = "1"
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"noisy": s}})
	if code, out, _ := run("--data-dir", data, "mcp", "check", "noisy"); code != 0 || strings.Contains(out, "warning") {
		t.Fatalf("a quiet server warned: %d %s", code, out)
	}
}

// TestMCPToolsThatNeedTasks: `mcp check`, `mcp tools` and `mcp status`
// say which tools must run as MCP tasks and are not offered.
func TestMCPToolsThatNeedTasks(t *testing.T) {
	data := t.TempDir()
	s := testServerConfig(t, false)
	s.Env[mcptest.Env] = "tasks"
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"jobs": s}})
	code, out, errOut := run("--data-dir", data, "mcp", "check", "jobs")
	if code != 0 || !strings.Contains(out, "jobs: connected, 2 tools\nnote: research must run as MCP tasks") {
		t.Fatalf("check: %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = run("--data-dir", data, "mcp", "tools", "jobs")
	if code != 0 || !strings.Contains(out, "mcp.jobs.research  (no description)  [not offered: it must run as an MCP task]\n") || strings.Contains(out, "plain  (no description)  [not offered") {
		t.Fatalf("tools: %d\n%s", code, out)
	}
	code, out, _ = run("--data-dir", data, "mcp", "status")
	if code != 0 || !strings.Contains(out, "jobs  running  2 tools, 1 tool not offered (MCP tasks)") {
		t.Fatalf("status: %d\n%s", code, out)
	}
}

// TestMCPExcludedTools: a server's excludeTools (Gemini CLI's, or written
// in mcp.json) keep those tools from the model: check, tools and status
// say so, they are not in the request's tools, and a model that calls
// one anyway is told it is unknown; the server's other tools run.
func TestMCPExcludedTools(t *testing.T) {
	data, ws := t.TempDir(), t.TempDir()
	s := testServerConfig(t, false)
	s.ExcludeTools = []string{"echo"}
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"t": s}})
	if code, out, errOut := run("--data-dir", data, "mcp", "check", "t"); code != 0 || !strings.Contains(out, "note: its settings (includeTools, excludeTools in mcp.json) keep echo from the model") {
		t.Fatalf("check: %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := run("--data-dir", data, "mcp", "tools", "t"); code != 0 || !strings.Contains(out, "[not offered: its settings exclude it]") {
		t.Fatalf("tools: %d\n%s", code, out)
	}
	if code, out, _ := run("--data-dir", data, "mcp", "status"); code != 0 || !strings.Contains(out, "1 tool excluded by its settings") {
		t.Fatalf("status: %d\n%s", code, out)
	}
	// From the terminal, as the window's box does.
	if code, out, errOut := run("--data-dir", data, "mcp", "exclude", "t", "big"); code != 0 || !strings.Contains(out, "big of t is kept from the model") {
		t.Fatalf("exclude: %d %s %s", code, out, errOut)
	}
	if code, out, _ := run("--data-dir", data, "mcp", "list", "--json"); code != 0 || !strings.Contains(out, `"excludeTools":["echo","big"]`) {
		t.Fatalf("list: %s", out)
	}
	if code, out, _ := run("--data-dir", data, "mcp", "list"); code != 0 || !strings.Contains(out, "(keeps echo, big from the model)") {
		t.Fatalf("list: %s", out)
	}
	if code, _, errOut := run("--data-dir", data, "mcp", "include", "t", "big"); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := run("--data-dir", data, "mcp", "include", "t"); code != 2 || !strings.Contains(errOut, "mcp include SERVER TOOL") {
		t.Fatalf("usage: %d %s", code, errOut)
	}
	if code, _, errOut := run("--data-dir", data, "mcp", "exclude", "t", " "); code != 2 || !strings.Contains(errOut, "name the tool") {
		t.Fatalf("an empty tool name: %d %s", code, errOut)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "mcp.t.echo", Args: map[string]any{"text": "hello"}}),
		ollamatest.Text("it is not there"),
	}})
	if code, _, errOut := run("--data-dir", data, "models", "ctx", "m", "16384"); code != 0 {
		t.Fatal(errOut)
	}
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "say hello through the test server")
	res := r.data(t, "agent:tool-result")
	if r.code != 0 || len(res) != 1 || !strings.Contains(fmt.Sprint(res[0]["error"]), `unknown tool "mcp.t.echo"`) || strings.Contains(fmt.Sprint(res[0]["output"]), "echo: hello") {
		t.Fatalf("an excluded tool ran: %d %v\n%s", r.code, res, r.stderr)
	}
	specs := srv.Requests()[0].Chat.Tools
	if slices.ContainsFunc(specs, func(s api.Tool) bool { return s.Function.Name == "mcp.t.echo" }) ||
		!slices.ContainsFunc(specs, func(s api.Tool) bool { return strings.HasPrefix(s.Function.Name, "mcp.t.") }) {
		t.Fatalf("offered: %v\n%s\n%s", specs, r.raw, r.stderr)
	}
}

// TestMCPLogin: a hosted server that asks for an OAuth sign-in is shown
// as waiting for one and its tools are not offered; `mcp login` opens the
// sign-in page with $BROWSER (here the test binary, which follows it like
// a browser) and keeps the sign-in; check and a chat then use the server;
// `mcp logout` forgets it.
func TestMCPLogin(t *testing.T) {
	o := mcptest.NewOAuth()
	defer o.Close()
	data, ws := t.TempDir(), t.TempDir()
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"hosted": {URL: o.URL}}})
	mcp := func(args ...string) (int, string, string) {
		return run(append([]string{"--data-dir", data, "mcp"}, args...)...)
	}
	if code, out, _ := mcp("status"); code != 0 || !strings.Contains(out, "hosted  sign-in  0 tools  MCP server hosted: it asks you to sign in") {
		t.Fatalf("status before: %d %s", code, out)
	}
	if code, _, errOut := mcp("check", "hosted"); code == 0 || !strings.Contains(errOut, "shrimp mcp login hosted") {
		t.Fatalf("check before: %d %s", code, errOut)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Text("not yet"),
		call("mcp.hosted.echo", map[string]any{"text": "signed"}),
		ollamatest.Text("done"),
	}})
	if r := chat(t, data, srv.URL, ws, "--model", "m", "say hi"); r.code != 0 || !strings.Contains(r.raw, "MCP server hosted waits for you to sign in") {
		t.Fatalf("a chat before the sign-in: %d %s %s", r.code, r.raw, r.stderr)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", exe)
	t.Setenv(mcptest.Env, "browser") // for the browser the login starts, not for this process
	code, out, errOut := mcp("login", "hosted")
	if code != 0 || !strings.Contains(out, "Signed in to hosted") || !strings.Contains(errOut, "If no browser opens, open:\n  "+o.URL[:len(o.URL)-len("/mcp")]+"/authorize?") {
		t.Fatalf("login: %d %s %s", code, out, errOut)
	}
	if info, err := os.Stat(filepath.Join(data, mcpconf.TokenFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the sign-in file: %v %v", info, err)
	}
	if code, out, errOut := mcp("check", "hosted"); code != 0 || !strings.Contains(out, "hosted: connected") {
		t.Fatalf("check after: %d %s %s", code, out, errOut)
	}
	if code, out, _ := mcp("status"); code != 0 || !strings.Contains(out, "hosted  running  ") || !strings.Contains(out, ", signed in") {
		t.Fatalf("status after: %d %s", code, out)
	}
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "say signed")
	if res := r.data(t, "agent:tool-result"); r.code != 0 || len(res) != 1 || res[0]["output"] != "echo: signed" {
		t.Fatalf("chat: %d %v\n%s", r.code, res, r.stderr)
	}
	// A server whose sign-in wants an app registered in advance: its id
	// and secret are kept like env, the secret never listed.
	if code, _, errOut := mcp("add", "reg", "--url", o.URL, "--client-id", "shrimp-app", "--client-secret", "app-s3cret"); code != 0 {
		t.Fatalf("add with an app: %d %s", code, errOut)
	}
	if code, out, _ := mcp("list", "--json"); code != 0 || !strings.Contains(out, `"oauth":{"clientId":"shrimp-app","clientSecret":"***"}`) || strings.Contains(out, "app-s3cret") {
		t.Fatalf("list: %d %s", code, out)
	}
	if code, _, errOut := mcp("add", "bad", "--client-id", "x", "--", "cmd"); code != 2 || !strings.Contains(errOut, "oauth is for a url server") {
		t.Fatalf("an app for a command: %d %s", code, errOut)
	}
	if code, out, _ := mcp("logout", "hosted"); code != 0 || !strings.Contains(out, "Signed out of hosted") {
		t.Fatalf("logout: %d %s", code, out)
	}
	if code, out, _ := mcp("logout", "hosted"); code != 0 || !strings.Contains(out, "No sign-in to hosted was kept") {
		t.Fatalf("logout again: %d %s", code, out)
	}
	if code, _, errOut := mcp("check", "hosted"); code == 0 || !strings.Contains(errOut, "asks you to sign in") {
		t.Fatalf("check after logout: %d %s", code, errOut)
	}
}

// call is a scripted reply calling one tool.
func call(name string, args map[string]any) ollamatest.Reply {
	return ollamatest.Tools(ollamatest.Call{Name: name, Args: args})
}

// The test binary is also the MCP servers the chat tests start.
func init() { mcptest.ServeIfAsked() }

// writeMCP writes mcp.json into a data directory.
func writeMCP(t *testing.T, dataDir string, cfg mcpconf.Config) {
	t.Helper()
	if err := cfg.Save(filepath.Join(dataDir, mcpconf.FileName)); err != nil {
		t.Fatal(err)
	}
}

func testServerConfig(t *testing.T, readOnly bool) mcpconf.Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mcpconf.Server{Command: exe, Env: map[string]string{mcptest.Env: "1", "SHRIMP_SECRET_TOKEN": "s3cret-value"}, ReadOnly: readOnly}
}

// TestChatWithMCPServer: a chat with the scripted model calls a real MCP
// server's tools (the go-sdk test server over stdio): the definitions go
// out, the call runs under the approval mode, the result comes back to
// the model, events and the session store show it, a crash mid-call is
// reported and the next request has the server back.
func TestChatWithMCPServer(t *testing.T) {
	data, ws := t.TempDir(), t.TempDir()
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"t": testServerConfig(t, false)}})
	echo := ollamatest.Tools(ollamatest.Call{Name: "mcp.t.echo", Args: map[string]any{"text": "hello"}})
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: []ollamatest.Reply{
		echo, ollamatest.Text("left out"),
		echo, ollamatest.Text("denied, as expected"),
		echo, ollamatest.Text("it said hello"),
		ollamatest.Tools(ollamatest.Call{Name: "mcp.t.big", Args: map[string]any{}}),
		ollamatest.Tools(ollamatest.Call{Name: "mcp.t.crash", Args: map[string]any{}}), ollamatest.Text("the server crashed"),
		echo, ollamatest.Text("back again"),
	}})

	// A context of 4096 (the smallest real models' own) leaves no room for
	// MCP definitions beside the built-ins: a warning says so, and that
	// the context, not a cap, is what to change.
	if code, _, errOut := run("--data-dir", data, "models", "ctx", "m", "4096"); code != 0 {
		t.Fatal(errOut)
	}
	offered := serverTools(t, data, "t")
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "read", "say hello through the test server")
	if !strings.Contains(r.raw, "no MCP tool was offered to the model for this request: the built-in tools' definitions take about") ||
		!strings.Contains(r.raw, "raise the model's context") || offered == 0 || slices.ContainsFunc(srv.Requests()[0].Chat.Tools, func(s api.Tool) bool { return strings.HasPrefix(s.Function.Name, "mcp.") }) {
		t.Fatalf("MCP tools offered beyond the budget: %s", r.raw)
	}
	if code, _, errOut := run("--data-dir", data, "models", "ctx", "m", "16384"); code != 0 {
		t.Fatal(errOut)
	}

	// Read mode: an MCP tool is not read-only unless the user says so.
	n := len(srv.Requests())
	r = chat(t, data, srv.URL, ws, "--model", "m", "--approve", "read", "say hello through the test server")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	specs := srv.Requests()[n].Chat.Tools
	if !slices.ContainsFunc(specs, func(s api.Tool) bool {
		return s.Function.Name == "mcp.t.echo" && strings.Contains(s.Function.Description, "MCP server t")
	}) {
		t.Fatalf("mcp.t.echo not offered: %v\n%s", specs, r.raw)
	}
	if res := r.data(t, "agent:tool-result"); len(res) != 1 || !strings.Contains(res[0]["error"].(string), "denied") {
		t.Fatalf("read mode ran an MCP tool: %v", res)
	}

	// Marked read-only by the user, it runs in read mode.
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"t": testServerConfig(t, true)}})
	r = chat(t, data, srv.URL, ws, "--model", "m", "--approve", "read", "say hello through the test server")
	res := r.data(t, "agent:tool-result")
	if r.code != 0 || len(res) != 1 || res[0]["output"] != "echo: hello" || res[0]["error"] != "" {
		t.Fatalf("read-only server's tool: %d %v", r.code, res)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Chat.Messages
	if m := last[len(last)-1]; m.Role != "tool" || !strings.Contains(m.Content, "echo: hello") {
		t.Fatalf("the model did not get the result: %+v", m)
	}
	if strings.Contains(r.raw, "s3cret-value") {
		t.Fatal("a server's env value reached the events")
	}
	// The session store has the call and its result.
	code, out, _ := run("--data-dir", data, "sessions", "export", r.lines[0].Session, "--format", "json")
	if code != 0 || !strings.Contains(out, "mcp.t.echo") || !strings.Contains(out, "echo: hello") {
		t.Fatalf("session export: %d %.400s", code, out)
	}

	// 10 MB of text is cut like any tool's output and kept for paging; a
	// crash mid-call is an error the model reads; the next request finds
	// the server running again.
	r = chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "crash it")
	res = r.data(t, "agent:tool-result")
	if r.code != 0 || len(res) != 2 || !strings.Contains(res[1]["error"].(string), "stopped during crash") {
		t.Fatalf("crash: %d %v", r.code, res)
	}
	if out := res[0]["output"].(string); len(out) > 20<<10 || res[0]["handle"] == nil || !strings.Contains(out, "call tool.output.read with handle") {
		t.Fatalf("big output: %d bytes, handle %v", len(out), res[0]["handle"])
	}
	r = chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "say hello again")
	if res := r.data(t, "agent:tool-result"); r.code != 0 || len(res) != 1 || res[0]["output"] != "echo: hello" {
		t.Fatalf("after the crash: %d %v", r.code, res)
	}
}

// TestChatMCPServerDown: a server that cannot start does not stop a
// request; the run warns and the built-in tools still work.
func TestChatMCPServerDown(t *testing.T) {
	data, ws := t.TempDir(), t.TempDir()
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"gone": {Command: "/nonexistent/mcp-server"}}})
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "mcp.gone.read", Args: map[string]any{}}),
		ollamatest.Text("no such tool"),
	}})
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "read with the gone server")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	warned := false
	for _, e := range r.data(t, "agent:error") {
		if strings.Contains(e["message"].(string), "MCP server gone is restarting") {
			warned = true
		}
	}
	if !warned {
		t.Fatalf("no warning about the server: %v", r.data(t, "agent:error"))
	}
	if res := r.data(t, "agent:tool-result"); len(res) != 1 || !strings.Contains(res[0]["error"].(string), "unknown tool") {
		t.Fatalf("call to a down server's tool: %v", res)
	}
}

// TestMCPProceduresGoStale: a procedure learned from an MCP server's tools
// is stale while its server is disabled and active again when it is
// enabled; `mcp status` shows the supervisor's view.
func TestMCPProceduresGoStale(t *testing.T) {
	data, ws := t.TempDir(), t.TempDir()
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"t": testServerConfig(t, true)}})
	if code, _, errOut := run("--data-dir", data, "models", "ctx", "m", "16384"); code != 0 {
		t.Fatal(errOut)
	}
	call := func(text string) ollamatest.Reply {
		return ollamatest.Tools(ollamatest.Call{Name: "mcp.t.echo", Args: map[string]any{"text": text}})
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: []ollamatest.Reply{call("one"), call("two"), call("three"), ollamatest.Text("said three things")}})
	if r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "read", "echo one two three through the test server"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	status := func() string {
		t.Helper()
		code, out, errOut := run("--data-dir", data, "procedures", "list", "--json")
		var ps []struct {
			Tools  []string `json:"tools"`
			Status string   `json:"status"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &ps) != nil || len(ps) != 1 || ps[0].Tools[0] != "mcp.t.echo" {
			t.Fatalf("procedures list: %d %s %s", code, out, errOut)
		}
		return ps[0].Status
	}
	if s := status(); s != "active" {
		t.Fatalf("status with the server enabled: %s", s)
	}
	if code, out, _ := run("--data-dir", data, "mcp", "disable", "t"); code != 0 || !strings.Contains(out, "disabled t") {
		t.Fatalf("disable: %d %s", code, out)
	}
	if s := status(); s != "stale" {
		t.Fatalf("status with the server disabled: %s", s)
	}
	if code, out, _ := run("--data-dir", data, "mcp", "status"); code != 0 || !strings.Contains(out, "t  disabled") {
		t.Fatalf("status: %d %s", code, out)
	}
	if code, _, _ := run("--data-dir", data, "mcp", "enable", "t"); code != 0 {
		t.Fatal("enable")
	}
	if s := status(); s != "active" {
		t.Fatalf("status with the server enabled again: %s", s)
	}
	code, out, _ := run("--data-dir", data, "mcp", "status", "--json")
	var st []mcpconf.Status
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || len(st) != 1 || st[0].State != mcpconf.StateRunning || len(st[0].Tools) < 3 || len(st[0].Prompts) != 2 {
		t.Fatalf("status --json: %d %s", code, out)
	}
	if code, out, _ := run("--data-dir", data, "mcp", "status"); code != 0 || !strings.Contains(out, "t  running  ") || !strings.Contains(out, " tools, resources, 2 prompts") {
		t.Fatalf("status running: %d %s", code, out)
	}
}

// TestToolCapPrefersRelevant: with a cap on definitions, the MCP tools
// that share words with the request are offered first and the timeline
// says which were left out.
func TestToolCapPrefersRelevant(t *testing.T) {
	data, ws := t.TempDir(), t.TempDir()
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"t": testServerConfig(t, true)}})
	if code, _, errOut := run("--data-dir", data, "models", "ctx", "m", "32768"); code != 0 {
		t.Fatal(errOut)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: []ollamatest.Reply{ollamatest.Text("ok"), ollamatest.Text("ok")}})
	n := serverTools(t, data, "t")
	// First without a cap, to count the built-ins.
	r := chat(t, data, srv.URL, ws, "--model", "m", "hello")
	builtins := 0
	for _, s := range srv.Requests()[0].Chat.Tools {
		if !strings.HasPrefix(s.Function.Name, "mcp.") {
			builtins++
		}
	}
	var fixed api.Tools
	for _, s := range srv.Requests()[0].Chat.Tools {
		if !strings.HasPrefix(s.Function.Name, "mcp.") {
			fixed = append(fixed, s)
		}
	}
	b, _ := json.Marshal(fixed)
	measured := (len(b) + 3) / 4
	t.Logf("%d built-in definitions: %d bytes of JSON, about %d tokens", builtins, len(b), measured)
	if d := measured - app.BuiltinToolTokens; d*10 > app.BuiltinToolTokens || -d*10 > app.BuiltinToolTokens {
		t.Errorf("the built-in definitions take %d tokens, app.BuiltinToolTokens (what the doctor says) is %d: update it, and EXTENDING.md's budget note", measured, app.BuiltinToolTokens)
	}
	if r.code != 0 || builtins < 10 || len(srv.Requests()[0].Chat.Tools) != builtins+n {
		t.Fatalf("uncapped: %d tools, %d built-in\n%s\n%s", len(srv.Requests()[0].Chat.Tools), builtins, r.raw, r.stderr)
	}
	t.Setenv("SHRIMP_MAX_TOOLS", strconv.Itoa(builtins+1))
	r = chat(t, data, srv.URL, ws, "--model", "m", "please say it back to me")
	var offered []string
	for _, s := range srv.Requests()[1].Chat.Tools {
		if strings.HasPrefix(s.Function.Name, "mcp.") {
			offered = append(offered, s.Function.Name)
		}
	}
	if r.code != 0 || len(offered) != 1 || offered[0] != "mcp.t.echo" || !strings.Contains(r.raw, fmt.Sprintf("%d of %d MCP tools were not offered", n-1, n)) {
		t.Fatalf("capped: offered %v\n%s", offered, r.raw)
	}
}

// serverTools is how many tools a configured server offers the model
// (`mcp tools --json`), so tests need not know the test server's list.
func serverTools(t *testing.T, data, server string) int {
	t.Helper()
	code, out, errOut := run("--data-dir", data, "mcp", "tools", server, "--json")
	var tools []mcpconf.Tool
	if code != 0 || json.Unmarshal([]byte(out), &tools) != nil {
		t.Fatalf("mcp tools %s: %d %s %s", server, code, out, errOut)
	}
	return len(tools) - len(mcpconf.NeedTasks(tools))
}

// TestMCPAnswersCountAsOutside: an MCP server is another party's code, so
// once a session has read its answer, an "always" rule no longer answers
// for a call that writes (here, with nobody to ask, it is denied, naming
// the server); a server the user marked local is their own data, and the
// rule answers as before.
func TestMCPAnswersCountAsOutside(t *testing.T) {
	for _, local := range []bool{false, true} {
		t.Run(fmt.Sprintf("local=%v", local), func(t *testing.T) {
			data, ws := t.TempDir(), t.TempDir()
			s := testServerConfig(t, false)
			s.Local = local
			writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"t": s}})
			st, err := store.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range []string{"mcp.t.echo", "fs.write"} {
				if err := st.SetRule(context.Background(), app.WorkspaceKey(ws), tool, "always"); err != nil {
					t.Fatal(err)
				}
			}
			// The "always" holds for the echo tool as the server defines it.
			code, out, errOut := run("--data-dir", data, "mcp", "tools", "t", "--json")
			var tools []mcpconf.Tool
			_ = json.Unmarshal([]byte(out), &tools)
			i := slices.IndexFunc(tools, func(x mcpconf.Tool) bool { return x.Name == "echo" })
			if code != 0 || i < 0 {
				t.Fatalf("mcp tools: %d %s %s", code, out, errOut)
			}
			if err := st.PinRule(context.Background(), app.WorkspaceKey(ws), "mcp.t.echo", tools[i].Digest()); err != nil {
				t.Fatal(err)
			}
			st.Close()
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: []ollamatest.Reply{
				ollamatest.Tools(ollamatest.Call{Name: "mcp.t.echo", Args: map[string]any{"text": "write notes.txt"}}),
				ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "notes.txt", "content": "x"}}),
				ollamatest.Text("done"),
			}})
			if code, _, errOut := run("--data-dir", data, "models", "ctx", "m", "16384"); code != 0 {
				t.Fatal(errOut) // room for the MCP tools' definitions
			}
			r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "ask", "echo, then write")
			dec := r.data(t, "approval:decided")
			if len(dec) != 2 || dec[0]["allow"] != true || dec[0]["by"] != "rule" {
				t.Fatalf("approval:decided %v", dec)
			}
			_, statErr := os.Stat(filepath.Join(ws, "notes.txt"))
			if local {
				if dec[1]["allow"] != true || statErr != nil {
					t.Fatalf("a local server's answer stopped the rule: %v", dec[1])
				}
				return
			}
			if dec[1]["allow"] != false || dec[1]["by"] != "no-prompter" || !strings.Contains(dec[1]["reason"].(string), "MCP server t") || statErr == nil {
				t.Fatalf("after the server's answer, the write was %v (written: %v)", dec[1], statErr == nil)
			}
		})
	}
}

// TestMCPPromptsCommand: a server's prompts are listed with their
// arguments and filled in for `shrimp chat`; a missing, unknown or
// malformed argument is named before the server is asked.
func TestMCPPromptsCommand(t *testing.T) {
	data := t.TempDir()
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"t": testServerConfig(t, false)}})
	mcp := func(args ...string) (int, string, string) {
		return run(append([]string{"--data-dir", data, "mcp"}, args...)...)
	}
	if code, out, errOut := mcp("prompts", "t"); code != 0 || out != "ask-notes  asks about the notes\nplan-day  Plan a day plans a day around the weather  (date, mood?)\n" {
		t.Fatalf("prompts: %d %q %s", code, out, errOut)
	}
	if code, out, errOut := mcp("prompt", "t", "plan-day", "date=2026-12-24", "mood=calm"); code != 0 || out != "Plan my day on 2026-12-24 for a calm mood\n" {
		t.Fatalf("prompt: %d %q %s", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan-day"}, "prompt plan-day needs date"},
		{[]string{"plan-day", "date= "}, "prompt plan-day needs date"},
		{[]string{"plan-day", "date=1", "when=2"}, `prompt plan-day takes no argument "when"; it takes: date, mood`},
		{[]string{"plan-day", "2026-12-24"}, `"2026-12-24": give each argument as NAME=VALUE`},
		{[]string{"nope"}, `it offers no prompt "nope" (see ` + "`shrimp mcp prompts`)"},
		{nil, "mcp prompt SERVER PROMPT [ARGUMENT=VALUE]…"},
	} {
		if code, out, errOut := mcp(append([]string{"prompt", "t"}, c.args...)...); code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("prompt %v: %d %q %q, want %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestMCPResourcesCommand: `mcp resources` lists what a server offers to
// be read (hidden text left out), `mcp resource` prints one named and
// fenced, as the window puts it in the message box.
func TestMCPResourcesCommand(t *testing.T) {
	data := t.TempDir()
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"t": testServerConfig(t, false)}})
	mcp := func(args ...string) (int, string, string) {
		return run(append([]string{"--data-dir", data, "mcp"}, args...)...)
	}
	code, out, errOut := mcp("resources", "t")
	if code != 0 || !strings.Contains(out, "notes://shopping  Shopping list · text/plain · what to buy") || !strings.Contains(out, "notes://photo  photo · image/png\n") || strings.Contains(out, "ssh") {
		t.Fatalf("resources: %d %q %s", code, out, errOut)
	}
	if code, out, errOut := mcp("resources", "t", "--json"); code != 0 || !strings.Contains(out, `"uri":"notes://shopping"`) {
		t.Fatalf("resources --json: %d %q %s", code, out, errOut)
	}
	if code, out, errOut := mcp("resource", "t", mcptest.NotesURI); code != 0 || out != "From notes://shopping of MCP server t:\n```\n[resource notes://shopping]\n"+mcptest.NotesText+"\n```\n" {
		t.Fatalf("resource: %d %q %s", code, out, errOut)
	}
	if code, _, errOut := mcp("resource", "t"); code == 0 || !strings.Contains(errOut, "mcp resource SERVER URI") {
		t.Errorf("resource without a uri: %d %s", code, errOut)
	}
	if code, _, errOut := mcp("resources", "t", mcptest.NotesURI); code == 0 || !strings.Contains(errOut, "mcp resource SERVER URI reads one") {
		t.Errorf("resources with a uri: %d %s", code, errOut)
	}
	if code, _, errOut := mcp("resource", "t", "notes://nope"); code == 0 || !strings.Contains(errOut, "notes://nope") {
		t.Errorf("an unknown resource: %d %s", code, errOut)
	}
}

// TestMCPQuestionWithoutATerminal: a server's question during a call,
// with nobody to answer (no terminal), is dismissed: the server is told
// "cancel", the timeline has the question and the answer, and standard
// error says why.
func TestMCPQuestionWithoutATerminal(t *testing.T) {
	data, ws := t.TempDir(), t.TempDir()
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"t": testServerConfig(t, false)}})
	if code, _, errOut := run("--data-dir", data, "models", "ctx", "m", "32768"); code != 0 {
		t.Fatal(errOut)
	}
	order := ollamatest.Tools(ollamatest.Call{Name: "mcp.t.order", Args: map[string]any{}})
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: []ollamatest.Reply{order, ollamatest.Text("no answer"), order, ollamatest.Text("no answer")}})
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "order me a shirt")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if res := r.data(t, "agent:tool-result"); len(res) != 1 || res[0]["output"] != "cancel null" {
		t.Errorf("result: %v", res)
	}
	q, a := r.data(t, "tool:question"), r.data(t, "tool:answered")
	if len(q) != 1 || q[0]["tool"] != "mcp.t.order" || !strings.HasPrefix(q[0]["message"].(string), "Which shirt?") || len(a) != 1 || a[0]["action"] != "cancel" {
		t.Errorf("question %v, answer %v", q, a)
	}
	code, _, errOut := run("--data-dir", data, "--ollama", srv.URL, "chat", "--model", "m", "--approve", "all", "--workspace", ws, "order me a shirt")
	if code != 0 || !strings.Contains(errOut, "shrimp: mcp.t.order asks the user: Which shirt?") || !strings.Contains(errOut, "nobody can answer without a terminal") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestSkillsList: `shrimp skills list` shows the workspace's and the
// user's skills, and warns about one left out.
func TestSkillsList(t *testing.T) {
	data, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", t.TempDir())
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, ".agents", "skills"), "release-notes", "---\nname: release-notes\ndescription: Write release notes.\n---\nSteps.")
	write(filepath.Join(data, "skills"), "tidy", "---\nname: tidy\ndescription: Tidy the downloads.\n---\n")
	write(filepath.Join(data, "skills"), "broken", "no front matter")
	code, out, errOut := run("--data-dir", data, "skills", "list", "--workspace", ws)
	if code != 0 || !strings.Contains(out, "release-notes  (workspace, ") || !strings.Contains(out, "tidy  (user, ") || !strings.Contains(errOut, "broken left out") {
		t.Fatalf("%d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := run("--data-dir", data, "skills", "list", "--workspace", t.TempDir(), "--json"); code != 0 || !strings.Contains(out, `"name":"tidy"`) {
		t.Fatalf("json: %d %s", code, out)
	}
}

// TestChatTellsTheWorkspace: a chat tells a server started here its
// workspace as MCP roots (the filesystem server then serves that folder),
// and a server marked "roots": false none.
func TestChatTellsTheWorkspace(t *testing.T) {
	data, ws := t.TempDir(), t.TempDir()
	told := testServerConfig(t, true)
	untold := testServerConfig(t, true)
	untold.Roots = new(bool)
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"t": told, "u": untold}})
	if code, _, errOut := run("--data-dir", data, "models", "ctx", "m", "32768"); code != 0 {
		t.Fatal(errOut)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: []ollamatest.Reply{
		call("mcp.t.roots", map[string]any{}), call("mcp.u.roots", map[string]any{}), ollamatest.Text("done"),
	}})
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "where may the servers work?")
	res := r.data(t, "agent:tool-result")
	if r.code != 0 || len(res) != 2 {
		t.Fatalf("exit %d, results %v: %s", r.code, res, r.stderr)
	}
	if res[0]["output"] != "file://"+filepath.ToSlash(ws) || res[1]["output"] != mcptest.NoRoots {
		t.Fatalf("roots told: %q and %q; want the workspace %s, then none", res[0]["output"], res[1]["output"], ws)
	}
}

// TestMCPAddKeepsTheScript: a server added with a script named from the
// folder it is in starts from anywhere (the window's folder, another
// terminal's): the path is kept as that file's, and add says so.
func TestMCPAddKeepsTheScript(t *testing.T) {
	data, project := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(project, "tools", "server.js")
	if err := os.WriteFile(script, []byte("// a server\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(project)
	code, out, errOut := run("--data-dir", data, "mcp", "add", "local", "--", "node", "tools/server.js", "--stdio")
	if code != 0 || !strings.Contains(out, "note: tools/server.js is kept as "+script) {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	cfg, err := mcpconf.Load(filepath.Join(data, "mcp.json"))
	if err != nil || cfg.Servers["local"].Command != "node" || !slices.Equal(cfg.Servers["local"].Args, []string{script, "--stdio"}) {
		t.Fatalf("stored %+v %v", cfg.Servers["local"], err)
	}
}

// TestConcurrentEditsAllKept adds MCP servers and hooks from several
// commands at once, as the window and terminals on one data directory
// may: each reads the file, changes it and writes it back, and none may
// write back over another's change.
func TestConcurrentEditsAllKept(t *testing.T) {
	data := t.TempDir()
	const n = 6
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if code, out, errOut := run("--data-dir", data, "mcp", "add", fmt.Sprintf("s%d", i), "--", "/bin/cat"); code != 0 {
				t.Errorf("mcp add s%d: %d %s %s", i, code, out, errOut)
			}
		})
		wg.Go(func() {
			if code, out, errOut := run("--data-dir", data, "hooks", "add", "agent:run-ended", "--", "/bin/true", fmt.Sprint(i)); code != 0 {
				t.Errorf("hooks add %d: %d %s %s", i, code, out, errOut)
			}
		})
	}
	wg.Wait()
	code, out, errOut := run("--data-dir", data, "mcp", "list", "--json")
	var servers []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &servers) != nil || len(servers) != n {
		t.Errorf("mcp list after %d adds at once: %d %s %s", n, code, out, errOut)
	}
	code, out, errOut = run("--data-dir", data, "hooks", "list", "--json")
	var hooks []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &hooks) != nil || len(hooks) != n {
		t.Errorf("hooks list after %d adds at once: %d %s %s", n, code, out, errOut)
	}
}

// TestMCPListHidesAKeyInTheAddress: a hosted server's address with its key
// in the query is listed without it, as headers' values are.
func TestMCPListHidesAKeyInTheAddress(t *testing.T) {
	data := t.TempDir()
	key := "zq81" + "kx73mm20pla9" // put together: no key in the repository's text
	if code, out, errOut := run("--data-dir", data, "mcp", "add", "zap", "--url", "https://mcp.example.com/api/sse?api_key="+key); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	for _, args := range [][]string{{"mcp", "list"}, {"mcp", "list", "--json"}} {
		code, out, errOut := run(append([]string{"--data-dir", data}, args...)...)
		if code != 0 || strings.Contains(out, key) || !strings.Contains(out, "mcp.example.com/api/sse?api_key=") {
			t.Errorf("%v: %d %s %s", args, code, out, errOut)
		}
	}
	// Started, one fails (nothing listens there): its error, on standard
	// output and in the log lines on standard error, keeps the key out.
	// (The first is not started: no name lookup on a machine offline.)
	if code, out, errOut := run("--data-dir", data, "mcp", "disable", "zap"); code != 0 {
		t.Fatalf("disable: %d %s %s", code, out, errOut)
	}
	if code, out, errOut := run("--data-dir", data, "mcp", "add", "down", "--url", "http://127.0.0.1:9/mcp?token="+key); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errOut)
	}
	_, out, errOut := run("--data-dir", data, "mcp", "status")
	if strings.Contains(out+errOut, key) || !strings.Contains(out, "127.0.0.1:9") || !strings.Contains(errOut, "REDACTED") {
		t.Errorf("status:\n%s\n%s", out, errOut)
	}
}

// TestMCPWorkspaceFolder: a server whose settings name the editor's open
// folder (${workspaceFolder}, as Cursor's and VS Code's mcp.json write
// it) works in the workspace of the chat that starts it, and `mcp check`
// fills it with the folder it is run in. Before, it could not start.
func TestMCPWorkspaceFolder(t *testing.T) {
	data := t.TempDir()
	s := testServerConfig(t, false)
	s.Env["WORK"] = "${workspaceFolder}"
	s.Env["BASE"] = "${workspaceFolderBasename}"
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{"t": s}})
	if code, out, errOut := run("--data-dir", data, "mcp", "check", "t"); code != 0 || !strings.Contains(out, "t: connected") {
		t.Fatalf("check: %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := run("--data-dir", data, "mcp", "status"); code != 0 || !strings.Contains(out, "t  running") {
		t.Fatalf("status: %d\n%s\n%s", code, out, errOut)
	}
	for _, ws := range []string{t.TempDir(), filepath.Join(t.TempDir(), "other project")} {
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: []ollamatest.Reply{
			ollamatest.Tools(ollamatest.Call{Name: "mcp.t.env", Args: map[string]any{}}),
			ollamatest.Text("done"),
		}})
		r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "where does the test server work")
		res := r.data(t, "agent:tool-result")
		if r.code != 0 || len(res) != 1 {
			t.Fatalf("chat in %s: %d %v\n%s", ws, r.code, res, r.stderr)
		}
		out := strings.Split(fmt.Sprint(res[0]["output"]), "\n")
		if !slices.Contains(out, "WORK="+ws) || !slices.Contains(out, "BASE="+filepath.Base(ws)) {
			t.Fatalf("the server in %s was started with %q", ws, out)
		}
	}
}
