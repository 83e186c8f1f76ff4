package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEdit(t *testing.T) {
	tests := []struct {
		name    string
		file    string // "" for no file
		args    EditArgs
		want    string // the file after; the same as before when wantErr
		wantOut string
		wantErr string
	}{
		{"one occurrence", "a\nb := 1\nc\n", EditArgs{Old: "b := 1", New: "b := 2"}, "a\nb := 2\nc\n", "replaced 1 occurrence", ""},
		{"across lines", "func f() {\n\treturn 1\n}\n", EditArgs{Old: "{\n\treturn 1\n}", New: "{\n\treturn 2\n}"}, "func f() {\n\treturn 2\n}\n", "replaced 1", ""},
		{"every occurrence", "x x x", EditArgs{Old: "x", New: "y", All: true}, "y y y", "replaced 3 occurrences", ""},
		{"to nothing", "keep drop keep", EditArgs{Old: " drop", New: ""}, "keep keep", "replaced 1", ""},
		{"several without all", "x x", EditArgs{Old: "x", New: "y"}, "x x", "", "occurs 2 times"},
		{"not there", "abc", EditArgs{Old: "abd", New: "x"}, "abc", "", "not in f.txt: read the file again"},
		{"spaces count", "a  b", EditArgs{Old: "a b", New: "x"}, "a  b", "", "not in"},
		{"empty old", "abc", EditArgs{Old: "", New: "x"}, "abc", "", "old is empty"},
		{"no file", "", EditArgs{Old: "a", New: "b"}, "", "", "does not exist: fs.edit changes a file; fs.write creates one"},
		{"not text", "a\x00b", EditArgs{Old: "a", New: "b"}, "a\x00b", "", "not a text file"},
		{"windows line endings", "a\r\nb\r\nc\r\n", EditArgs{Old: "a\nb\n", New: "a\nB\nb2\n"}, "a\r\nB\r\nb2\r\nc\r\n", "replaced 1", ""},
		{"windows line endings, several", "x\r\ny\r\nx\r\ny\r\n", EditArgs{Old: "x\ny", New: "z"}, "x\r\ny\r\nx\r\ny\r\n", "", "occurs 2 times"},
		{"a lone line ending is exact", "a\nb\r\n", EditArgs{Old: "a\nb", New: "c"}, "c\r\n", "replaced 1", ""},
		{"indentation lost by the model", "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", EditArgs{Old: "if x {\n\treturn 1\n}", New: "if x {\n\treturn 2\n}"},
			"func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n", "matched with indentation ignored", ""},
		// A model that escaped its text once too often: "\\n" in the
		// call's JSON, so a backslash and an n where it meant a line break.
		{"escaped once too often", "def f():\n    return \"a\"\n", EditArgs{Old: `def f():\n    return \"a\"`, New: `def f():\n    return \"b\"\n\ndef g():\n\tpass`},
			"def f():\n    return \"b\"\n\ndef g():\n\tpass\n", `matched with its \n, \t and \" escapes read`, ""},
		{"escaped, and its spacing off", "a:   \n  b: 1\n", EditArgs{Old: `a:\n  b: 1`, New: `a:\n  b: 2`}, "a:\n  b: 2\n", "trailing blanks ignored, and its \\n", ""},
		{"escaped, every occurrence", "x\ny\nx\ny\n", EditArgs{Old: `x\ny`, New: `z`, All: true}, "z\nz\n", "replaced 2 occurrences in f.txt (the old text was not there exactly", ""},
		// A line of code with a "\n" of its own is matched as written.
		{"a \\n of its own", "print(\"a\\nb\")\nprint(1)\n", EditArgs{Old: `print("a\nb")`, New: `print("a\nc")`}, "print(\"a\\nc\")\nprint(1)\n", "replaced 1 occurrence in f.txt", ""},
		{"the new text is the old", "a b\n", EditArgs{Old: "a", New: "a"}, "a b\n", "", "nothing changed: the new text is the old text"},
		{"a new text with a \\n of its own", "s := \"a\"\n", EditArgs{Old: `s := "a"`, New: `s := "a\nb"`}, "s := \"a\\nb\"\n", "replaced 1", ""},
		{"escapes that match nothing", "a\nb\n", EditArgs{Old: `a\nc`, New: "x"}, "a\nb\n", "", "not in f.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			path := filepath.Join(ws, "f.txt")
			if tt.file != "" {
				if err := os.WriteFile(path, []byte(tt.file), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			w, err := Open(ws)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			tt.args.Path = "f.txt"
			raw, _ := json.Marshal(tt.args)
			preview := w.EditPreview(context.Background(), raw)
			out, err := toolRunner(t, w, "fs.edit")(raw)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(preview, tt.wantErr) {
					t.Fatalf("error %v, preview %q; want %q", err, preview, tt.wantErr)
				}
			} else if err != nil || !strings.Contains(out, tt.wantOut) || !strings.HasPrefix(preview, "--- a/f.txt\n+++ b/f.txt\n") {
				t.Fatalf("out %q, err %v, preview %q", out, err, preview)
			}
			b, err := os.ReadFile(path)
			if tt.file == "" {
				if !os.IsNotExist(err) {
					t.Fatalf("an edit created the file: %v", err)
				}
				return
			}
			if string(b) != tt.want {
				t.Fatalf("file %q, want %q", b, tt.want)
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
				t.Fatalf("mode %v after the edit", st.Mode().Perm())
			}
		})
	}
}

// TestEditKeepsLineBreaks: an edit whose old text ends (or starts) with
// a line break and whose new text lacks it keeps the break, saying so,
// rather than joining two lines; a deletion and a new text with its
// break are made as given.
func TestEditKeepsLineBreaks(t *testing.T) {
	for _, c := range []struct {
		name, file, old, new, want, said string
	}{
		{"a line replaced without its break", "a\nb\nc\n", "b\n", "B", "a\nB\nc\n", "ended with was kept"},
		{"a break at the start", "a\nb\nc\n", "\nb", "B", "a\nB\nc\n", "started with was kept"},
		{"Windows line endings", "a\r\nb\r\nc\r\n", "b\r\n", "B", "a\r\nB\r\nc\r\n", "ended with"},
		{"with its break", "a\nb\nc\n", "b\n", "B\n", "a\nB\nc\n", ""},
		{"a deletion", "a\nb\nc\n", "b\n", "", "a\nc\n", ""},
		{"within a line", "a\nbb\nc\n", "bb", "B", "a\nB\nc\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, dir := workspace(t, map[string]string{"f.txt": c.file})
			out, err := ws.edit(context.Background(), EditArgs{Path: "f.txt", Old: c.old, New: c.new})
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(b) != c.want {
				t.Errorf("the file holds %q, want %q", b, c.want)
			}
			if c.said == "" && strings.Contains(out, "was kept") || c.said != "" && !strings.Contains(out, c.said) {
				t.Errorf("said %q", out)
			}
		})
	}
}
