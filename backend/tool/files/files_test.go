package files

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/shrimp-harness/shrimp/backend/tool"
)

func TestWritePreview(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	args := func(path, content string) []byte {
		b, _ := json.Marshal(WriteArgs{Path: path, Content: content})
		return b
	}
	tests := []struct {
		name, path, content string
		want, not           []string
	}{
		{"change", "a.txt", "one\nTWO\nthree\n", []string{"--- a/a.txt", "+++ b/a.txt", "-two", "+TWO"}, nil},
		// A new file's diff adds its lines and takes none away.
		{"new file", "new.txt", "hello\n", []string{"--- /dev/null", "@@ -0,0 +1 @@", "+hello"}, []string{"\n-\n"}},
		{"emptied", "a.txt", "", []string{"@@ -1,3 +0,0 @@", "-one", "-three"}, []string{"\n+\n"}},
		{"same", "a.txt", "one\ntwo\nthree\n", []string{"no change"}, nil},
		{"outside", "../x", "x", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ws.WritePreview(context.Background(), args(tt.path, tt.content))
			if tt.want == nil && got != "" {
				t.Fatalf("preview for a refused path: %q", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Fatalf("preview %q lacks %q", got, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(got+"\n", w) {
					t.Fatalf("preview %q holds %q", got, w)
				}
			}
		})
	}
}

// TestNotRegularFiles: a FIFO, a socket and a device are refused at once
// by every file tool and by the preview; nothing waits on them.
func TestNotRegularFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	nodes := []string{"fifo", "sock"}
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err == nil {
		nodes = append(nodes, "null")
	} else {
		t.Logf("no device node test: mknod: %v (needs root)", err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	tools := map[string]tool.Tool{}
	for _, tl := range ws.Tools() {
		tools[tl.Name()] = tl
	}
	for _, n := range nodes {
		t.Run(n, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				args, _ := json.Marshal(ReadArgs{Path: n})
				if _, err := tools["fs.read"].Run(ctx, args); err == nil || !strings.Contains(err.Error(), "not a file") {
					t.Errorf("fs.read %s: %v", n, err)
				}
				wargs, _ := json.Marshal(WriteArgs{Path: n, Content: "x"})
				if _, err := tools["fs.write"].Run(ctx, wargs); err == nil || !strings.Contains(err.Error(), "not a file") {
					t.Errorf("fs.write %s: %v", n, err)
				}
				if p := ws.WritePreview(ctx, wargs); !strings.Contains(p, "no preview") {
					t.Errorf("preview of %s: %q", n, p)
				}
				sargs, _ := json.Marshal(SearchArgs{Query: "x"})
				if _, err := tools["fs.search"].Run(ctx, sargs); err != nil {
					t.Errorf("fs.search beside %s: %v", n, err)
				}
			}()
			select {
			case <-done:
			case <-ctx.Done():
				t.Fatalf("a file tool waited on %s", n)
			}
			if st, err := os.Lstat(filepath.Join(dir, n)); err != nil || st.Mode().IsRegular() {
				t.Errorf("%s was replaced: %v %v", n, st.Mode(), err)
			}
		})
	}
}

