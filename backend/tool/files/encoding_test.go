package files

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/internal/textfile"
)

// utf16le spells s as Windows PowerShell's `>` and Notepad's "Unicode"
// save it: UTF-16LE after a byte-order mark (package textfile's own tests
// check its spelling byte by byte).
func utf16le(s string) []byte {
	b, _ := textfile.Form{Encoding: textfile.UTF16LE, BOM: true}.Encode(s)
	return b
}

// TestOtherEncodings: a file Windows wrote in UTF-16, Windows-1252 or
// UTF-8 with a byte-order mark is read, searched and previewed as the
// text it is, and an edit or a write keeps its encoding, byte-order mark
// and CRLF line endings, every byte it did not change included. A
// character a legacy file cannot hold is refused by name, and the file
// is left as it was.
func TestOtherEncodings(t *testing.T) {
	ctx := context.Background()
	listing := "Name          Length\r\n----          ------\r\nrapport.docx  12034\r\nbudget.xlsx   5512\r\n"
	csv := "Pr\xe9nom;Ville;Montant\r\nRen\xe9e;Orl\xe9ans;12 \x80\r\nJos\xe9;S\xe8te;7 \x80\r\n"
	tests := []struct {
		name    string
		file    []byte
		read    string // fs.read's text
		search  string // a query and the line it finds
		line    string
		edit    EditArgs
		after   []byte // the file after the edit
		write   string // fs.write's content
		written []byte // the file after it
		said    string // in fs.write's result
	}{
		{
			name: "UTF-16LE from PowerShell", file: utf16le(listing), read: listing,
			search: "RAPPORT", line: "x:3: rapport.docx  12034",
			edit:  EditArgs{Old: "budget.xlsx   5512", New: "budget.xlsx   5513\nnotes — été.txt 3"},
			after: utf16le(strings.Replace(listing, "budget.xlsx   5512", "budget.xlsx   5513\r\nnotes — été.txt 3", 1)),
			write: "a\nb\n", written: utf16le("a\r\nb\r\n"), said: "(UTF-16LE with a byte-order mark, CRLF line endings, as the file was)",
		},
		{
			name: "Windows-1252 from Excel", file: []byte(csv), read: "Prénom;Ville;Montant\r\nRenée;Orléans;12 €\r\nJosé;Sète;7 €\r\n",
			search: "orléans", line: "x:2: Renée;Orléans;12 €",
			edit:  EditArgs{Old: "José;Sète;7 €", New: "Zoë;Saint-Étienne;9 €"},
			after: []byte(strings.Replace(csv, "Jos\xe9;S\xe8te;7 \x80", "Zo\xeb;Saint-\xc9tienne;9 \x80", 1)),
			write: "Nom\nZoë\n", written: []byte("Nom\r\nZo\xeb\r\n"), said: "(Windows-1252, CRLF line endings, as the file was)",
		},
		{
			name: "UTF-8 with a byte-order mark", file: []byte("\xef\xbb\xbfkey,value\nköln,1\n"), read: "key,value\nköln,1\n",
			search: "KÖLN", line: "x:2: köln,1",
			edit:  EditArgs{Old: "köln,1", New: "köln,2"},
			after: []byte("\xef\xbb\xbfkey,value\nköln,2\n"),
			write: "\ufeffa\n", written: []byte("\xef\xbb\xbfa\n"), said: "(UTF-8 with a byte-order mark, as the file was)",
		},
		{
			name: "CRLF in UTF-8", file: []byte("one\r\ntwo\r\n"), read: "one\r\ntwo\r\n",
			search: "two", line: "x:2: two",
			edit:  EditArgs{Old: "two", New: "2\n3"},
			after: []byte("one\r\n2\r\n3\r\n"),
			write: "x\ny\n", written: []byte("x\r\ny\r\n"), said: "(UTF-8, CRLF line endings, as the file was)",
		},
		{
			name: "plain UTF-8 stays as written", file: []byte("a\nb\n"), read: "a\nb\n",
			search: "b", line: "x:2: b",
			edit:  EditArgs{Old: "b", New: "c\r\nd"},
			after: []byte("a\nc\r\nd\n"),
			write: "é\r\n", written: []byte("é\r\n"), said: "wrote 4 bytes to x",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "x")
			if err := os.WriteFile(file, tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			ws, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			if out, err := ws.read(ctx, ReadArgs{Path: "x"}); err != nil || out != tc.read {
				t.Errorf("fs.read: %q, %v; want %q", out, err, tc.read)
			}
			lines := strings.Split(strings.TrimSuffix(tc.read, "\n"), "\n")
			if out, err := ws.read(ctx, ReadArgs{Path: "x", Offset: 2, Limit: 1}); err != nil || !strings.HasPrefix(out, lines[1]+"\n[lines 2–2") {
				t.Errorf("fs.read of line 2: %q, %v; want %q first", out, err, lines[1])
			}
			if out, err := ws.read(ctx, ReadArgs{Path: "x", Offset: -1}); err != nil || out != lines[len(lines)-1]+"\n[the file's last 1 lines]" {
				t.Errorf("fs.read of the last line: %q, %v; want %q first", out, err, lines[len(lines)-1])
			}
			if out, err := ws.search(ctx, SearchArgs{Query: tc.search}); err != nil || out != tc.line {
				t.Errorf("fs.search %q: %q, %v; want %q", tc.search, out, err, tc.line)
			}
			tc.edit.Path = "x"
			args, _ := json.Marshal(tc.edit)
			want := strings.ReplaceAll(strings.ReplaceAll(tc.edit.New, "\r\n", "\n"), "\n", "\n+")
			if preview := ws.EditPreview(ctx, args); !strings.Contains(preview, "\n+"+strings.ReplaceAll(want, "\n+", "\r\n+")) && !strings.Contains(preview, "\n+"+want) {
				t.Errorf("edit preview shows no %q as text:\n%s", tc.edit.New, preview)
			}
			if _, err := ws.edit(ctx, tc.edit); err != nil {
				t.Fatalf("fs.edit: %v", err)
			}
			if got, _ := os.ReadFile(file); !bytes.Equal(got, tc.after) {
				t.Errorf("after fs.edit:\n% x\nwant\n% x", got, tc.after)
			}
			out, err := ws.write(ctx, WriteArgs{Path: "x", Content: tc.write})
			if err != nil || !strings.Contains(out, tc.said) || !strings.Contains(out, fmt.Sprintf("wrote %d bytes", len(tc.written))) {
				t.Errorf("fs.write: %q, %v; want %q and its %d bytes", out, err, tc.said, len(tc.written))
			}
			if got, _ := os.ReadFile(file); !bytes.Equal(got, tc.written) {
				t.Errorf("after fs.write:\n% x\nwant\n% x", got, tc.written)
			}
		})
	}
}

