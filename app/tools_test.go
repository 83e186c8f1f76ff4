package app

import (
	"slices"
	"testing"

	"github.com/ollama/ollama/api"
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
