package toolname

import "testing"

// TestResolve: spellings of registered names resolve to them when one
// name has them; with aliases (the second index), another agent's name
// for a tool stands for it in any spelling, not for a tool the index
// lacks, and never before a registered name's own spelling.
func TestResolve(t *testing.T) {
	x := New([]string{"fs.read", "fs.write", "tool.output.read", "memory.procedures.forget", "mcp.files.read_file", "mcp.a.b_c", "mcp.a_b.c", "shell.run"}, nil)
	aliased := New([]string{"fs.read", "fs.write", "shell.run"}, NewAliases(map[string]string{"Bash": "shell.run", "run_shell_command": "shell.run", "WebFetch": "web.fetch", "fs_read": "fs.write"}))
	type resolved struct {
		in, want string
		ok       bool
	}
	plain := []resolved{
		{"fs.read", "fs.read", true},
		{"fs_read", "fs.read", true},
		{"FS.Read", "fs.read", true},
		{"fs-read", "fs.read", true},
		{"functions.fs.read", "fs.read", true},
		{"functions.shell_run", "shell.run", true},
		{"tool_output_read", "tool.output.read", true},
		{"memory_procedures_forget", "memory.procedures.forget", true},
		{"mcp__files__read_file", "mcp.files.read_file", true},
		{"mcp.files.read-file", "mcp.files.read_file", true},
		{"mcp.a.b_c", "mcp.a.b_c", true}, // exact names always work
		{"mcp.a.b.c", "", false},         // two tools share the key: no guess
		{"read_file", "", false},
		{"fs.reads", "", false},
		{"", "", false},
		{"bash", "", false},
		// gpt-oss's format tokens run into the name.
		{"fs.read<|constrain|>json", "fs.read", true},
		{"functions.shell.run<|channel|>commentary", "shell.run", true},
		{"functions.fs.read json", "fs.read", true},
		{"fs.readjson", "fs.read", true},
		{"functions.shell_run_json", "shell.run", true},
		{"assistant<|channel|>analysis", "", false}, // the name is lost
		{"<|constrain|>json", "", false},
		{"json", "", false},
	}
	withAliases := []resolved{
		{"Bash", "shell.run", true},
		{"bash", "shell.run", true},
		{"functions.run-shell-command", "shell.run", true},
		{"WebFetch", "", false},
		{"fs_read", "fs.read", true},
		{"zsh", "", false},
	}
	for idx, tests := range map[*Index][]resolved{x: plain, aliased: withAliases} {
		for _, tt := range tests {
			if got, ok := idx.Resolve(tt.in); got != tt.want || ok != tt.ok {
				t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		}
	}
}
