package instructions

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCursorRules: the workspace's Cursor rules apply as Cursor applies
// them: alwaysApply ones (and .cursorrules) in the system prompt before
// the workspace's AGENTS.md, those with a description only listed for the
// model to read, those with globs only beside a tool's result for a file
// they match (once a run), manual ones not at all; with an AGENTS.md's
// checks (a link out of the rules folder, hidden characters).
func TestCursorRules(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "app")
	rules := filepath.Join(ws, ".cursor", "rules")
	write(t, filepath.Join(ws, "AGENTS.md"), "root rules", 0o644)
	write(t, filepath.Join(ws, ".cursorrules"), "Answer in British English.", 0o644)
	write(t, filepath.Join(rules, "style.mdc"), "---\ndescription: House style\nglobs:\nalwaysApply: true\n---\nTabs, never spaces.\n", 0o644)
	// Cursor's front matter is not YAML: globs unquoted, a list, a bracket list.
	write(t, filepath.Join(rules, "frontend", "react.mdc"), "---\ndescription:\nglobs: src/**/*.tsx, *.jsx\nalwaysApply: false\n---\nUse function components.\n", 0o644)
	write(t, filepath.Join(rules, "go.mdc"), "\uFEFF---\r\nglobs:\r\n  - \"**/*.go\"\r\n---\r\nWrap errors with %w.\r\n", 0o644) // saved on Windows
	write(t, filepath.Join(rules, "sql.md"), "---\nglobs: [\"db/{migrations,seeds}/*.sql\"]\n---\nNever DROP a table.\n", 0o644)
	write(t, filepath.Join(rules, "release.mdc"), "---\ndescription: \"How to cut a release: tags, changelog\"\n---\nBump the version in VERSION first.\n", 0o644)
	write(t, filepath.Join(rules, "manual.mdc"), "---\ndescription:\nglobs:\nalwaysApply: false\n---\nOnly when asked by name.\n", 0o644)
	write(t, filepath.Join(rules, "hidden.mdc"), "---\nalwaysApply: true\n---\nBe brief.\U000E0041\U000E0042\n", 0o644)
	write(t, filepath.Join(rules, "notes.txt"), "not a rule", 0o644)
	write(t, filepath.Join(rules, "empty.mdc"), "---\nalwaysApply: true\n---\n\n", 0o644)
	outside := filepath.Join(t.TempDir(), "id_rsa")
	write(t, outside, "-----BEGIN KEY-----", 0o600)
	if err := os.Symlink(outside, filepath.Join(rules, "key.mdc")); err != nil {
		t.Fatal(err)
	}

	got := Load(ws, home, "", 8000)
	block := got.Block
	for _, want := range []string{"Answer in British English.", "Tabs, never spaces.", "Be brief.", "- .cursor/rules/release.mdc: How to cut a release: tags, changelog", "root rules"} {
		if !strings.Contains(block, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, block)
		}
	}
	for _, not := range []string{"function components", "Wrap errors", "Never DROP", "Bump the version", "Only when asked", "BEGIN KEY", "not a rule", "\U000E0041"} {
		if strings.Contains(block, not) {
			t.Errorf("the prompt holds %q:\n%s", not, block)
		}
	}
	if strings.Index(block, "Tabs, never spaces.") > strings.Index(block, "root rules") {
		t.Error("the workspace's AGENTS.md is not last: it should have the last word")
	}
	warnings := strings.Join(got.Warnings, "\n")
	if !strings.Contains(warnings, "key.mdc not read: a link to") || !strings.Contains(warnings, "hidden.mdc holds 2 invisible characters") {
		t.Errorf("warnings:\n%s", warnings)
	}
	var scopes []string
	for _, f := range got.Files {
		scopes = append(scopes, filepath.Base(f.Path)+" "+f.Scope+" "+f.Agent)
	}
	if slices.Contains(scopes, "empty.mdc rule Cursor") {
		t.Error("an empty rule is in force")
	}
	if !slices.Contains(scopes, "style.mdc rule Cursor") || !slices.Contains(scopes, "app rules on request ") || !slices.Contains(scopes, "AGENTS.md folder ") {
		t.Errorf("files: %q", scopes)
	}

	n := NewNested(ws)
	n.Use(got)
	for _, step := range []struct {
		path string
		want []string
	}{
		{"README.md", nil},
		{"src/app/App.tsx", []string{"react.mdc"}},
		{"src/app/Other.tsx", nil}, // given already in this run
		{"main.go", []string{"go.mdc"}},
		{"db/migrations/001.sql", []string{"sql.md"}},
		{"db/seeds/users.sql", nil},
		{filepath.Join(ws, "web", "old.jsx"), nil}, // react.mdc's, given already
		{"../elsewhere/x.go", nil},
	} {
		l := n.For(step.path)
		var names []string
		for _, f := range l.Files {
			names = append(names, filepath.Base(f.Path))
		}
		if !slices.Equal(names, step.want) {
			t.Errorf("%s: %q, want %q (%s)", step.path, names, step.want, l.Block)
		}
		if len(step.want) > 0 && !strings.Contains(l.Block, "rules for files like the one this tool reached") {
			t.Errorf("%s: block %q", step.path, l.Block)
		}
	}
	// A name alone matches in any folder; a fresh run gives it again.
	fresh := NewNested(ws)
	fresh.Use(got)
	if l := fresh.For("web/old.jsx"); !strings.Contains(l.Block, "Use function components.") {
		t.Errorf("*.jsx in a subfolder: %q", l.Block)
	}
}

