package skills

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/instructions"
	"github.com/shrimp-harness/shrimp/backend/tool"
)

// skill writes a skill folder named name under dir with SKILL.md text.
func skill(t *testing.T, dir, name, text string) string {
	t.Helper()
	folder := filepath.Join(dir, name)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return folder
}

func md(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body
}

// TestFind: skills are found in the workspace's folders and then the
// user's; one that breaks the format or the checks is left out, saying
// why; a name found twice keeps the first.
func TestFind(t *testing.T) {
	ws, user, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	project := filepath.Join(ws, ".agents", "skills")
	skill(t, project, "release-notes", md("release-notes", "Write release notes from the git log since the last tag.", "1. Run scripts/log.sh\n"))
	skill(t, filepath.Join(ws, ".claude", "skills"), "pdf-forms", "\ufeff---\r\nname: pdf-forms\r\ndescription: >\r\n  Fill in PDF forms\r\n  from a CSV file.\r\n---\r\nUse pdftk.\r\n")
	skill(t, user, "release-notes", md("release-notes", "The user's own, shadowed by the project's.", ""))
	skill(t, user, "tidy-downloads", md("tidy-downloads", "Sort the Downloads folder by type.", "Move files."))
	skill(t, user, "Bad_Name", md("Bad_Name", "x", ""))
	skill(t, user, "mismatch", md("other-name", "x", ""))
	skill(t, user, "no-desc", md("no-desc", "", ""))
	skill(t, user, "no-front", "# Just text\n")
	skill(t, user, "hidden", md("hidden", "Sort files.\U000E0049\U000E0067", ""))
	writable := skill(t, user, "writable", md("writable", "x", ""))
	if err := os.Chmod(filepath.Join(writable, FileName), 0o666); err != nil {
		t.Fatal(err)
	}
	// A SKILL.md that is a link out of its folder, and a workspace skill
	// whose folder is a link out of the workspace.
	secret := filepath.Join(elsewhere, "secret.md")
	if err := os.WriteFile(secret, []byte(md("leak", "x", "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(user, "leak"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(user, "leak", FileName)); err != nil {
		t.Fatal(err)
	}
	outside := skill(t, elsewhere, "outside", md("outside", "x", ""))
	if err := os.Symlink(outside, filepath.Join(project, "outside")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(user, "not-a-skill"), 0o755); err != nil {
		t.Fatal(err)
	}

	f := Find(ws, []string{user, filepath.Join(user, "missing")})
	var names []string
	for _, s := range f.Skills {
		names = append(names, s.Name+"/"+s.Scope)
	}
	if got := strings.Join(names, " "); got != "release-notes/workspace pdf-forms/workspace tidy-downloads/user" {
		t.Errorf("found %s", got)
	}
	if f.Skills[1].Description != "Fill in PDF forms from a CSV file." {
		t.Errorf("folded description %q", f.Skills[1].Description)
	}
	warned := strings.Join(f.Warnings, "\n")
	for _, want := range []string{
		"outside left out: its folder leads out of the workspace",
		"release-notes left out: a skill named release-notes was found first",
		`Bad_Name left out: its name "Bad_Name" is not lower-case words`,
		`mismatch left out: its name "other-name" differs from its folder's`,
		"no-desc left out: it has no description",
		"no-front left out: it does not start with front matter",
		"hidden left out: its description holds characters a reader cannot see",
		"writable left out: its SKILL.md cannot be read: others may write it",
		"leak left out: its SKILL.md leads out of its folder",
	} {
		if !strings.Contains(warned, want) {
			t.Errorf("no warning %q in:\n%s", want, warned)
		}
	}
	if strings.Contains(warned, "not-a-skill") {
		t.Error("a folder without SKILL.md was warned about")
	}
}

// TestCatalogAndRead: the catalog lists skills within its budget (names
// only past it); skill.read gives a skill's instructions with its folder,
// a file of its folder, and refuses paths out of it, binary files and
// unknown names.
func TestCatalogAndRead(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, ".agents", "skills")
	folder := skill(t, dir, "release-notes", md("release-notes", "Write release notes.", "# Release notes\n\n1. Run scripts/log.sh\u202e\n"))
	skill(t, dir, "second", md("second", strings.Repeat("long ", 50), ""))
	if err := os.MkdirAll(filepath.Join(folder, "references"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "references", "style.md"), []byte("Use the past tense."), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "logo.png"), []byte{0x89, 'P', 'N', 'G', 0xff, 0xfe}, 0o644); err != nil {
		t.Fatal(err)
	}
	f := Find(ws, nil)
	if c := f.Catalog(400); !strings.Contains(c, "- release-notes: Write release notes.") || !strings.Contains(c, "More skills, by name only: second") {
		t.Errorf("catalog %q", c)
	}
	if c := f.Catalog(4000); !strings.Contains(c, "- second: long long") || strings.Contains(c, "by name only") {
		t.Errorf("catalog %q", c)
	}
	if c := (Found{}).Catalog(4000); c != "" {
		t.Errorf("an empty catalog %q", c)
	}
	read := Tool(func() Found { return f })
	if !read.ReadOnly() {
		t.Error("skill.read is not read-only")
	}
	run := func(args string) (string, error) {
		return read.Run(context.Background(), json.RawMessage(args))
	}
	out, err := run(`{"name": "release-notes"}`)
	if err != nil || !strings.HasPrefix(out, "[skill release-notes; its folder, for the scripts and files it names: "+instructions.Resolved(folder)+"]\n# Release notes") || strings.Contains(out, "name: release-notes") {
		t.Fatalf("read: %q %v", out, err)
	}
	if out, err := run(`{"name": "release-notes", "file": "references/style.md"}`); err != nil || out != "[skill release-notes, file references/style.md]\nUse the past tense." {
		t.Errorf("a file: %q %v", out, err)
	}
	for args, want := range map[string]string{
		`{"name": "release-notes", "file": "../second/SKILL.md"}`: "has no file",
		`{"name": "release-notes", "file": "logo.png"}`:           "is not text",
		`{"name": "release-notes", "file": "references"}`:         "is not a file to read",
		`{"name": "nope"}`: `no skill is named "nope"; the skills are: release-notes, second`,
	} {
		if _, err := run(args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
	if _, err := run(`{"name": "nope"}`); !errors.Is(err, tool.ErrInvalidArgs) {
		t.Errorf("an unknown skill is not the model's mistake: %v", err)
	}
}
