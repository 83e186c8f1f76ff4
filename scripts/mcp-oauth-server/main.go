// Command mcp-oauth-server runs the test suite's hosted MCP server with
// its OAuth authorization server (internal/mcptest.NewOAuth: metadata,
// client registration, PKCE-checked codes that a browser gets at once) on
// a loopback port, for the browser tests (make test-e2e). It prints the
// server's url on its first line and runs until its standard input closes.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/shrimp-harness/shrimp/internal/mcptest"
)

func main() {
	o := mcptest.NewOAuth()
	defer o.Close()
	fmt.Println(o.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
}
