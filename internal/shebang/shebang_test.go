package shebang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProblem(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, content string
		says          []string // "" for none
	}{
		{"crlf", "#!/bin/sh\r\necho hi\r\n", []string{"Windows line endings", `"/bin/sh\r"`, "sed -i"}},
		{"crlf with env", "#!/usr/bin/env python3\r\n", []string{"Windows line endings"}},
		{"missing interpreter", "#!/opt/nowhere/bin/node\nconsole.log(1)\n", []string{"interpreter /opt/nowhere/bin/node", "not on this system"}},
		{"env program missing", "#!/usr/bin/env nodee-not-installed\n", []string{"nodee-not-installed through env", "not in PATH"}},
		{"env -S with options", "#!/usr/bin/env -S nodee-not-installed --flag\n", []string{"nodee-not-installed through env"}},
		{"env with a variable", "#!/usr/bin/env FOO=1 sh\necho\n", nil},
		{"fine", "#!/bin/sh\necho hi\n", nil},
		{"env fine", "#!/usr/bin/env sh\necho hi\n", nil},
		{"no shebang", "echo hi\n", nil},
		{"binary", "\x7fELF\x02\x01\x01", nil},
		{"empty shebang", "#!\n", nil},
		{"long first line", "#!/bin/sh " + strings.Repeat("x", 400) + "\r\n", nil}, // the kernel reads 256 bytes: no \r seen
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			if err := os.WriteFile(path, []byte(c.content), 0o755); err != nil {
				t.Fatal(err)
			}
			got := Problem(path)
			if len(c.says) == 0 && got != "" {
				t.Errorf("Problem = %q, want none", got)
			}
			for _, s := range c.says {
				if !strings.Contains(got, s) {
					t.Errorf("Problem = %q, want it to say %q", got, s)
				}
			}
			if len(c.says) > 0 && !strings.Contains(got, path) {
				t.Errorf("Problem = %q does not name the file", got)
			}
		})
	}
	if got := Problem(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("a missing file: %q", got)
	}
}
