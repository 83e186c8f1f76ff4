package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/internal/tail"
)

// TestEditorRead gives the line editor keys as a terminal sends them, one
// request's at a time, and checks the request each gives: editing keys,
// the history's arrows, bracketed paste, Ctrl-C and Ctrl-D.
func TestEditorRead(t *testing.T) {
	type step struct {
		keys string
		want string // the request read
		err  error  // or the error
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"a line", []step{{keys: "hello\r", want: "hello"}}},
		{"CR LF is one line end", []step{{keys: "hello\r\n", want: "hello"}, {keys: "next\r", want: "next"}}},
		{"left arrow, then a letter", []step{{keys: "ab\x1b[Dx\r", want: "axb"}}},
		{"Ctrl-A and Ctrl-E", []step{{keys: "world\x01hello \x05!\r", want: "hello world!"}}},
		{"Ctrl-W drops a word", []step{{keys: "list the filse\x17files\r", want: "list the files"}}},
		{"up arrow brings back requests", []step{
			{keys: "one\r", want: "one"},
			{keys: "two\r", want: "two"},
			{keys: "\x1b[A\x1b[A\r", want: "one"},
			{keys: "\x1b[A\x1b[A\x1b[B\r", want: "one"}, // history now one, two, one
			{keys: "\x1b[A and more\r", want: "one and more"},
		}},
		{"a paste is one request", []step{
			{keys: "\x1b[200~what does this mean?\rpanic: boom\rgoroutine 1\x1b[201~\r", want: "what does this mean?\npanic: boom\ngoroutine 1"},
			{keys: "\x1b[A\r", want: ""}, // nothing in the history: a paste is not kept
		}},
		{"a paste ending in a line end waits for Enter", []step{
			{keys: "\x1b[200~a\rb\r\x1b[201~\r", want: "a\nb"},
		}},
		{"typed before a paste", []step{
			{keys: "explain \x1b[200~x := 1\ry := 2\x1b[201~\r", want: "explain x := 1\ny := 2"},
		}},
		{"Ctrl-C drops the line", []step{
			{keys: "half typed\x03", err: errStopped},
			{keys: "next\r", want: "next"},
			{keys: "\x1b[A\r", want: "next"}, // the dropped line is not in the history
		}},
		{"Ctrl-C inside a paste is pasted", []step{
			{keys: "\x1b[200~a\x03b\x1b[201~\r", want: "a\x03b"},
		}},
		{"Ctrl-D on an empty line leaves", []step{{keys: "\x04", err: io.EOF}}},
		{"Ctrl-D on a line deletes", []step{{keys: "abc\x01\x04\r", want: "bc"}}},
		{"Tab completes a command", []step{
			{keys: "/mo\t\r", want: "/model "},
			{keys: "/approve r\t\r", want: "/approve read"},
			{keys: "/ex\t\r", want: "/exit"},
			{keys: "/e\t\r", want: "/e"}, // /edit or /exit
			{keys: "/ret\t\r", want: "/retry"},
			{keys: "/ap\t\r", want: "/approve "}, // as far as they agree
			{keys: "/approve \t\r", want: "/approve "},
			{keys: "/\t\r", want: "/"},
		}},
		{"lines that come together are one request", []step{{keys: "a\rb\r", want: "a\nb"}}},
		{"a pasted one keeps it", []step{
			{keys: "\x1b[200~docker run \\\r  -v x:y img\x1b[201~\r", want: "docker run \\\n  -v x:y img"},
			{keys: "make \\\rall\r", want: "make \\\nall"}, // lines that come together: a paste without markers
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, keyboard := testEditor(t, "")
			for i, s := range c.steps {
				go func() { _, _ = io.WriteString(keyboard, s.keys) }()
				got, err := readWithin(t, e)
				if c.steps[i].err != nil {
					if !errors.Is(err, s.err) {
						t.Fatalf("step %d: %q, %v; want the error %v", i, got, err, s.err)
					}
					continue
				}
				if s.want == "" && err == nil && got == "" {
					continue
				}
				if err != nil || got != s.want {
					t.Fatalf("step %d (%q): %q, %v; want %q", i, s.keys, got, err, s.want)
				}
			}
		})
	}
}

