package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// Prefix starts the registry name of every MCP tool.
const Prefix = "mcp."

// maxName is the longest tool name offered (OpenAI's limit, which many
// chat templates and clients assume).
const maxName = 64

// maxDescription caps a tool's description: it is sent with every request.
const maxDescription = 600

// MaxResult caps the text kept from one call (its first and last halves);
// the agent cuts further and keeps the rest for tool.output.read paging.
const MaxResult = 4 << 20

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// ToolName is the registry name of a server's tool: mcp.<server>.<tool>,
// with characters a tool name cannot hold replaced by _ and cut to 64
// bytes. Two tools that sanitise alike are told apart by RegistryTools.
func ToolName(server, tool string) string {
	t := unsafeChars.ReplaceAllString(tool, "_")
	if t == "" {
		t = "tool"
	}
	name := Prefix + server + "." + t
	if len(name) > maxName {
		name = name[:maxName]
	}
	return name
}

// ServerOf returns the server part of an MCP tool name, or "" when the
// name is not an MCP tool's.
func ServerOf(name string) string {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return ""
	}
	server, _, ok := strings.Cut(rest, ".")
	if !ok {
		return ""
	}
	return server
}

// RegTool is one server's tool as a registry tool (backend/tool.Tool).
type RegTool struct {
	name     string
	server   string
	tool     Tool
	readOnly bool
	local    bool
	m        *Manager
}

// Name is mcp.<server>.<tool>.
func (t *RegTool) Name() string { return t.name }

// Server is the tool's server.
func (t *RegTool) Server() string { return t.server }

// Description says which server the tool comes from.
func (t *RegTool) Description() string {
	d := strings.Join(strings.Fields(t.tool.Description), " ")
	if len(d) > maxDescription {
		d = d[:textcut.Before(d, maxDescription)] + "…"
	}
	if d == "" {
		d = t.tool.Name
	}
	return fmt.Sprintf("%s (tool %q of MCP server %s)", d, t.tool.Name, t.server)
}

// Parameters is the server's input schema ({"type":"object"} when it
// gave none).
func (t *RegTool) Parameters() json.RawMessage {
	s := t.tool.InputSchema
	if len(s) == 0 || string(s) == "null" || string(s) == "{}" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return s
}

// Said is what the approval question shows of the tool beside its
// arguments: what its server says it does and its hints ([Hints.Said]);
// for the tools Shrimp adds to read a server's resources, what they read.
func (t *RegTool) Said() (effects, warnings []string) {
	if t.tool.Kind != "" {
		return []string{fmt.Sprintf("reads what MCP server %s offers as resources (a tool of Shrimp's; the server decides what each uri gives)", t.server)}, nil
	}
	effects, warnings = t.tool.Hints.Said()
	return append([]string{"what its server says it does: " + t.Description()}, effects...), warnings
}

// ReadOnly is the user's marking of the server.
func (t *RegTool) ReadOnly() bool { return t.readOnly }

// Digest identifies what the server says a tool is and takes: its name,
// whole description and input schema (keys sorted, so a server that sends
// the same schema in another order keeps its digest). An "always" answer
// holds for one digest: a server that changes its tool's description
// afterwards (a "rug pull") is asked about again.
func (t Tool) Digest() string {
	var schema any
	if json.Unmarshal(t.InputSchema, &schema) != nil {
		schema = string(t.InputSchema)
	}
	b, _ := json.Marshal([]any{t.Name, t.Description, schema})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// Digest is the digest of the tool's definition (Tool.Digest).
func (t *RegTool) Digest() string { return t.tool.Digest() }

// Source says the output comes from the server (a [tool.Outsider]): a
// server is another party's code, and what it returns may relay anything,
// unless the user marked it local (its answers are their own data).
func (t *RegTool) Source(json.RawMessage) string {
	if t.local {
		return ""
	}
	return "MCP server " + t.server
}

// Run calls the tool on its server (or lists or reads its resources).
func (t *RegTool) Run(ctx context.Context, args json.RawMessage) (string, error) {
	var out string
	var err error
	switch t.tool.Kind {
	case KindListResources:
		out, err = t.m.ListResources(ctx, t.server)
	case KindReadResource:
		var a struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(args, &a) != nil || strings.TrimSpace(a.URI) == "" {
			return "", fmt.Errorf("%w: read_resource needs the resource's uri as a string, {\"uri\": \"…\"}; list_resources of MCP server %s lists them", ErrToolFailed, t.server)
		}
		out, err = t.m.ReadResource(ctx, t.server, a.URI)
	default:
		out, err = t.m.Call(ctx, t.server, t.tool.Name, args)
	}
	if len(out) > MaxResult {
		// Both ends, as of a command's output: a result's summary or
		// error is as often at its end.
		head, tail := textcut.Before(out, MaxResult/2), textcut.After(out, len(out)-MaxResult/2)
		out = out[:head] + fmt.Sprintf("\n[cut: the server returned %d bytes; Shrimp keeps the first and the last %d, %d between them are not kept]\n", len(out), MaxResult/2, tail-head) + out[tail:]
	}
	return out, err
}

// RegistryTools returns the tools of every running server, in server and
// tool order, named for the registry; a tool that must run as a task is
// left out (tasks.go).
func (m *Manager) RegistryTools() []*RegTool { return m.RegistryToolsFor("") }

// RegistryToolsFor is RegistryTools for a run in workspace dir: a server
// started for another workspace (Status.Folder) offers it none. dir "":
// every server's.
func (m *Manager) RegistryToolsFor(dir string) []*RegTool {
	var out []*RegTool
	for _, st := range m.Statuses() {
		if st.State != StateRunning || dir != "" && st.Folder != "" && st.Folder != dir {
			continue
		}
		for _, tl := range st.Tools {
			if tl.Offered != "" {
				out = append(out, &RegTool{name: tl.Offered, server: st.Name, tool: tl, readOnly: st.ReadOnly, local: st.Local, m: m})
			}
		}
	}
	return out
}

// nameOffered sets the name each of a server's tools is offered to the
// model by: ToolName, told apart by _2, _3 … when two sanitise alike;
// none for a tool that must run as a task. Server names are at most 32
// bytes, so the names of two servers' tools never meet.
func nameOffered(server string, tools []Tool) {
	taken := map[string]bool{}
	for i, tl := range tools {
		tools[i].Offered = ""
		if tl.NeedsTasks || tl.Excluded {
			continue
		}
		name := ToolName(server, tl.Name)
		for n := 2; taken[name]; n++ {
			suffix := fmt.Sprintf("_%d", n)
			base := ToolName(server, tl.Name)
			if len(base)+len(suffix) > maxName {
				base = base[:maxName-len(suffix)]
			}
			name = base + suffix
		}
		taken[name] = true
		tools[i].Offered = name
	}
}
