package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
	if code, out, errOut := mcp("check", "web"); code != 0 || !strings.Contains(out, "web: connected, 1 tool(s)") {
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
	// Claude Desktop's file: a stdio server with a secret; listing hides it.
	claude := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.WriteFile(claude, []byte(`{"mcpServers": {"files": {"command": "/nonexistent/mcp-files", "args": ["/tmp"], "env": {"TOKEN": "s3cret"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := mcp("import", claude); code != 0 || !strings.Contains(out, "imported 1 server(s): files") {
		t.Fatalf("import: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := mcp("import", claude); code == 0 || !strings.Contains(errOut, "already configured") {
		t.Fatalf("import twice: %d %s", code, errOut)
	}
	if _, out, _ := mcp("list", "--json"); strings.Contains(out, "s3cret") || !strings.Contains(out, `"TOKEN":"***"`) {
		t.Fatalf("list shows the secret: %s", out)
	}
	if code, _, errOut := mcp("check", "files"); code == 0 || !strings.Contains(errOut, "shrimp mcp check files") {
		t.Fatalf("check a missing command: %d %s", code, errOut)
	}
	if code, _, errOut := mcp("add", "bad.name", "--url", srv.URL); code != 2 || !strings.Contains(errOut, "server name") {
		t.Fatalf("bad name: %d %s", code, errOut)
	}
	if code, _, _ := mcp("add", "both", "--url", srv.URL, "--", "cmd"); code != 2 {
		t.Fatalf("url and command: %d", code)
	}
	if code, out, _ := mcp("remove", "web"); code != 0 || !strings.Contains(out, "removed web") {
		t.Fatalf("remove: %d %s", code, out)
	}
	if code, _, errOut := mcp("tools", "web"); code == 0 || !strings.Contains(errOut, "no MCP server") {
		t.Fatalf("tools of a removed server: %d %s", code, errOut)
	}
}
