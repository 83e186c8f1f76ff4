package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// TestSuggest: a path a small model guessed wrong is answered with the
// one it probably meant: another case or a slip in a folder that is
// there, the workspace's own name in front, a leading /, or the same name
// in another folder; nothing when nothing plainly fits.
func TestSuggest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "myproj")
	for _, p := range []string{"README.md", "config.yaml", "app/utils.py", "app/main.py", "node_modules/x/utils.py", "a.c"} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		path, want string
	}{
		{"README.MD", "did you mean README.md?"},
		{"config.yml", "did you mean config.yaml?"},
		{"app/utlis.py", "did you mean app/utils.py?"},
		{"app/mian.pyy", "did you mean app/main.py?"}, // two slips in eight letters
		{"app/mn.py", ""}, // two slips in five: too far
		{"myproj/app/main.py", "paths are relative to the workspace, without its name: app/main.py is there"},
		{"src/utils.py", "utils.py is at app/utils.py"}, // not the one in node_modules
		{"`a.c`", "did you mean a.c? (without the quotes and spaces around it)"},
		{"'app/main.py' ", "did you mean app/main.py? (without the quotes and spaces around it)"},
		{"b.c", ""},           // too short to guess
		{"app/server.py", ""}, // nothing near
		{"/app/main.py", "(app/main.py is in the workspace: give paths relative to it, without the leading /)"},
	} {
		_, err := ws.read(ctx, ReadArgs{Path: tc.path})
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if tc.want == "" && (strings.Contains(msg, "did you mean") || strings.Contains(msg, " is at ")) || !strings.Contains(msg, tc.want) {
			t.Errorf("fs.read %s: %q, want %q", tc.path, msg, tc.want)
		}
	}
	if _, err := ws.edit(ctx, EditArgs{Path: "App/Main.py", Old: "x", New: "y"}); err == nil || !strings.Contains(err.Error(), "main.py is at app/main.py") {
		t.Errorf("fs.edit: %v", err)
	}
}

