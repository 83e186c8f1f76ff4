package app

import (
	"context"
	"slices"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/tool"
)

func TestStems(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"read_file", []string{"read", "file"}},
		{"listDirectoryWithSizes", []string{"list", "direc", "with", "sizes"}},
		{"get-sum of 2 numbers", []string{"get", "sum", "numbe"}},
		{"a an to", nil},
	} {
		got := stems(c.in)
		if len(got) != len(c.want) {
			t.Errorf("stems(%q) = %v, want %v", c.in, got, c.want)
			continue
		}
		for _, w := range c.want {
			if !got[w] {
				t.Errorf("stems(%q) lacks %q: %v", c.in, w, got)
			}
		}
	}
}

func TestRankTools(t *testing.T) {
	tool := func(name, desc string) api.Tool {
		return api.Tool{Type: "function", Function: api.ToolFunction{Name: name, Description: desc}}
	}
	ts := api.Tools{
		tool("mcp.gh.create_issue", "Create an issue in a repository"),
		tool("mcp.files.read_file", "Read the complete contents of a file"),
		tool("mcp.files.write_file", "Create or overwrite a file"),
		tool("mcp.web.search", "Search the web"),
	}
	names := func(ts api.Tools) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Function.Name)
		}
		return out
	}
	for _, c := range []struct {
		request  string
		recalled []string
		first    string
	}{
		{"read the contents of notes.txt", nil, "mcp.files.read_file"},
		{"open an issue about the crash", nil, "mcp.gh.create_issue"},
		{"search for shrimp recipes", nil, "mcp.web.search"},
		{"read the contents of notes.txt", []string{"mcp.web.search"}, "mcp.web.search"},
	} {
		got := names(rankTools(ts, c.request, c.recalled))
		if got[0] != c.first || len(got) != len(ts) {
			t.Errorf("rankTools(%q, %v) = %v, want %s first", c.request, c.recalled, got, c.first)
		}
	}
	// Nothing in common: name order is kept.
	if got := names(rankTools(ts, "zzz", nil)); !slices.Equal(got, names(ts)) {
		t.Errorf("no overlap: %v", got)
	}
}

// TestProgressReporter: a call's progress is published at most every
// progressEvery, and its last step once, however often a server sends
// it: each publication is an event the session stores.
func TestProgressReporter(t *testing.T) {
	var got []ToolProgress
	report := progressReporter(func(_ context.Context, typ agent.Type, data any) error {
		if typ == TypeToolProgress {
			got = append(got, data.(ToolProgress))
		}
		return nil
	})("c1", "mcp.s.slow")
	report(tool.Progress{Progress: 0, Total: 1000})
	for range 100_000 {
		report(tool.Progress{Progress: 1000, Total: 1000, Message: "done"})
	}
	finals := slices.DeleteFunc(slices.Clone(got), func(p ToolProgress) bool { return p.Progress.Message != "done" })
	if len(got) == 0 || got[0].Progress.Progress != 0 || len(finals) != 1 || finals[0].ID != "c1" || finals[0].Tool != "mcp.s.slow" {
		t.Fatalf("published %d times, the last step %d times: %+v", len(got), len(finals), got[:min(len(got), 5)])
	}
}
