package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain runs this test binary as an MCP server over stdio when asked:
// a real server process for the stdio tests.
func TestMain(m *testing.M) {
	switch os.Getenv("SHRIMP_MCP_TEST_SERVER") {
	case "1":
		if err := stdioServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "raw":
		rawServer()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type echoIn struct {
	Text string `json:"text" jsonschema:"what to say back"`
}

// testServer has a tool that works, one that fails and one that hangs.
func testServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "say it back"}, func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "always fails"}, func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		return nil, nil, errors.New("the disk is on fire")
	})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "answers after a long time"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		// Bounded, so the test server can shut down: the client gives
		// up long before. A cancellation the server hears is written
		// down where the test can see it.
		select {
		case <-ctx.Done():
			if mark := os.Getenv("SHRIMP_MCP_TEST_MARK"); mark != "" {
				_ = os.WriteFile(mark, []byte("cancelled"), 0o600)
			}
		case <-time.After(20 * time.Second):
		}
		return nil, nil, errors.New("too late")
	})
	return s
}

// stdioServer is testServer with the tools only a separate process can
// have: one that crashes the server mid-call, one that returns 10 MB of
// text, and one that adds a tool (the server then sends
// notifications/tools/list_changed).
func stdioServer() *sdk.Server {
	s := testServer()
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "kills the server"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "fatal: crashing on purpose")
		os.Exit(3)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "ten megabytes of text"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("0123456789abcdef\n", 10<<20/17)}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "adds a tool"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		sdk.AddTool(s, &sdk.Tool{Name: "grown", Description: "a new tool"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "new"}}}, nil, nil
		})
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grown"}}}, nil, nil
	})
	return s
}

// rawServer speaks JSON-RPC over stdio by hand: a correct handshake and
// tool list, then a tools/call result that is not an MCP result.
func rawServer() {
	dec := json.NewDecoder(os.Stdin)
	for {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if dec.Decode(&req) != nil {
			return
		}
		if len(req.ID) == 0 {
			continue // a notification
		}
		var result string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"odd","description":"returns nonsense","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			result = `{"content":"this should be an array","isError":"maybe"}`
		default:
			result = `{}`
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
	}
}

func TestConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	c, err := Load(path)
	if err != nil || len(c.Servers) != 0 {
		t.Fatalf("missing file: %+v %v", c, err)
	}
	c.Servers["files"] = Server{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, Env: map[string]string{"TOKEN": "secret"}}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mcp.json mode %v (%v), want 0600: it may hold secrets", info.Mode().Perm(), err)
	}
	back, err := Load(path)
	if err != nil || back.Servers["files"].Env["TOKEN"] != "secret" || back.Servers["files"].Args[2] != "/tmp" {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	// Claude Desktop's file imports; a name already there does not.
	other := Config{Servers: map[string]Server{"web": {URL: "http://127.0.0.1:1/mcp"}}}
	if names, err := back.Import(other); err != nil || len(names) != 1 || back.Servers["web"].URL == "" {
		t.Fatalf("import: %v %v", names, err)
	}
	if _, err := back.Import(other); err == nil {
		t.Fatal("imported over an existing server")
	}
	for _, bad := range []struct {
		name string
		s    Server
	}{
		{"a.b", Server{Command: "x"}},
		{"", Server{Command: "x"}},
		{"ok", Server{}},
		{"ok", Server{Command: "x", URL: "http://x"}},
	} {
		if err := bad.s.Check(bad.name); err == nil {
			t.Errorf("Check(%q, %+v) accepted", bad.name, bad.s)
		}
	}
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"x": }`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "not valid mcp.json") {
		t.Fatalf("corrupt file: %v", err)
	}
}

// exercise lists the test server's tools and calls each.
func exercise(t *testing.T, s *Session) {
	t.Helper()
	ctx := context.Background()
	tools, err := s.Tools(ctx)
	i := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == "echo" })
	if err != nil || len(tools) < 3 || i < 0 || !strings.Contains(string(tools[i].InputSchema), `"text"`) {
		t.Fatalf("tools %+v %v", tools, err)
	}
	if out, err := s.Call(ctx, "echo", json.RawMessage(`{"text":"hi"}`)); err != nil || out != "echo: hi" {
		t.Fatalf("echo: %q %v", out, err)
	}
	if _, err := s.Call(ctx, "fail", nil); err == nil || !strings.Contains(err.Error(), "the disk is on fire") {
		t.Fatalf("fail: %v", err)
	}
	hung, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := s.Call(hung, "hang", nil); err == nil {
		t.Fatal("a hanging tool returned")
	}
	if _, err := s.Call(ctx, "echo", json.RawMessage(`not json`)); err == nil {
		t.Fatal("bad arguments accepted")
	}
}

func TestStdioServer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Connect(context.Background(), "test", Server{Command: exe, Env: map[string]string{"SHRIMP_MCP_TEST_SERVER": "1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, s)
	pid := s.cmd.Process.Pid
	if err := s.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Fatalf("server process %d still alive after Close", pid)
	}
	if _, err := Connect(context.Background(), "gone", Server{Command: "/nonexistent/server"}, nil); err == nil || !strings.Contains(err.Error(), "shrimp mcp check gone") {
		t.Fatalf("a missing command: %v", err)
	}
}

func TestHTTPServer(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "cancelled")
	t.Setenv("SHRIMP_MCP_TEST_MARK", mark)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer() }, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	s, err := Connect(context.Background(), "web", Server{URL: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exercise(t, s)
	// The abandoned call's cancellation reached the server's handler.
	waitFile(t, mark, "cancelled")
}
