package files

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/internal/textfile"
)

// TestReadLines: fs.read by lines, against the file split in memory: any
// file (empty lines, characters of any width, a last line with or without
// its newline), any offset from the start or the end, any limit.
func TestReadLines(t *testing.T) {
	ws := t.TempDir()
	w, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	read := toolRunner(t, w, "fs.read")
	rng := rand.New(rand.NewPCG(4, 4))
	words := []string{"", "log", "é", "中文", "😀", "ERROR: x", "a b c"}
	for round := range 400 {
		var lines []string
		for range rng.IntN(40) {
			var l strings.Builder
			for range rng.IntN(4) {
				l.WriteString(words[rng.IntN(len(words))])
			}
			lines = append(lines, l.String())
		}
		content := strings.Join(lines, "\n")
		if len(lines) > 0 && rng.IntN(2) == 0 {
			content += "\n"
		}
		// The oracle: the file's lines, a last newline ending its last line.
		lines = strings.Split(strings.TrimSuffix(content, "\n"), "\n")
		if content == "" {
			lines = nil
		}
		// Spelt in any of the forms a text file comes in.
		form := []textfile.Form{{}, {Encoding: textfile.UTF8, BOM: true}, {Encoding: textfile.UTF16LE, BOM: true}, {Encoding: textfile.UTF16BE, BOM: true}}[rng.IntN(4)]
		b, err := form.Encode(content)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "f.txt"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		offset := rng.IntN(50) - 25
		limit := rng.IntN(8)
		if offset == 0 && limit == 0 {
			limit = 1
		}
		args, _ := json.Marshal(ReadArgs{Path: "f.txt", Offset: offset, Limit: limit})
		out, err := read(args)
		var want []string
		switch {
		case offset < 0:
			want = lines[max(0, len(lines)+offset):]
		case max(offset, 1) <= len(lines):
			want = lines[max(offset, 1)-1:]
		default:
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the file has %d lines", len(lines))) {
				t.Fatalf("round %d: offset %d past %d lines: %q, %v", round, offset, len(lines), out, err)
			}
			continue
		}
		if limit > 0 && len(want) > limit {
			want = want[:limit]
		}
		if err != nil {
			t.Fatalf("round %d: offset %d limit %d of %d lines: %v", round, offset, limit, len(lines), err)
		}
		at := strings.LastIndex(out, "\n[")
		if at < 0 {
			t.Fatalf("round %d: no note in %q", round, out)
		}
		if got := out[:at]; got != strings.Join(want, "\n") {
			t.Fatalf("round %d: offset %d limit %d of %q (%v):\ngot  %q\nwant %q (%s)", round, offset, limit, content, form, got, strings.Join(want, "\n"), out[at:])
		}
		if out[at:] == "\n[the whole file]" && len(want) != len(lines) {
			t.Fatalf("round %d: %d of %d lines said to be the whole file", round, len(want), len(lines))
		}
	}
}

// TestReadLinesOfABigFile: a log larger than fs.read returns whole: its
// last lines are read from its end, a line in its middle by number, and
// reading it whole says how to read on.
func TestReadLinesOfABigFile(t *testing.T) {
	ws := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 200000; i++ {
		fmt.Fprintf(&b, "line %d of the log\n", i)
	}
	if err := os.WriteFile(filepath.Join(ws, "app.log"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	read := toolRunner(t, w, "fs.read")
	for _, c := range []struct {
		args ReadArgs
		want string
	}{
		{ReadArgs{Path: "app.log", Offset: -2}, "line 199999 of the log\nline 200000 of the log\n[the file's last 2 lines]"},
		{ReadArgs{Path: "app.log", Offset: 150000, Limit: 2}, "line 150000 of the log\nline 150001 of the log\n[lines 150000–150001; more follows: fs.read with offset 150002]"},
		{ReadArgs{Path: "app.log", Offset: -3, Limit: 1}, "line 199998 of the log\n[1 of the file's last 3 lines, from the first of them]"},
		{ReadArgs{Path: "app.log", Offset: 199999}, "line 199999 of the log\nline 200000 of the log\n[lines 199999–200000: the end of the file]"},
	} {
		args, _ := json.Marshal(c.args)
		if out, err := read(args); err != nil || out != c.want {
			t.Errorf("%+v: %q, %v", c.args, out, err)
		}
	}
	args, _ := json.Marshal(ReadArgs{Path: "app.log"})
	if _, err := read(args); err == nil || !strings.Contains(err.Error(), "offset -100") {
		t.Errorf("reading it whole: %v", err)
	}
	args, _ = json.Marshal(ReadArgs{Path: "app.log", Offset: 200001})
	if _, err := read(args); err == nil || !strings.Contains(err.Error(), "the file has 200000 lines") {
		t.Errorf("past the end: %v", err)
	}
	// One line of 3 MB (a minified bundle): its start, said so.
	if err := os.WriteFile(filepath.Join(ws, "min.js"), []byte(strings.Repeat("é", 1<<20)+"x"+strings.Repeat("a", 1<<20)+"\nend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args, _ = json.Marshal(ReadArgs{Path: "min.js", Offset: 1, Limit: 2})
	if out, err := read(args); err != nil || !strings.HasPrefix(out, "ééé") || !strings.HasSuffix(out, "[line 1 is longer than 1048576 bytes: only its start was read]") || len(out) > 1<<20+100 {
		t.Errorf("a 3 MB line: %d bytes, %v", len(out), err)
	}
	args, _ = json.Marshal(ReadArgs{Path: "min.js", Offset: 2})
	if out, err := read(args); err != nil || out != "end\n[lines 2–2: the end of the file]" {
		t.Errorf("the line after it: %q, %v", out, err)
	}
}

// toolRunner returns a runner of w's tool name.
func toolRunner(t *testing.T, w *Workspace, name string) func(json.RawMessage) (string, error) {
	t.Helper()
	for _, tl := range w.Tools() {
		if tl.Name() == name {
			return func(args json.RawMessage) (string, error) { return tl.Run(context.Background(), args) }
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}
