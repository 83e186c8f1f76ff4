package instructions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImports: @path imports as Claude Code and Gemini CLI read them: the
// imported text follows the line that names it, in turn imported, each
// file once; not inside code, not for names that are no file; a project's
// file imports only its own folder's files, the user's file the home
// folder's too.
func TestImports(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "proj")
	config := filepath.Join(home, ".config", "shrimp")
	for path, text := range map[string]string{
		"proj/CLAUDE.md": "Read @AGENTS.md first, then @docs/style.md.\n" +
			"Packages like @modelcontextprotocol/server-filesystem and mail to a@b.example are no imports.\n" +
			"`@docs/secret.md` in a span is not one.\n```\n@docs/secret.md\n```\n" +
			"Nor is @~/.ssh/id_rsa, or @../outside.md, or @" + filepath.Join(home, "outside2.md") + ".\n",
		"proj/AGENTS.md":           "Run make test.\n",
		"proj/docs/style.md":       "Tabs in Go. @../AGENTS.md again, and @deeper.md\n",
		"proj/docs/deeper.md":      "Deep rule.\n",
		"proj/docs/secret.md":      "SECRET IN CODE\n",
		".ssh/id_rsa":              "KEY\n",
		"outside.md":               "OUTSIDE\n",
		"outside2.md":              "OUTSIDE\n",
		".config/shrimp/AGENTS.md": "My rules: @~/dotfiles/rules.md",
		"dotfiles/rules.md":        "Answer in British English.\n",
	} {
		write(t, filepath.Join(home, path), text, 0o600)
	}
	if err := os.Remove(filepath.Join(ws, "AGENTS.md")); err != nil { // CLAUDE.md is read only without AGENTS.md
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "rules", "AGENTS.md"), "Run make test.\n", 0o600)
	claude := filepath.Join(ws, "CLAUDE.md")
	b, _ := os.ReadFile(claude)
	write(t, claude, strings.Replace(string(b), "@AGENTS.md", "@rules/AGENTS.md", 1), 0o600)

	l := Load(ws, home, config, 100000)
	for _, want := range []string{"Run make test.", "Tabs in Go.", "Deep rule.", "Answer in British English."} {
		if !strings.Contains(l.Block, want) {
			t.Errorf("%q not imported:\n%s", want, l.Block)
		}
	}
	for _, not := range []string{"SECRET IN CODE", "KEY", "OUTSIDE"} {
		if strings.Contains(l.Block, not) {
			t.Errorf("%q imported:\n%s", not, l.Block)
		}
	}
	if strings.Count(l.Block, "Run make test.") != 1 {
		t.Errorf("a file imported twice:\n%s", l.Block)
	}
	refused := 0
	for _, w := range l.Warnings {
		if strings.Contains(w, "outside") {
			refused++
		}
	}
	if refused != 3 {
		t.Errorf("warnings %q: want the three imports from outside the project refused", l.Warnings)
	}
	var proj File
	for _, f := range l.Files {
		if f.Path == claude {
			proj = f
		}
	}
	if len(proj.Imports) != 3 || proj.Used != proj.Bytes {
		t.Errorf("CLAUDE.md: %+v", proj)
	}
	// The style file's imports follow its line, inside its block.
	if i, j := strings.Index(l.Block, "Tabs in Go."), strings.Index(l.Block, "Deep rule."); i < 0 || j < i {
		t.Errorf("order:\n%s", l.Block)
	}
}

// TestImportsGoFiveDeep: a chain of imports stops at five, and a cycle
// at the file already read.
func TestImportsGoFiveDeep(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "AGENTS.md"), "level 0 @1.md", 0o600)
	for i := 1; i <= 7; i++ {
		write(t, filepath.Join(ws, itoa(i)+".md"), "level "+itoa(i)+" @"+itoa(i+1)+".md @AGENTS.md", 0o600)
	}
	l := Load(ws, "", "", 100000)
	if !strings.Contains(l.Block, "level 5") || strings.Contains(l.Block, "level 6") || strings.Count(l.Block, "level 0") != 1 {
		t.Fatalf("block:\n%s", l.Block)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "5 deep at most") {
		t.Fatalf("warnings %q", l.Warnings)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// FuzzImports: whatever a project's instruction file says, its imports
// read nothing outside its folder (not through .., ~, an absolute path or
// a link that leads out), add at most the room they are given, and never
// panic.
func FuzzImports(f *testing.F) {
	f.Add("@AGENTS.md @docs/a.md @~/.ssh/id_rsa @../secret.md")
	f.Add("see @docs/out and @docs/../../secret.md, @/etc/passwd")
	f.Add("```\n@docs/a.md\n```\n`@docs/a.md` @docs/a.md.")
	f.Add("@docs/a.md @docs/a.md @docs/loop.md")
	home := f.TempDir()
	proj := filepath.Join(home, "proj")
	for path, text := range map[string]string{
		"proj/docs/a.md":    "A rule. @b.md\n",
		"proj/docs/b.md":    "B rule. @../docs/a.md @../../secret.md\n",
		"proj/docs/loop.md": "@loop.md @a.md\n",
		"secret.md":         "OUTSIDE-SECRET\n",
		".ssh/id_rsa":       "HOME-SECRET\n",
	} {
		write(f, filepath.Join(home, path), text, 0o600)
	}
	if err := os.Symlink(filepath.Join(home, "secret.md"), filepath.Join(proj, "docs", "out")); err != nil {
		f.Fatal(err)
	}
	agents := filepath.Join(proj, "AGENTS.md")
	write(f, agents, "Run make test.\n", 0o600)
	f.Fuzz(func(t *testing.T, text string) {
		if strings.Contains(text, "SECRET") {
			return
		}
		const room = 200
		out, files, _ := imports(text, agents, "folder", home, room)
		if strings.Contains(out, "SECRET") {
			t.Fatalf("a secret from outside the project was imported:\n%s", out)
		}
		for _, file := range files {
			if !within(file, proj) {
				t.Fatalf("imported %s, outside %s", file, proj)
			}
		}
		if added := len(out) - len(text); added > room+len(files) {
			t.Fatalf("imports added %d bytes, room was %d", added, room)
		}
	})
}