// testEditor returns an editor reading from a pipe, its history kept in
// the file history (none when ""), and the pipe's other end: the keys.
func testEditor(t *testing.T, history string) (*editor, *io.PipeWriter) {
	t.Helper()
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	screen, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { screen.Close() })
	hist := loadHistory(history, func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED:password]") }, slog.New(slog.DiscardHandler))
	return newEditor(newTerminal(r, screen, nil), nil, screen, hist), w
}

// readWithin reads one request, failing the test if none comes.
func readWithin(t *testing.T, e *editor) (string, error) {
	t.Helper()
	ch := make(chan typed, 1)
	go func() { s, err := e.read(); ch <- typed{s, err} }()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-time.After(time.Minute):
		t.Fatal("no request read in a minute")
		return "", nil
	}
}

// TestEditorEarlyLine: a line an approval question was still waiting for
// when its run ended comes first, and what follows it is read after.
func TestEditorEarlyLine(t *testing.T) {
	e, keyboard := testEditor(t, "")
	early := make(chan typed, 1)
	early <- typed{s: "typed during the run\n"}
	e.early = early
	if got, err := readWithin(t, e); err != nil || got != "typed during the run" {
		t.Fatalf("%q, %v; want the line typed during the run", got, err)
	}
	go func() { _, _ = io.WriteString(keyboard, "then this\r") }()
	if got, err := readWithin(t, e); err != nil || got != "then this" {
		t.Fatalf("%q, %v", got, err)
	}
}

// TestEditorAfterAQuestion: a question left unanswered (its run was
// stopped) leaves a read waiting on the terminal; the prompt that follows
// reads in raw mode, where Enter sends a carriage return, and the request
// typed there still ends with it.
func TestEditorAfterAQuestion(t *testing.T) {
	r, keyboard := io.Pipe()
	t.Cleanup(func() { keyboard.Close() })
	screen, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { screen.Close() })
	term := newTerminal(r, screen, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the run was stopped while its question waited
	term.mu.Lock()
	if _, err := term.line(ctx, "Allow? "); !errors.Is(err, context.Canceled) {
		t.Fatalf("question: %v", err)
	}
	term.mu.Unlock()
	e := newEditor(term, nil, screen, loadHistory("", nil, slog.New(slog.DiscardHandler)))
	e.early, term.pending = term.pending, nil // as ask does
	go func() { _, _ = io.WriteString(keyboard, "the next request\r") }()
	if got, err := readWithin(t, e); err != nil || got != "the next request" {
		t.Fatalf("%q, %v", got, err)
	}
}