func TestWriteLinks(t *testing.T) {
	outside := t.TempDir()
	dir := t.TempDir()
	write := func(p string, content string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret"), "outside")
	if err := os.Link(filepath.Join(outside, "secret"), filepath.Join(dir, "hard")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(dir, "real.txt"), "old")
	if err := os.Symlink("real.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../real.txt", filepath.Join(dir, "sub", "up.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out.txt")); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	wr := func(p, content string) error {
		_, err := ws.write(context.Background(), WriteArgs{Path: p, Content: content})
		return err
	}
	if err := wr("hard", "x"); err == nil || !strings.Contains(err.Error(), "hard links") {
		t.Errorf("write onto a hard link: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "outside" {
		t.Errorf("the file outside changed: %q", b)
	}
	if err := wr("link.txt", "through"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(filepath.Join(dir, "link.txt")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "real.txt")); string(b) != "through" {
		t.Errorf("not written through the link: %q", b)
	}
	if st, _ := os.Stat(filepath.Join(dir, "real.txt")); st.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", st.Mode().Perm())
	}
	if err := wr("sub/up.txt", "up"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "real.txt")); string(b) != "up" {
		t.Errorf("not written through the relative link: %q", b)
	}
	if err := wr("out.txt", "x"); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("write through a link out: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "outside" {
		t.Errorf("the file outside changed: %q", b)
	}
	// Racing writes to one file: every one lands whole, no temporary file stays.
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := wr("race.txt", strings.Repeat(string(rune('a'+i)), 10000)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if b, _ := os.ReadFile(filepath.Join(dir, "race.txt")); len(b) != 10000 || strings.Count(string(b), string(b[:1])) != 10000 {
		t.Errorf("a raced write mixed contents (%d bytes)", len(b))
	}
	// A write that fails (the target is a directory) leaves nothing behind.
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := wr("adir", "x"); err == nil {
		t.Error("wrote over a directory")
	}
	_ = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, _ error) error {
		if strings.Contains(p, "shrimp-tmp") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// TestSearch: fs.search finds lines by case-insensitive substring, skips
// hidden directories and node_modules, stops after maxMatches, and shows a
// long line (minified code, data) as maxLine bytes around its match.
func TestSearch(t *testing.T) {
	dir := t.TempDir()
	minified := strings.Repeat("var a=1;", 20_000) + "NEEDLE_HERE" + strings.Repeat("b=2;", 20_000)
	files := map[string]string{
		"notes.txt":                "first line\n  the Needle is here  \nlast line\n",
		"app.min.js":               minified + "\n",
		".git/config":              "needle in a hidden dir\n",
		".github/workflows/ci.yml": "run: needle test\n",
		"node_modules/x/index.js":  "needle in node_modules\n",
		"many/lines.txt":           strings.Repeat("needle again\n", 300),
		"unicode.txt":              strings.Repeat("é", 400) + "needle" + strings.Repeat("ü", 400) + "\n",
		// A line over the scan limit (a bundle, a data dump) is searched
		// in its first MiB, and the lines after it still are.
		"bundle.js": strings.Repeat("x", 3<<20) + "PIN_FAR\n" + strings.Repeat("y", 1000) + "PIN_NEAR\nPIN_AFTER\n",
	}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var search tool.Tool
	for _, tl := range ws.Tools() {
		if tl.Name() == "fs.search" {
			search = tl
		}
	}
	run := func(query, path string) (string, error) {
		args, _ := json.Marshal(SearchArgs{Query: query, Path: path})
		return search.Run(context.Background(), args)
	}
	tests := []struct {
		name, query, path string
		want              []string // substrings of the output
		lines             int      // output lines (0: not checked)
		longest           int      // most bytes in a line (0: not checked)
	}{
		{"case-insensitive, trimmed", "needle is", "", []string{"notes.txt:2: the Needle is here\n[not searched: .github, node_modules"}, 2, 0},
		{"a long line around its match", "needle_here", "app.min.js", []string{"app.min.js:1: …", "var a=1;NEEDLE_HEREb=2;"}, 1, len("app.min.js:1: ") + maxLine + 2*len("…")},
		{"a long line of other scripts stays valid UTF-8", "needle", "unicode.txt", []string{"unicode.txt:1: …", "needle"}, 1, len("unicode.txt:1: ") + maxLine + 2*len("…")},
		{"hidden dirs and node_modules skipped and named, capped", "needle", "", []string{"[stopped after 200 matches", "\n[not searched: .github (hidden folders and dependencies); give one as path to search it]"}, maxMatches + 2, 0},
		{"nothing, and where it did not look", "haystack", "", []string{`no lines contain "haystack"` + "\n[not searched: .github, node_modules"}, 2, 0},
		{"a skipped folder given as path", "needle", ".github", []string{".github/workflows/ci.yml:1: run: needle test"}, 1, 0},
		{"nothing skipped, nothing said", "haystack", "many", []string{`no lines contain "haystack"`}, 1, 0},
		{"the lines after a 3 MiB line", "pin_", "bundle.js", []string{"bundle.js:2: …", "PIN_NEAR", "bundle.js:3: PIN_AFTER"}, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(tt.query, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%.400s", w, out)
				}
			}
			if strings.Contains(out, ".git/") || strings.Contains(out, "\nnode_modules/") || tt.path == "" && strings.Contains(out, "\n.github/") {
				t.Errorf("searched a skipped directory:\n%.400s", out)
			}
			lines := strings.Split(out, "\n")
			if tt.lines > 0 && len(lines) != tt.lines {
				t.Errorf("%d lines, want %d", len(lines), tt.lines)
			}
			for _, l := range lines {
				if tt.longest > 0 && len(l) > tt.longest || !utf8.ValidString(l) {
					t.Errorf("line of %d bytes (at most %d), valid UTF-8 %v", len(l), tt.longest, utf8.ValidString(l))
				}
			}
		})
	}
	if _, err := run("", ""); err == nil {
		t.Error("an empty query was searched")
	}
}

