//go:build mcpnpm

// The npm tier: Shrimp against the reference MCP servers from npm
// (@modelcontextprotocol/server-filesystem and server-everything),
// installed by `make test-mcp` into $SHRIMP_MCP_NPM. It fails, not skips,
// when they are missing.

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	mcpconf "github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
	"github.com/shrimp-harness/shrimp/internal/tail"
)

// npmServer is the command of an installed npm server.
func npmServer(t *testing.T, pkg string, args ...string) mcpconf.Server {
	t.Helper()
	dir := os.Getenv("SHRIMP_MCP_NPM")
	if dir == "" {
		t.Fatal("SHRIMP_MCP_NPM is not set: run this tier with `make test-mcp`, which installs the servers")
	}
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("%s is not installed in %s: %v", pkg, dir, err)
	}
	return mcpconf.Server{Command: "node", Args: append([]string{script}, args...)}
}

// npmServers configures both servers in data (the filesystem one over
// ws) and leaves room in model m's context for their tools.
func npmServers(t *testing.T, data, ws string) {
	t.Helper()
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{
		"files": npmServer(t, "server-filesystem", ws),
		"every": npmServer(t, "server-everything", "stdio"),
	}})
	if code, _, errOut := run("--data-dir", data, "models", "ctx", "m", "32768"); code != 0 {
		t.Fatal(errOut)
	}
}

// scriptedResults runs one chat in ws whose model makes replies (in
// approval mode all), and returns the tool results, failing unless there
// are n, and the model's server.
func scriptedResults(t *testing.T, data, ws, request string, n int, replies ...ollamatest.Reply) ([]map[string]any, *ollamatest.Server) {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: replies})
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", request)
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.raw)
	}
	res := r.data(t, "agent:tool-result")
	if len(res) != n {
		t.Fatalf("%d results: %v", len(res), res)
	}
	return res, srv
}

// refused reports whether a filesystem server refused a result's call as
// outside its folders.
func refused(res map[string]any) bool {
	e, _ := res["error"].(string)
	return strings.Contains(e, "denied") || strings.Contains(e, "outside")
}

// TestNPMServersInAChat drives both servers through chats with the
// scripted model: calls go out, results come back to the model and the
// files the filesystem server writes are there.
func TestNPMServersInAChat(t *testing.T) {
	data, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("buy shrimp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	npmServers(t, data, ws)
	res, srv := scriptedResults(t, data, ws, "read my notes, write a count, echo and add", 5,
		call("mcp.files.read_text_file", map[string]any{"path": filepath.Join(ws, "notes.txt")}),
		call("mcp.files.write_file", map[string]any{"path": filepath.Join(ws, "out.txt"), "content": "1 item\n"}),
		call("mcp.every.echo", map[string]any{"message": "hi there"}),
		call("mcp.every.get-sum", map[string]any{"a": 2, "b": 3}),
		call("mcp.files.read_text_file", map[string]any{"path": "/etc/passwd"}),
		ollamatest.Text("done"),
	)
	want := []string{"buy shrimp", "Successfully wrote", "hi there", "5"}
	for i, w := range want {
		if res[i]["error"] != "" || !strings.Contains(res[i]["output"].(string), w) {
			t.Errorf("result %d: want %q, got %v", i, w, res[i])
		}
	}
	if got, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(got) != "1 item\n" {
		t.Errorf("written file: %q %v", got, err)
	}
	// The filesystem server's own sandbox answers as an error the model reads.
	if !refused(res[4]) {
		t.Errorf("read outside the allowed directory: %v", res[4])
	}
	specs := srv.Requests()[0].Chat.Tools
	names := map[string]bool{}
	for _, s := range specs {
		names[s.Function.Name] = true
	}
	if !names["mcp.files.read_text_file"] || !names["mcp.every.get-sum"] || !names["fs.read"] {
		t.Errorf("offered tools: %v", names)
	}
}

// TestNPMServerResources: the everything server's resources reach the
// model through the tools Shrimp adds for them: its list (static
// documents and uri templates), a document, and a template filled in.
// The filesystem server, which offers no resources, gets none.
func TestNPMServerResources(t *testing.T) {
	data, ws := t.TempDir(), t.TempDir()
	npmServers(t, data, ws)
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: []ollamatest.Reply{
		call("mcp.every.list_resources", map[string]any{}),
		call("mcp.every.read_resource", map[string]any{"uri": "demo://resource/dynamic/text/7"}),
		call("mcp.every.read_resource", map[string]any{"uri": "demo://resource/nothing/here"}),
		ollamatest.Text("done"),
	}})
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "what resources are there")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.raw)
	}
	res := r.data(t, "agent:tool-result")
	if len(res) != 3 {
		t.Fatalf("%d results: %v", len(res), res)
	}
	list, _ := res[0]["output"].(string)
	if !strings.Contains(list, "- demo://resource/static/document/") || !strings.Contains(list, "demo://resource/dynamic/text/{resourceId}") {
		t.Errorf("the list: %v", res[0])
	}
	if out, _ := res[1]["output"].(string); !strings.Contains(out, "[resource demo://resource/dynamic/text/7]") || !strings.Contains(out, "Resource 7: This is a plaintext resource") {
		t.Errorf("a template filled in: %v", res[1])
	}
	if e, _ := res[2]["error"].(string); e == "" || !strings.Contains(e, "list_resources says what it offers") {
		t.Errorf("an unknown uri: %v", res[2])
	}
	names := map[string]bool{}
	for _, s := range srv.Requests()[0].Chat.Tools {
		names[s.Function.Name] = true
	}
	if !names["mcp.every.read_resource"] || names["mcp.files.read_resource"] {
		t.Errorf("offered tools: %v", names)
	}
	// Its research tool must run as an MCP task, which Shrimp does not
	// run: every call would fail, so it is not offered.
	if !names["mcp.every.echo"] || names["mcp.every.simulate-research-query"] {
		t.Errorf("offered tools: %v", names)
	}
}