// TestHistoryFile: requests outlive the conversation in the data
// directory's history, secrets taken out, readable only by the user; the
// file is shortened once it holds twice what is kept.
func TestHistoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), historyFile)
	e, keyboard := testEditor(t, path)
	for _, k := range []string{"log in with hunter2\r", "second\r", "second\r"} {
		go func() { _, _ = io.WriteString(keyboard, k) }()
		if _, err := readWithin(t, e); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "log in with [REDACTED:password]\nsecond\n" {
		t.Fatalf("history file %q", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file mode %v, %v; want 0600", fi.Mode(), err)
	}

	// The next conversation starts with them: up arrow, the newest.
	e2, keyboard2 := testEditor(t, path)
	go func() { _, _ = io.WriteString(keyboard2, "\x1b[A\x1b[A\r") }()
	if got, err := readWithin(t, e2); err != nil || got != "log in with [REDACTED:password]" {
		t.Fatalf("%q, %v; want the first request of the last conversation", got, err)
	}

	var long []string
	for i := range 2*historyKept + 1 {
		long = append(long, "request "+strings.Repeat("x", i%7))
	}
	if err := os.WriteFile(path, []byte(strings.Join(long, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := loadHistory(path, nil, slog.New(slog.DiscardHandler))
	b, _ = os.ReadFile(path)
	if h.Len() != historyKept || strings.Count(string(b), "\n") != historyKept || h.At(0) != long[len(long)-1] {
		t.Fatalf("held %d, file %d lines, newest %q; want %d and the newest kept", h.Len(), strings.Count(string(b), "\n"), h.At(0), historyKept)
	}
}

// TestEditorBackslash: a typed line ending in a backslash goes on in the
// next line, which is asked for with the continuation prompt; the
// backslash is not sent.
func TestEditorBackslash(t *testing.T) {
	r, keyboard := io.Pipe()
	t.Cleanup(func() { keyboard.Close() })
	sr, sw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sr.Close(); sw.Close() })
	screen := newShown()
	go func() { _, _ = io.Copy(screen, sr) }()
	e := newEditor(newTerminal(r, sw, nil), nil, sw, loadHistory("", nil, slog.New(slog.DiscardHandler)))
	got := make(chan typed, 1)
	go func() { s, err := e.read(); got <- typed{s, err} }()
	if _, err := io.WriteString(keyboard, "explain this:\\\r"); err != nil {
		t.Fatal(err)
	}
	screen.await(t, "\n"+promptMore, 1) // the next line is asked for
	if _, err := io.WriteString(keyboard, "x := 1\r"); err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-got:
		if l.err != nil || l.s != "explain this:\nx := 1" {
			t.Fatalf("%q, %v", l.s, l.err)
		}
	case <-time.After(time.Minute):
		t.Fatal("no request in a minute")
	}
}

// shown collects what a process writes, safe to read while it writes
// (internal/tail, the project's reader-safe log, keeping every line).
type shown struct{ *tail.Lines }

func newShown() *shown { return &shown{tail.New(1 << 20)} }

func (s *shown) String() string { return strings.Join(s.Lines.Lines(), "\n") }

// await waits until what s shows holds want count times.
func (s *shown) await(t *testing.T, want string, count int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for strings.Count(s.String(), want) < count {
		if time.Now().After(deadline) {
			t.Fatalf("never shown %d× %q; shown:\n%s", count, want, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWrapHelp: /help's lines are broken at spaces to the terminal's
// width, a command's description going on under its own first word.
func TestWrapHelp(t *testing.T) {
	for _, c := range []struct {
		name, text string
		width      int
		want       string
	}{
		{"fits", "short line", 80, "short line"},
		{"prose", "one two three four five", 10, "one two\nthree four\nfive"},
		{"a command's description hangs", "  /new      start a new session now", 24, "  /new      start a new\n            session now"},
		{"a long word stands alone", "a verylongwordindeed b", 8, "a\nverylongwordindeed\nb"},
		{"lines kept", "first\n  /x  do it\nlast", 80, "first\n  /x  do it\nlast"},
	} {
		if got := wrapHelp(c.text, c.width); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
	// Every line of the real help fits 60 columns.
	for _, l := range strings.Split(wrapHelp(conversationHelp+"\n"+editingHelp, 60), "\n") {
		if len([]rune(l)) > 60 {
			t.Errorf("line of %d columns: %q", len([]rune(l)), l)
		}
	}
}

// TestCompleteImagePath: Tab after /image completes the path as far as the
// folder's entries that start with it agree, folders with their "/", and
// leaves hidden entries out unless asked for.
func TestCompleteImagePath(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"screenshot-1.png", "screenshot-2.png", "notes.txt", ".hidden.png"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "shots"), 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ line, want string }{
		{"/image " + dir + "/scr", "/image " + dir + "/screenshot-"},
		{"/image " + dir + "/sh", "/image " + dir + "/shots/"},
		{"/image " + dir + "/n", "/image " + dir + "/notes.txt"},
		{"/image " + dir + "/.h", "/image " + dir + "/.hidden.png"},
		{"/image " + dir + "/screenshot-", ""}, // nothing more they agree on
		{"/image " + dir + "/zzz", ""},
		{"/ima", "/image "}, // the command itself, as before
	}
	for _, tt := range tests {
		got, pos, ok := complete(tt.line, len(tt.line))
		if tt.want == "" && ok || tt.want != "" && (!ok || got != tt.want || pos != len(got)) {
			t.Errorf("complete(%q) = %q, %d, %v; want %q", tt.line, got, pos, ok, tt.want)
		}
	}
}