// TestReadRefusesBinary: fs.read of an image, an archive or an executable
// says what the file is instead of handing the model its bytes; text,
// UTF-16 with its byte-order mark and an empty file are read.
func TestReadRefusesBinary(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"logo.png":   append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...),
		"a.zip":      append([]byte("PK\x03\x04\x14\x00\x00\x00"), make([]byte, 64)...),
		"prog":       append([]byte("\x7fELF\x02\x01\x01\x00"), make([]byte, 64)...),
		"notes.txt":  []byte("buy shrimp\n"),
		"utf16.txt":  {0xff, 0xfe, 'h', 0, 'i', 0},
		"empty.txt":  {},
		"unicode.md": []byte("naïve café — 日本\n"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for name, want := range map[string]string{"logo.png": "image/png", "a.zip": "application/zip", "prog": "binary data"} {
		out, err := ws.read(context.Background(), ReadArgs{Path: name})
		if err == nil || !strings.Contains(err.Error(), "is not a text file ("+want) || out != "" {
			t.Errorf("%s: %q, %v; want an error naming %s", name, out, err, want)
		}
	}
	for name, want := range map[string]string{"notes.txt": "buy shrimp\n", "utf16.txt": "hi", "empty.txt": "", "unicode.md": "naïve café — 日本\n"} {
		if out, err := ws.read(context.Background(), ReadArgs{Path: name}); err != nil || out != want {
			t.Errorf("%s: %q, %v; want %q", name, out, err, want)
		}
	}
}