// TestNPMServerQuestion: the everything server's elicitation (every kind
// of field the spec has: text with formats, numbers, yes or no, single and
// multiple choices with and without titles) is read as a form, and the
// answer typed for it reaches the server, which says what it got.
func TestNPMServerQuestion(t *testing.T) {
	s, err := mcpconf.Connect(context.Background(), "every", npmServer(t, "server-everything", "stdio"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var asked tool.Question
	ctx := tool.WithAsker(context.Background(), func(_ context.Context, q tool.Question) (tool.Answer, error) {
		asked = q
		return tool.Answer{Action: tool.Accept, Values: map[string]string{
			"name": "Ada", "check": "yes", "email": "ada@example.com", "integer": "7",
			"untitledMultipleSelectEnum": "Piano, Drums", "titledSingleSelectEnum": "hero-3", "legacyTitledEnum": "pet-2",
		}}, nil
	})
	out, err := s.Call(ctx, "trigger-elicitation-request", nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, f := range asked.Fields {
		kinds[f.Name] = fmt.Sprintf("%s %v %v", f.Type, f.Required, f.ChoiceNames)
	}
	if len(asked.Fields) != 13 || kinds["name"] != "string true []" || kinds["titledMultipleSelectEnum"] != "array false [Tuna Salmon Trout]" || kinds["legacyTitledEnum"] != "string false [Cats Dogs Birds Fish Reptiles]" {
		t.Errorf("fields: %v", kinds)
	}
	for _, want := range []string{"Ada", "ada@example.com", "Piano", "Drums", "hero-3"} {
		if !strings.Contains(out, want) {
			t.Errorf("the server did not get %q: %s", want, out)
		}
	}

	// A page to open (url mode), and one needed before the call (-32042):
	// shown whole, opened on yes; the call is tried again once the user
	// says they are done.
	var pages []string
	ctx = tool.WithAsker(context.Background(), func(_ context.Context, q tool.Question) (tool.Answer, error) {
		pages = append(pages, q.URL)
		return tool.Answer{Action: tool.Accept}, nil
	})
	out, err = s.Call(ctx, "trigger-url-elicitation", json.RawMessage(`{"url":"https://example.com/connect"}`))
	if err != nil || !strings.Contains(out, "User completed the URL elicitation flow") || len(pages) != 1 || pages[0] != "https://example.com/connect" {
		t.Errorf("a page to open: %q %v (asked %q)", out, err, pages)
	}
	pages = nil
	out, err = s.Call(ctx, "trigger-url-elicitation", json.RawMessage(`{"url":"https://example.com/pay","errorPath":true}`))
	if err != nil || !strings.Contains(out, "User completed the URL elicitation flow") || len(pages) != 3 || pages[0] != "https://modelcontextprotocol.io" || pages[1] != "" || pages[2] != "https://example.com/pay" {
		t.Errorf("a page needed first: %q %v (asked %q)", out, err, pages)
	}
}

// TestNPMServerSamples: the everything server offers its sampling tool
// to a client that lends its model, asks for the model during the call
// (its system prompt, its prompt, its temperature and maxTokens reach the
// Sampler), and gets the reply back; a call without a model lent is
// refused, saying why.
func TestNPMServerSamples(t *testing.T) {
	s, err := mcpconf.Connect(context.Background(), "every", npmServer(t, "server-everything", "stdio"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.Tools(context.Background())
	if err != nil || !slices.ContainsFunc(tools, func(tl mcpconf.Tool) bool { return tl.Name == "trigger-sampling-request" }) {
		t.Fatalf("the sampling tool is not offered: %v", err)
	}
	var got []tool.SampleRequest
	ctx := tool.WithSampler(context.Background(), func(_ context.Context, r tool.SampleRequest) (tool.SampleResult, error) {
		got = append(got, r)
		return tool.SampleResult{Model: "qwen3:4b", Text: "Autumn wind rises", StopReason: "endTurn"}, nil
	})
	out, err := s.Call(ctx, "trigger-sampling-request", json.RawMessage(`{"prompt":"write a haiku about shrimp","maxTokens":50}`))
	if err != nil || !strings.Contains(out, "Autumn wind rises") || !strings.Contains(out, "qwen3:4b") {
		t.Fatalf("the reply did not reach the server: %q %v", out, err)
	}
	if len(got) != 1 || got[0].Server != "every" || got[0].System != "You are a helpful test server." || len(got[0].Messages) != 1 ||
		!strings.Contains(got[0].Messages[0].Text, "write a haiku about shrimp") || got[0].MaxTokens != 50 || got[0].Temperature == nil || *got[0].Temperature != 0.7 {
		t.Errorf("what the Sampler got: %+v", got)
	}
	out, err = s.Call(context.Background(), "trigger-sampling-request", json.RawMessage(`{"prompt":"x"}`))
	if err == nil && !strings.Contains(out, "only during a call of one of its tools in a chat") {
		t.Errorf("without a model lent: %q", out)
	} else if err != nil && !strings.Contains(err.Error(), "only during a call of one of its tools in a chat") {
		t.Errorf("without a model lent: %v", err)
	}
}

// TestNPMServerRestarts: the supervisor restarts a real server that was
// killed, and its tools come back.
func TestNPMServerRestarts(t *testing.T) {
	m := mcpconf.NewManager()
	m.Backoff = 100 * time.Millisecond
	defer m.Close()
	changes := make(chan mcpconf.Status, 256)
	m.OnChange = func(st mcpconf.Status) { changes <- st }
	m.Apply(mcpconf.Config{Servers: map[string]mcpconf.Server{"every": npmServer(t, "server-everything", "stdio")}})
	wait := func(what string, ok func(mcpconf.Status) bool) mcpconf.Status {
		t.Helper()
		deadline := time.After(2 * time.Minute)
		for {
			select {
			case st := <-changes:
				if ok(st) {
					return st
				}
			case <-deadline:
				t.Fatalf("the server never %s: %+v", what, m.Statuses())
			}
		}
	}
	up := wait("started", func(st mcpconf.Status) bool { return st.State == mcpconf.StateRunning })
	pid := m.PID("every")
	if pid == 0 || len(up.Tools) < 5 {
		t.Fatalf("pid %d, %d tools", pid, len(up.Tools))
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wait("noticed the crash", func(st mcpconf.Status) bool {
		return st.State == mcpconf.StateRestarting && strings.Contains(st.LastError, "exited")
	})
	back := wait("came back", func(st mcpconf.Status) bool { return st.State == mcpconf.StateRunning })
	if back.Restarts != 1 || m.PID("every") == pid || !slices.ContainsFunc(m.RegistryTools(), func(t *mcpconf.RegTool) bool { return t.Name() == "mcp.every.echo" }) {
		t.Fatalf("after restart: %+v", back)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := m.Call(ctx, "every", "echo", []byte(`{"message":"again"}`)); err != nil || !strings.Contains(out, "again") {
		t.Fatalf("echo after restart: %q %v", out, err)
	}
}

// TestNPMServerOverHTTP: the everything server over streamable HTTP (the
// TypeScript SDK's transport) behind a proxy that ends its standalone
// stream twice, as an idle timeout would: the stream is asked for again
// each time (the SDK there refuses a second one while it still holds the
// first), and the session goes on: calls work, nothing reconnects.
func TestNPMServerOverHTTP(t *testing.T) {
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := probe.Addr().(*net.TCPAddr).Port
	probe.Close()
	srv := npmServer(t, "server-everything", "streamableHttp")
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	logs := tail.New(20) // safe to read while the server writes
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	target := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", target[len("http://"):]); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the everything server never listened on %d: %s", port, tail.Last(logs.Lines(), 20))
		}
	}
	up, _ := url.Parse(target)
	proxy := httputil.NewSingleHostReverseProxy(up)
	proxy.FlushInterval = -1
	var gets atomic.Int32
	var sessions sync.Map
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get("Mcp-Session-Id"); id != "" {
			sessions.Store(id, true)
		}
		if r.Method == http.MethodGet && gets.Add(1) <= 2 {
			ctx, cancel := context.WithTimeout(r.Context(), 300*time.Millisecond) // the proxy's idle cut
			defer cancel()
			r = r.WithContext(ctx)
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()

	m := mcpconf.NewManager()
	defer m.Close()
	m.Apply(mcpconf.Config{Servers: map[string]mcpconf.Server{"every": {URL: front.URL + "/mcp"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	for gets.Load() < 3 {
		if ctx.Err() != nil {
			t.Fatalf("the stream was asked for %d times, not 3: %s", gets.Load(), m.Statuses()[0].LastError)
		}
		time.Sleep(20 * time.Millisecond)
	}
	out, err := m.Call(ctx, "every", "echo", []byte(`{"message":"still here"}`))
	if err != nil || !strings.Contains(out, "still here") {
		t.Fatalf("echo after the cuts: %q %v", out, err)
	}
	named := 0
	sessions.Range(func(any, any) bool { named++; return true })
	if st := m.Statuses()[0]; st.State != mcpconf.StateRunning || st.Restarts != 0 || named != 1 {
		t.Fatalf("the cuts cost the session: %+v, %d sessions named", st, named)
	}
}

// TestNPMFilesystemServerTakesTheWorkspace: the filesystem server given
// no folder (as VS Code's documentation writes it) serves the chat's
// workspace, which Shrimp tells it as MCP roots; one marked "roots":
// false keeps to the folder its arguments name. A server kept running
// (the window's) follows the workspace as it changes
// (notifications/roots/list_changed, then roots/list).
func TestNPMFilesystemServerTakesTheWorkspace(t *testing.T) {
	data, ws, own := t.TempDir(), t.TempDir(), t.TempDir()
	for dir, text := range map[string]string{ws: "in the workspace\n", own: "in its own folder\n"} {
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	no := false
	kept := npmServer(t, "server-filesystem", own)
	kept.Roots = &no
	writeMCP(t, data, mcpconf.Config{Servers: map[string]mcpconf.Server{
		"files": npmServer(t, "server-filesystem"), // no folder: the roots
		"kept":  kept,
	}})
	res, _ := scriptedResults(t, data, ws, "read the notes", 3,
		call("mcp.files.read_text_file", map[string]any{"path": filepath.Join(ws, "notes.txt")}),
		call("mcp.kept.read_text_file", map[string]any{"path": filepath.Join(own, "notes.txt")}),
		call("mcp.kept.read_text_file", map[string]any{"path": filepath.Join(ws, "notes.txt")}),
		ollamatest.Text("done"),
	)
	for i, want := range []string{"in the workspace", "in its own folder"} {
		if out, _ := res[i]["output"].(string); res[i]["error"] != "" || !strings.Contains(out, want) {
			t.Errorf("result %d: want %q, got %v", i, want, res[i])
		}
	}
	if !refused(res[2]) {
		t.Errorf("the server kept to its own folder read the workspace: %v", res[2])
	}

	// One manager, as the window keeps it: the roots change under it.
	m := mcpconf.NewManager()
	defer m.Close()
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("in the other workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.SetRoots([]string{ws})
	m.Apply(mcpconf.Config{Servers: map[string]mcpconf.Server{"files": npmServer(t, "server-filesystem")}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	read := func(dir, want string) {
		t.Helper()
		var rt *mcpconf.RegTool
		for _, x := range m.RegistryTools() {
			if x.Name() == "mcp.files.read_text_file" {
				rt = x
			}
		}
		if rt == nil {
			t.Fatalf("no read_text_file: %+v", m.Statuses())
		}
		args, _ := json.Marshal(map[string]string{"path": filepath.Join(dir, "notes.txt")})
		deadline := time.Now().Add(time.Minute)
		for {
			out, err := rt.Run(ctx, args)
			if err == nil && strings.Contains(out, want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("read %s: %q, %v; want %q", dir, out, err, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	read(ws, "in the workspace")
	m.SetRoots([]string{other})
	read(other, "in the other workspace")
}