// TestLegacyFileRefusesWhatItCannotHold: a Windows-1252 file given "→"
// or "✓" is left as it was, and the refusal (and the dialog's preview)
// names the characters and what to do.
func TestLegacyFileRefusesWhatItCannotHold(t *testing.T) {
	ctx := context.Background()
	before := []byte("caf\xe9 cr\xe8me\n")
	ws, dir := workspace(t, map[string]string{"menu.txt": string(before)})
	edit := EditArgs{Path: "menu.txt", Old: "café", New: "café → thé ✓"}
	write := WriteArgs{Path: "menu.txt", Content: "✓ done\n"}
	_, editErr := ws.edit(ctx, edit)
	_, writeErr := ws.write(ctx, write)
	ea, _ := json.Marshal(edit)
	wa, _ := json.Marshal(write)
	for name, said := range map[string]string{
		"fs.edit": fmt.Sprint(editErr), "fs.write": fmt.Sprint(writeErr),
		"edit preview": ws.EditPreview(ctx, ea), "write preview": ws.WritePreview(ctx, wa),
	} {
		for _, part := range []string{"menu.txt was not written", "Windows-1252 has no", "'✓' (U+2713)", "iconv -f WINDOWS-1252 -t UTF-8"} {
			if !strings.Contains(said, part) {
				t.Errorf("%s: %q lacks %q", name, said, part)
			}
		}
	}
	if !strings.Contains(fmt.Sprint(editErr), "'→' (U+2192)") {
		t.Errorf("fs.edit's refusal names only some characters: %v", editErr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "menu.txt")); !bytes.Equal(got, before) {
		t.Errorf("the file changed: %q", got)
	}
}