// TestSearchNamesBinaryMatches: like grep, a match inside a binary file is
// named, not shown as bytes.
func TestSearchNamesBinaryMatches(t *testing.T) {
	dir := t.TempDir()
	bin := append([]byte("\x7fELF\x02\x01\x01\x00"), make([]byte, 64)...)
	bin = append(bin, []byte("\xff\xfe needle \x01\x02\n needle again")...)
	if err := os.WriteFile(filepath.Join(dir, "prog"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("a needle here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	out, err := ws.search(context.Background(), SearchArgs{Query: "needle"})
	if err != nil || out != "notes.txt:1: a needle here\nprog: holds it (binary data, not shown)" {
		t.Fatalf("search = %q, %v", out, err)
	}
}

// TestSearchShowsTheMatch: on a long line the part shown holds the match,
// whatever lower-casing does to the text's length before it (Turkish İ,
// the Kelvin sign, invalid bytes), against the line split in memory.
func TestSearchShowsTheMatch(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := rand.New(rand.NewPCG(3, 27))
	fillers := []string{"İ", "K", "\xff", "ß", "Ω", "a", " ", "ǅ"}
	for i := range 200 {
		var b strings.Builder
		filler := fillers[r.IntN(len(fillers))] // one kind per line: its drift adds up
		for range r.IntN(600) {
			if r.IntN(4) == 0 {
				b.WriteString("a")
			} else {
				b.WriteString(filler)
			}
		}
		line := b.String() + "NeedleX" + strings.Repeat("z", r.IntN(400))
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := w.search(context.Background(), SearchArgs{Path: "f.txt", Query: "needlex"})
		if err != nil || !strings.Contains(out, "NeedleX") {
			t.Fatalf("case %d (%d bytes before the match): %v\n%q", i, len(line)-len("NeedleX"), err, out)
		}
	}
}

// TestTildeIsNotAFolderName: a model that writes ~/notes.txt is told file
// tools do not expand ~, and no folder named ~ appears in the workspace.
func TestTildeIsNotAFolderName(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, tc := range []struct{ tool, args string }{
		{"fs.write", `{"path": "~/notes.txt", "content": "x"}`},
		{"fs.read", `{"path": "~/.bashrc"}`},
		{"fs.list", `{"path": "~"}`},
		{"fs.edit", `{"path": "~/a", "old": "a", "new": "b"}`},
	} {
		_, err := toolRunner(t, w, tc.tool)(json.RawMessage(tc.args))
		if err == nil || !strings.Contains(err.Error(), "do not expand") {
			t.Errorf("%s %s: %v", tc.tool, tc.args, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "~")); err == nil {
		t.Fatal("a folder named ~ was made")
	}
	// A name that only starts with ~ is a name.
	if out, err := toolRunner(t, w, "fs.write")(json.RawMessage(`{"path": "~draft.txt", "content": "x"}`)); err != nil || out != "wrote 1 byte to ~draft.txt" {
		t.Fatalf("%q %v", out, err)
	}
}

// TestListAFile: fs.list of a file (or of a path through one) says it is a
// file and which tool reads it, without the machine's path or the
// system's error words.
func TestListAFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, p := range []string{"notes.txt", "notes.txt/inner"} {
		args, _ := json.Marshal(ListArgs{Path: p})
		_, err := toolRunner(t, w, "fs.list")(args)
		if err == nil || !strings.Contains(err.Error(), p+" is a file, not a folder") || !strings.Contains(err.Error(), "fs.read") || strings.Contains(err.Error(), dir) {
			t.Errorf("fs.list %s: %v", p, err)
		}
	}
}

// TestVetBeforeAsking: a call whose path is outside the workspace as
// written is refused by the registry's Check, before anyone is asked
// about it; paths inside (and ones only a link leads out of, which the
// run refuses) pass.
func TestVetBeforeAsking(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := tool.NewRegistry(w.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool, args, err string
	}{
		{"fs.write", `{"path": "../outside.txt", "content": "x"}`, `invalid arguments for fs.write: path "../outside.txt" is outside the workspace`},
		{"fs.edit", `{"path": "/etc/hosts", "old": "a", "new": "b"}`, `path "/etc/hosts" is outside the workspace`},
		{"fs.read", `{"path": "a/../../b"}`, "is outside the workspace"},
		{"fs.list", `{"path": "~"}`, "do not expand"},
		{"fs.search", `{"query": "x", "path": ".."}`, "is outside the workspace"},
		{"fs.write", `{"path": "sub/ok.txt", "content": "x"}`, ""},
		{"fs.read", `{"path": "` + filepath.Join(dir, "a.txt") + `"}`, ""},
		{"fs.list", `{}`, ""},
		{"fs.write", `{"path": "link-out/x", "content": "x"}`, ""}, // only the run can tell
	} {
		err := r.Check(tc.tool, json.RawMessage(tc.args))
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s %s: %v, want %q", tc.tool, tc.args, err, tc.err)
		}
	}
}

// TestNotSearched: the skipped folders are named, five at most (what
// .gitignore leaves out: TestSearchHonoursGitignore).
func TestNotSearched(t *testing.T) {
	for _, tt := range []struct {
		skipped []string
		want    string
	}{
		{nil, ""},
		{[]string{".github"}, "\n[not searched: .github (hidden folders and dependencies); give one as path to search it]"},
		{[]string{"a/.x", "b/.x", "c/.x", "d/.x", "e/.x", "f/.x", "g/.x"}, "\n[not searched: a/.x, b/.x, c/.x, d/.x, e/.x and 2 more (hidden folders and dependencies); give one as path to search it]"},
	} {
		if got := notSearched(tt.skipped, nil); got != tt.want {
			t.Errorf("notSearched(%v) = %q, want %q", tt.skipped, got, tt.want)
		}
	}
}

// TestListCapsAndMatches: a folder of thousands of files lists its first
// maxListed entries by name and says how many there are and how to see
// others; a name pattern lists only the names it matches; a broken
// pattern says how patterns are written.
func TestListCapsAndMatches(t *testing.T) {
	dir := t.TempDir()
	for i := range 2500 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("row-%04d.json", i)), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"README.md", "main.go", "main_test.go"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	list := toolRunner(t, ws, "fs.list")
	out, err := list(json.RawMessage(`{}`))
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) != maxListed+1 || lines[0] != "README.md (0 bytes)" ||
		lines[maxListed] != "[the first 1000 of 2504 entries (1 folder, 2503 files), by name; give a pattern such as *.json, or list a folder, to see others]" {
		t.Errorf("a folder of 2,504 entries: %d lines, first %q, last %q, %v", len(lines), lines[0], lines[len(lines)-1], err)
	}
	for pattern, want := range map[string]string{
		"main*.go":     "main.go (0 bytes)\nmain_test.go (0 bytes)\n",
		"*_test.go":    "main_test.go (0 bytes)\n",
		"d?cs":         "docs/\n",
		"row-249[89]*": "row-2498.json (2 bytes)\nrow-2499.json (2 bytes)\n",
		"*.rs":         `(no names match "*.rs" among 2504 entries)`,
	} {
		args, _ := json.Marshal(ListArgs{Pattern: pattern})
		if out, err := list(args); err != nil || out != want {
			t.Errorf("pattern %q: %q, %v; want %q", pattern, out, err, want)
		}
	}
	if _, err := list(json.RawMessage(`{"pattern": "[abc"}`)); err == nil || !strings.Contains(err.Error(), "as in *.go") {
		t.Errorf("a broken pattern: %v", err)
	}
}