// TestOtherAgentsRules: GitHub Copilot's, Windsurf's, Claude Code's,
// Cline's and Zed's rules mean what Cursor's do, under their own keys:
// Copilot's copilot-instructions.md and applyTo "**" always, applyTo
// globs attached to files; Windsurf's .windsurfrules and trigger
// always_on always, glob attached, model_decision offered by its
// description, manual not given; Claude Code's and Cline's rules always
// unless their paths name files; Zed's .rules always.
func TestOtherAgentsRules(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "app")
	write(t, filepath.Join(ws, ".github", "copilot-instructions.md"), "Copilot: use pnpm.", 0o644)
	write(t, filepath.Join(ws, ".github", "instructions", "all.instructions.md"), "---\napplyTo: \"**\"\n---\nCopilot: every file.", 0o644)
	write(t, filepath.Join(ws, ".github", "instructions", "ts.instructions.md"), "---\napplyTo: \"**/*.ts,**/*.tsx\"\ndescription: TypeScript\n---\nCopilot: strict types.", 0o644)
	write(t, filepath.Join(ws, ".github", "instructions", "notes.md"), "not an instructions file", 0o644)
	write(t, filepath.Join(ws, ".windsurfrules"), "Windsurf: be brief.", 0o644)
	write(t, filepath.Join(ws, ".windsurf", "rules", "on.md"), "---\ntrigger: always_on\n---\nWindsurf: always on.", 0o644)
	write(t, filepath.Join(ws, ".windsurf", "rules", "py.md"), "---\ntrigger: glob\nglobs: *.py\n---\nWindsurf: type hints.", 0o644)
	write(t, filepath.Join(ws, ".windsurf", "rules", "deploy.md"), "---\ntrigger: model_decision\ndescription: Deploying to production\nglobs: deploy/*\n---\nWindsurf: deploy on Tuesdays.", 0o644)
	write(t, filepath.Join(ws, ".windsurf", "rules", "hand.md"), "---\ntrigger: manual\nglobs: *.go\n---\nWindsurf: by hand only.", 0o644)

	// Claude Code's and Cline's: a rule naming no files is always in force.
	write(t, filepath.Join(ws, ".claude", "rules", "style.md"), "Claude: small functions.", 0o644)
	write(t, filepath.Join(ws, ".claude", "rules", "lang", "go.md"), "---\npaths:\n  - \"**/*.go\"\n---\nClaude: wrap errors.", 0o644)
	write(t, filepath.Join(ws, ".clinerules", "01-general.md"), "Cline: explain first.", 0o644)
	write(t, filepath.Join(ws, ".clinerules", "web.md"), "---\npaths: [\"web/**\"]\n---\nCline: web rules.", 0o644)
	write(t, filepath.Join(ws, ".rules"), "Zed: no emoji.", 0o644)

	loaded := Load(ws, home, "", 8000)
	block := loaded.Block
	for _, want := range []string{"Copilot: use pnpm.", "Copilot: every file.", "Windsurf: be brief.", "Windsurf: always on.", ".windsurf/rules/deploy.md: Deploying to production",
		"Claude: small functions.", "Cline: explain first.", "Zed: no emoji."} {
		if !strings.Contains(block, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, block)
		}
	}
	for _, not := range []string{"strict types", "not an instructions file", "type hints", "deploy on Tuesdays", "by hand only", "wrap errors", "web rules"} {
		if strings.Contains(block, not) {
			t.Errorf("the prompt holds %q:\n%s", not, block)
		}
	}
	n := NewNested(ws)
	n.Use(loaded)
	for path, want := range map[string]string{"src/a.tsx": "Copilot: strict types.", "tools/x.py": "Windsurf: type hints.", "deploy/run.sh": "", "main.go": "Claude: wrap errors.", "web/index.html": "Cline: web rules.", "README.md": ""} {
		if got := n.For(path).Block; want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
	// Cline's .clinerules may be one file too.
	ws2 := filepath.Join(home, "app2")
	write(t, filepath.Join(ws2, ".clinerules"), "Cline: one file.", 0o644)
	if l := Load(ws2, home, "", 8000); !strings.Contains(l.Block, "Cline: one file.") || len(l.Warnings) != 0 {
		t.Errorf(".clinerules as a file: %q %q", l.Block, l.Warnings)
	}
	if got := strings.Join(RuleFiles(), " "); !strings.Contains(got, filepath.Join(".github", "instructions")) || !strings.Contains(got, ".windsurfrules") || !strings.Contains(got, ".cursorrules") || strings.Count(got, ".clinerules") != 1 {
		t.Errorf("RuleFiles: %s", got)
	}
}