// TestLargeUTF16: the start of a UTF-16 file past what fs.read returns
// reads as whole characters, and its last lines are read back from its
// end across the reads that gather them.
func TestLargeUTF16(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var text strings.Builder
	for i := 1; text.Len() < 700<<10; i++ { // past maxRead once spelt in UTF-16
		fmt.Fprintf(&text, "ligne %d — été\r\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "log.txt"), utf16le(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	out, err := ws.read(ctx, ReadArgs{Path: "log.txt"})
	if err == nil || !strings.Contains(err.Error(), "larger than") || !strings.HasPrefix(out, "ligne 1 — été\r\nligne 2 —") || strings.ContainsRune(out, '\ufffd') {
		t.Errorf("the start of a large UTF-16 file: %.60q…, %v", out, err)
	}
	all := strings.Split(strings.TrimSuffix(text.String(), "\r\n"), "\r\n")
	out, err = ws.read(ctx, ReadArgs{Path: "log.txt", Offset: -5000})
	got := strings.Split(strings.TrimSuffix(out, "\r\n[the file's last 5000 lines]"), "\r\n")
	if err != nil || len(got) != 5000 || got[0] != all[len(all)-5000] || got[4999] != all[len(all)-1] {
		t.Errorf("the last 5000 lines: %d, first %q last %q, want %q…%q, %v", len(got), got[0], got[len(got)-1], all[len(all)-5000], all[len(all)-1], err)
	}
}

// TestWriteEscapedTwice: content that is one line of `\n` escapes written
// out is refused once, saying how to write the lines it probably meant;
// made again it is written as given (it may be meant). A line of code with
// a "\n" of its own, or text with line breaks, is written at once.
func TestWriteEscapedTwice(t *testing.T) {
	ws, dir := workspace(t, nil)
	for i, tc := range []struct {
		content string
		refused bool
	}{
		{`# Notes\n\n- buy shrimp\n- call \"Ann\"\n`, true},
		{`import os\nprint(os.getcwd())\n`, true},
		{`print("a\nb\nc")`, false}, // bare quotes: a line of code
		{"line one\nline two with a \\n in it\n", false},
		{`one\ntwo`, false}, // one escape: as likely meant
		{`plain text`, false},
	} {
		name := fmt.Sprintf("f%d.md", i)
		_, err := ws.write(context.Background(), WriteArgs{Path: name, Content: tc.content})
		if refused := err != nil && strings.Contains(err.Error(), "Write it with real line breaks"); refused != tc.refused {
			t.Errorf("%q: %v", tc.content, err)
		}
		if tc.refused {
			if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
				t.Errorf("%q: the refused write made the file", tc.content)
			}
			if _, err := ws.write(context.Background(), WriteArgs{Path: name, Content: tc.content}); err != nil {
				t.Errorf("%q made again: %v", tc.content, err)
			}
		}
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != tc.content {
			t.Errorf("%q written as %q", tc.content, got)
		}
	}
}

// TestWriteOfWhatIsThere: a write of what the file holds (in its own
// form) changes nothing and says so, for a model that would otherwise
// believe it had fixed something.
func TestWriteOfWhatIsThere(t *testing.T) {
	ws, dir := workspace(t, map[string]string{"a.txt": string(utf16le("one\r\ntwo\r\n"))})
	before, _ := os.Stat(filepath.Join(dir, "a.txt"))
	out, err := ws.write(context.Background(), WriteArgs{Path: "a.txt", Content: "one\ntwo\n"})
	if err != nil || out != "a.txt already holds exactly this content: nothing changed" {
		t.Errorf("%q, %v", out, err)
	}
	if after, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil || !os.SameFile(before, after) {
		t.Errorf("the file was replaced: %v", err) // a write renames a new file over it
	}
}

// TestEditNewTextEscapedTwice: an edit whose old text is found as written
// but whose new text is one line of `\n` escapes is refused once; made
// again it is done as given.
func TestEditNewTextEscapedTwice(t *testing.T) {
	ws, dir := workspace(t, map[string]string{"a.go": "x := 1\n"})
	file := filepath.Join(dir, "a.go")
	in := EditArgs{Path: "a.go", Old: "x := 1", New: `x := 1\ny := 2`}
	if _, err := ws.edit(context.Background(), in); err == nil || !strings.Contains(err.Error(), `the new text is one line holding 1 \n written out`) {
		t.Fatalf("first edit: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "x := 1\n" {
		t.Fatalf("the refused edit changed the file: %q", b)
	}
	if _, err := ws.edit(context.Background(), in); err != nil {
		t.Fatalf("made again: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != `x := 1\ny := 2`+"\n" {
		t.Errorf("after the edit made again: %q", b)
	}
}

// TestWriteFenced: a file's content wrapped whole in a Markdown fence, as
// a model writes code in a chat answer, is refused once for a code file
// (the fence lines would be a syntax error), and written as given for
// Markdown or text, or when made again.
func TestWriteFenced(t *testing.T) {
	ws, _ := workspace(t, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		path, content string
		refused       bool
	}{
		{"tool.py", "```python\nimport os\nprint(os.getcwd())\n```\n", true},
		{"main.go", "```\npackage main\n```", true},
		{"notes.md", "```sh\nmake test\n```\n", false},
		{"README", "~~~\nusage\n~~~\n", false},
		{"a.py", "x = 1\n# ```\n", false},
		{"b.py", "```python\nx = 1\n", false}, // not closed: not a whole-file fence
	} {
		_, err := ws.write(ctx, WriteArgs{Path: tc.path, Content: tc.content})
		if refused := err != nil && strings.Contains(err.Error(), "wrapped in a Markdown code fence"); refused != tc.refused {
			t.Errorf("%s %q: %v", tc.path, tc.content, err)
		}
		if tc.refused {
			if _, err := ws.write(ctx, WriteArgs{Path: tc.path, Content: tc.content}); err != nil {
				t.Errorf("%s made again: %v", tc.path, err)
			}
		}
	}
}