// TestSearchHonoursGitignore: fs.search leaves out what the project's
// .gitignore files leave out (build output, logs, a virtualenv by another
// name), as ripgrep does, and says so; a path given names what to search,
// ignored or not; a pattern a deeper file re-includes is searched.
func TestSearchHonoursGitignore(t *testing.T) {
	ws, _ := workspace(t, map[string]string{
		".gitignore":           "target/\n*.log\n/env/\n",
		"src/main.rs":          "fn main() { needle(); }\n",
		"src/.gitignore":       "!keep.log\ngenerated.rs\n",
		"src/keep.log":         "needle kept\n",
		"src/generated.rs":     "needle generated\n",
		"target/debug/out.rs":  "needle built\n",
		"crates/a/target/x.rs": "needle built deeper\n",
		"app.log":              "needle logged\n",
		"env/lib/site.py":      "needle installed\n",
		"vendor/dep/dep.go":    "needle vendored\n",
		".git/info/exclude":    "scratch.txt\n",
		"scratch.txt":          "needle scratch\n",
		"docs/guide.md":        "the needle in the guide\n",
	})
	out, err := ws.search(context.Background(), SearchArgs{Query: "needle"})
	want := "docs/guide.md:1: the needle in the guide\nsrc/keep.log:1: needle kept\nsrc/main.rs:1: fn main() { needle(); }\n" +
		"[not searched: vendor (hidden folders and dependencies); app.log, crates/a/target, env, scratch.txt, src/generated.rs and 1 more (.gitignore leaves out); give one as path to search it]"
	if err != nil || out != want {
		t.Errorf("fs.search:\n%s\n%v\nwant\n%s", out, err, want)
	}
	out, err = ws.search(context.Background(), SearchArgs{Query: "needle", Path: "target"})
	if err != nil || out != "target/debug/out.rs:1: needle built" {
		t.Errorf("an ignored folder given as path: %q, %v", out, err)
	}
}