// TestFolderNamedAsTheWorkspace: a write to "myproj/app/new.py" in the
// workspace myproj, where app is, is refused once, naming the path meant;
// made again (or shown to the user and allowed) it makes the folder.
func TestFolderNamedAsTheWorkspace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "myproj")
	if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	args, _ := json.Marshal(WriteArgs{Path: "myproj/app/new.py", Content: "x = 1\n"})
	run := toolRunner(t, ws, "fs.write")
	if _, err := run(args); err == nil || !strings.Contains(err.Error(), "so this file is app/new.py") {
		t.Fatalf("first write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "myproj")); !os.IsNotExist(err) {
		t.Fatalf("the refused write made the folder: %v", err)
	}
	if _, err := run(args); err != nil {
		t.Fatalf("the same write again: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "myproj", "app", "new.py")); err != nil {
		t.Errorf("the write made again was not done: %v", err)
	}
	// Once the folder is there, it is the project's own.
	if _, err := ws.write(context.Background(), WriteArgs{Path: "myproj/app/other.py", Content: "y\n"}); err != nil {
		t.Errorf("a write into the folder now there: %v", err)
	}
	// Shown to the user and allowed: at once.
	other, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := os.RemoveAll(filepath.Join(dir, "myproj")); err != nil {
		t.Fatal(err)
	}
	if _, err := other.write(agent.WithSeen(context.Background(), true), WriteArgs{Path: "myproj/app/new.py", Content: "x\n"}); err != nil {
		t.Errorf("a write the user saw: %v", err)
	}
}

// TestPlainNames: fs.write makes no name with a line break, an escape or
// a bidi control in it; a file that already has one may be written.
func TestPlainNames(t *testing.T) {
	ws, dir := workspace(t, nil)
	ctx := context.Background()
	for _, p := range []string{"notes\u202etxt.sh", "a\nb.txt", "x\x1b[2Jy", "dir\u200b/f.txt", "tab\there"} {
		if _, err := ws.write(ctx, WriteArgs{Path: p, Content: "x"}); err == nil || !strings.Contains(err.Error(), "invisible or control character") {
			t.Errorf("%q: %v", p, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("made %v", entries)
	}
	if err := os.WriteFile(filepath.Join(dir, "old\tname"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.write(ctx, WriteArgs{Path: "old\tname", Content: "x"}); err != nil {
		t.Errorf("a name that is there: %v", err)
	}
	if _, err := ws.write(ctx, WriteArgs{Path: "café/日本.txt", Content: "x"}); err != nil {
		t.Errorf("a name in other scripts: %v", err)
	}
	// A model's slips: a name in quotes or backquotes, as in prose or
	// Markdown, or with a space at an end. Refused, naming the path meant.
	for _, c := range []struct{ path, want string }{
		{"`main.go`", `write the path without them ("main.go")`},
		{"'src/app.py'", `write the path without them ("src/app.py")`},
		{`"notes.md"`, `write the path without them ("notes.md")`},
		{"src/`util.go`", `a name wrapped in quotes`},
		{"main.go ", `write the path without it ("main.go")`},
		{"docs/ guide.md", `starts or ends with a space (" guide.md")`},
		{"new dir /f.txt", `("new dir ")`},
	} {
		if _, err := ws.write(ctx, WriteArgs{Path: c.path, Content: "x"}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.path, err, c.want)
		}
	}
	// Names with spaces inside, apostrophes and quotes that do not wrap
	// them are names; so is one that is there already, and a new file in
	// a folder that is.
	if err := os.Mkdir(filepath.Join(dir, " odd folder "), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"my notes.txt", "it's.txt", "'quoted.txt", " odd folder /new.txt", "old\tname"} {
		if _, err := ws.write(ctx, WriteArgs{Path: p, Content: "x"}); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 6 {
		t.Errorf("made %d entries, want 6", len(entries))
	}
}

// TestComposedNames: a name made on a Mac spells é as e and a combining
// accent (NFD); a model writes é (NFC). The file tools find the file on
// disk, and a write changes it rather than making a second file that
// looks the same.
func TestComposedNames(t *testing.T) {
	const nfd, nfc = "cafe\u0301", "café"
	ws, dir := workspace(t, map[string]string{
		nfd + ".txt":                  "menu\n",
		"re\u0301sume\u0301/notes.md": "notes\n",
		"twice/" + nfd + ".md":        "decomposed\n",
		"twice/" + nfc + ".md":        "composed\n",
	})
	ctx := context.Background()
	if out, err := ws.read(ctx, ReadArgs{Path: nfc + ".txt"}); err != nil || !strings.Contains(out, "menu") {
		t.Errorf("fs.read of the composed name: %q %v", out, err)
	}
	if out, err := ws.read(ctx, ReadArgs{Path: "résumé/notes.md"}); err != nil || !strings.Contains(out, "notes") {
		t.Errorf("a folder's composed name: %q %v", out, err)
	}
	if _, err := ws.edit(ctx, EditArgs{Path: nfc + ".txt", Old: "menu", New: "carte"}); err != nil {
		t.Errorf("fs.edit: %v", err)
	}
	if _, err := ws.write(ctx, WriteArgs{Path: nfc + ".txt", Content: "carte du jour\n"}); err != nil {
		t.Errorf("fs.write: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, nfd+".txt")); string(b) != "carte du jour\n" {
		t.Errorf("the file on disk holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, nfc+".txt")); err == nil {
		t.Error("a second file with a name that looks the same was made")
	}
	// Both spellings there: each is its own file.
	for name, want := range map[string]string{"twice/" + nfc + ".md": "composed", "twice/" + nfd + ".md": "decomposed"} {
		if out, err := ws.read(ctx, ReadArgs{Path: name}); err != nil || !strings.Contains(out, want) {
			t.Errorf("%q: %q %v", name, out, err)
		}
	}
}