// TestGlobPattern: Cursor's globs as regular expressions.
func TestGlobPattern(t *testing.T) {
	for _, c := range []struct {
		glob, path string
		match      bool
	}{
		{"*.ts", "a.ts", true},
		{"*.ts", "src/deep/a.ts", true},
		{"*.ts", "a.tsx", false},
		{"src/**/*.tsx", "src/a.tsx", true},
		{"src/**/*.tsx", "src/x/y/a.tsx", true},
		{"src/**/*.tsx", "lib/src/a.tsx", false},
		{"src/*.go", "src/x/a.go", false},
		{"/docs/**", "docs/a/b.md", true},
		{"./db/{migrations,seeds}/*.sql", "db/seeds/x.sql", true},
		{"db/{migrations,seeds}/*.sql", "db/other/x.sql", false},
		{"file?.md", "file1.md", true},
		{"a+b.(c)", "a+b.(c)", true},
		{"a+b.(c)", "aab.xc", false},
		{"docs/café/*.md", "docs/café/menu.md", true}, // a character of several bytes
	} {
		re, err := globPattern(c.glob)
		if err != nil || re.MatchString(c.path) != c.match {
			t.Errorf("%q on %q: %v (%v), want %v", c.glob, c.path, err == nil && re.MatchString(c.path), err, c.match)
		}
	}
}

// FuzzRuleFile: any rule file's front matter is read without a panic,
// a rule's text is what follows it (hidden characters removed), and any
// glob compiles or is refused; one without glob characters matches
// itself.
func FuzzRuleFile(f *testing.F) {
	for _, seed := range []string{
		"---\ndescription: x\nglobs: src/**/*.ts, \"{a,b}/*.go\"\nalwaysApply: true\n---\nbody",
		"---\nglobs:\n  - '*.md'\n  - \n---",
		"---\n---\n",
		"no front matter",
		"---\nglobs: [\"{\", \"}\", \"**\", \"\\\\\"]\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, _ := ruleOf(ruleSources[0], "/w/.cursor/rules/x.mdc", text, int64(len(text)), true)
		if strings.ContainsRune(r.text, '\U000E0041') {
			t.Fatalf("hidden characters kept: %q", r.text)
		}
		for _, g := range r.globs {
			re, err := globPattern(g)
			if err != nil {
				continue
			}
			plain := strings.TrimPrefix(strings.TrimPrefix(g, "./"), "/")
			if !strings.ContainsAny(plain, "*?{}\n") && plain != "" && !re.MatchString(plain) {
				t.Fatalf("glob %q does not match itself (%s)", g, re)
			}
		}
	})
}