// TestSearchInAPackageOfALargerRepository: a workspace that is one
// package of a monorepo is searched as git sees it: the repository's
// .gitignore above the workspace, its info/exclude and the user's global
// excludes file leave their files out, and the output names them.
func TestSearchInAPackageOfALargerRepository(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	writeFiles(t, home, map[string]string{".config/git/ignore": "*.swp\n"})
	_, mono := workspace(t, map[string]string{
		".git/HEAD":                   "ref: refs/heads/main\n",
		".git/info/exclude":           "scratch/\n",
		".gitignore":                  "dist/\n*.log\n",
		"packages/api/src/server.ts":  "const needle = 1\n",
		"packages/api/dist/server.js": "var needle = 1\n",
		"packages/api/debug.log":      "needle at start\n",
		"packages/api/.server.ts.swp": "needle swapped\n",
		"packages/api/scratch/try.ts": "needle tried\n",
		"packages/api/README.md":      "where the needle is\n",
	})
	ws, err := Open(filepath.Join(mono, "packages", "api"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	out, err := ws.search(context.Background(), SearchArgs{Query: "needle"})
	want := "README.md:1: where the needle is\nsrc/server.ts:1: const needle = 1\n" +
		"[not searched: .server.ts.swp, debug.log, dist, scratch (.gitignore leaves out); give one as path to search it]"
	if err != nil || out != want {
		t.Errorf("fs.search:\n%s\n%v\nwant\n%s", out, err, want)
	}
}

// TestSearchReadsARegexpWhenNothingMatches: a query written for a grep
// that reads regular expressions (TODO|FIXME, func\s+main) finds nothing
// as written, and is then read as one (case-insensitive), saying so; a
// query found as written is never read so, and a broken expression is
// only a query.
func TestSearchReadsARegexpWhenNothingMatches(t *testing.T) {
	ws, _ := workspace(t, map[string]string{
		"a.go":    "package a\n\nfunc  main() {}\n// TODO: tidy\n",
		"b.go":    "// fixme later\nx := f(1) + g(2)\n",
		"c.txt":   "a|b is not a pipe here\n",
		"lit.txt": "call f(1) + g(2) twice\n",
	})
	ctx := context.Background()
	for _, tc := range []struct {
		query, want string
	}{
		{`TODO|FIXME`, "[no line holds \"TODO|FIXME\" as written; read as a regular expression, it matches:]\na.go:4: // TODO: tidy\nb.go:1: // fixme later"},
		{`func\s+main`, "[no line holds \"func\\\\s+main\" as written; read as a regular expression, it matches:]\na.go:3: func  main() {}"},
		{`a|b`, "c.txt:1: a|b is not a pipe here"},
		{`f(1) + g(2)`, "b.go:2: x := f(1) + g(2)\nlit.txt:1: call f(1) + g(2) twice"},
		{`(unclosed`, `no lines contain "(unclosed"`},
		{`nowhere|none`, `no lines contain "nowhere|none"`},
	} {
		if out, err := ws.search(ctx, SearchArgs{Query: tc.query}); err != nil || out != tc.want {
			t.Errorf("%s:\n%s\n%v\nwant\n%s", tc.query, out, err, tc.want)
		}
	}
}
