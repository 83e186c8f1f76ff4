package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecipeTabs: a makefile's recipe lines indented with spaces get the
// tab make needs; what is not a recipe line is left as written.
func TestRecipeTabs(t *testing.T) {
	for _, c := range []struct {
		name, path, in, want string
		changed              int
	}{
		{"recipes with spaces", "Makefile",
			"CC = gcc\n\nall: app\n\napp: main.o\n    $(CC) -o app main.o\n    @echo built\n\nclean:\n  rm -f app *.o\n",
			"CC = gcc\n\nall: app\n\napp: main.o\n\t$(CC) -o app main.o\n\t@echo built\n\nclean:\n\trm -f app *.o\n", 3},
		{"tabs already", "Makefile", "test:\n\tgo test ./...\n", "test:\n\tgo test ./...\n", 0},
		{"a continued line keeps its spaces", "build.mk",
			"deps:\n    npm ci && \\\n      npm run build\n",
			"deps:\n\tnpm ci && \\\n      npm run build\n", 1},
		{"assignments are not rules", "Makefile",
			"FLAGS := -O2 \\\n    -Wall\nX ::= y\n    indented = 1\n",
			"FLAGS := -O2 \\\n    -Wall\nX ::= y\n    indented = 1\n", 0},
		{"directives and comments within a rule", "Makefile",
			"run:\n  ifeq ($(OS),Linux)\n    ./run.sh\n  endif\n    # a note\n",
			"run:\n  ifeq ($(OS),Linux)\n\t./run.sh\n  endif\n    # a note\n", 1},
		{"define blocks", "Makefile",
			"define HELP\n    usage: make run\nendef\nrun:\n    ./run\n",
			"define HELP\n    usage: make run\nendef\nrun:\n\t./run\n", 1},
		{"another recipe prefix", "Makefile", ".RECIPEPREFIX = >\nall:\n    > echo\n", ".RECIPEPREFIX = >\nall:\n    > echo\n", 0},
		{"not a makefile", "notes.txt", "all:\n    echo\n", "all:\n    echo\n", 0},
		{"windows line endings", "Makefile", "all:\r\n    echo hi\r\n", "all:\r\n\techo hi\r\n", 1},
		{"a rule with a target-specific variable", "Makefile", "debug: CFLAGS += -g\ndebug:\n    make app\n", "debug: CFLAGS += -g\ndebug:\n\tmake app\n", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, n := recipeTabs(c.path, c.in)
			if got != c.want || n != c.changed {
				t.Errorf("got %q (%d), want %q (%d)", got, n, c.want, c.changed)
			}
		})
	}
}

// TestWriteMakefile: fs.write of a makefile whose recipes a model
// indented with spaces writes what make can run, says so, and the
// approval preview shows it.
func TestWriteMakefile(t *testing.T) {
	ws, dir := workspace(t, nil)
	content := "build:\n    go build ./...\n"
	args, _ := json.Marshal(WriteArgs{Path: "Makefile", Content: content})
	if p := ws.WritePreview(context.Background(), args); !strings.Contains(p, "+\tgo build") {
		t.Errorf("the preview: %q", p)
	}
	out, err := ws.write(context.Background(), WriteArgs{Path: "Makefile", Content: content})
	if err != nil || !strings.Contains(out, "1 recipe line of a rule began with spaces") {
		t.Fatalf("%q %v", out, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Makefile")); string(b) != "build:\n\tgo build ./...\n" {
		t.Errorf("the Makefile holds %q", b)
	}
}

// TestEditMakefile: fs.edit's new recipe lines get their tab; a line the
// makefile already had with spaces is the user's, left as it is.
func TestEditMakefile(t *testing.T) {
	ws, dir := workspace(t, map[string]string{"Makefile": "legacy:\n    ./old.sh\n\ntest:\n\tgo test ./...\n"})
	out, err := ws.edit(context.Background(), EditArgs{Path: "Makefile", Old: "\tgo test ./...\n", New: "\tgo test ./...\n\nlint:\n    go vet ./...\n"})
	if err != nil || !strings.Contains(out, "1 recipe line of a rule began with spaces") {
		t.Fatalf("%q %v", out, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Makefile")); string(b) != "legacy:\n    ./old.sh\n\ntest:\n\tgo test ./...\n\nlint:\n\tgo vet ./...\n" {
		t.Errorf("the Makefile holds %q", b)
	}
}

// TestFinalLineBreakKept: a write that drops the line break the file's
// last line had keeps it (CRLF files get theirs), so nothing but what
// changed shows as changed; a new file, and an emptied one, are written
// as given.
func TestFinalLineBreakKept(t *testing.T) {
	ws, dir := workspace(t, map[string]string{"a.go": "package a\n", "win.txt": "one\r\ntwo\r\n", "bare.txt": "no end"})
	ctx := context.Background()
	for _, c := range []struct{ path, content, want string }{
		{"a.go", "package a\n\nfunc A() {}", "package a\n\nfunc A() {}\n"},
		{"win.txt", "one\ntwo\nthree", "one\r\ntwo\r\nthree\r\n"},
		{"bare.txt", "still no end", "still no end"},
		{"new.txt", "no end", "no end"},
	} {
		if _, err := ws.write(ctx, WriteArgs{Path: c.path, Content: c.content}); err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, c.path)); string(b) != c.want {
			t.Errorf("%s holds %q, want %q", c.path, b, c.want)
		}
	}
	out, err := ws.write(ctx, WriteArgs{Path: "a.go", Content: "package a\n\nfunc A() {}"})
	if err != nil || !strings.Contains(out, "already holds exactly this content") {
		t.Errorf("the same write again: %q %v", out, err)
	}
}
