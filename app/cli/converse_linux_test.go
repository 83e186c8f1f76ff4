package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"golang.org/x/sys/unix"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// startChat starts the binary's `shrimp chat` with model m of the
// Ollama at url, in a new workspace, keyboard on tty; exited says how it
// ended.
func startChat(t *testing.T, bin, data, url, ws string, tty *os.File, stdout, stderr io.Writer) (*exec.Cmd, chan error) {
	t.Helper()
	cmd := exec.Command(bin, "chat", "--data-dir", data, "--ollama", url, "--model", "m", "--workspace", ws)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, exited
}

// typer returns a typist of lines at the keyboard, each ended by Enter.
func typer(t *testing.T, keyboard *os.File) func(string) {
	return func(s string) {
		t.Helper()
		if _, err := keyboard.WriteString(s + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConversation runs the real binary's `shrimp chat` at a terminal
// without a message: requests typed one after another go on in one
// session; Ctrl-C stops the running one and the conversation goes on, and
// at the prompt it only drops the line; /new starts another session; /exit
// leaves, saying where the conversation is kept.
func TestConversation(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: builds the shrimp binary")
	}
	bin := shrimpBinary(t)
	keyboard, tty := openPTY(t)
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		if last == "overwrite the notes" {
			return ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "notes.txt", "content": "gone\n"}})
		}
		if last == "talk slowly" {
			slow := ollamatest.Reply{Delay: 100 * time.Millisecond}
			for range 600 {
				slow.Text = append(slow.Text, "word ")
			}
			return slow
		}
		return ollamatest.Text("Answer to: " + last)
	}}, ollamatest.Model{Name: "embed", Embedding: true})
	data := t.TempDir()
	stdout, stderr := newShown(), newShown()
	ws := t.TempDir()
	cmd, exited := startChat(t, bin, data, srv.URL, ws, tty, stdout, stderr)
	typeLine := typer(t, keyboard)
	alive := func(when string) {
		t.Helper()
		select {
		case err := <-exited:
			t.Fatalf("%s: the conversation ended (%v); stderr:\n%s", when, err, stderr.String())
		default:
		}
	}
	// asked returns the messages the model was sent for the request text.
	asked := func(text string) []api.Message {
		t.Helper()
		for _, r := range srv.Requests() {
			if m := r.Chat.Messages; len(m) > 0 && m[len(m)-1].Content == text {
				return m
			}
		}
		t.Fatalf("the model was never asked %q", text)
		return nil
	}
	said := func(msgs []api.Message, text string) bool {
		for _, m := range msgs {
			if m.Role == "user" && m.Content == text {
				return true
			}
		}
		return false
	}

	stderr.await(t, "Shrimp: a conversation with m, approvals ask.", 1)
	stderr.await(t, "› ", 1)
	typeLine("first request")
	stdout.await(t, "Answer to: first request", 1)
	stderr.await(t, "› ", 2)

	// Ctrl-C mid-answer stops that request, not the conversation.
	typeLine("talk slowly")
	stdout.await(t, "word word", 1)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	stderr.await(t, "Stopped; what the request did so far is in the session.", 1)
	stderr.await(t, "› ", 3)
	alive("after Ctrl-C during a request")

	// Ctrl-C at the prompt drops the line, nothing more.
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	stderr.await(t, "(/exit or Ctrl-D leaves)", 1)
	alive("after Ctrl-C at the prompt")

	// The next request goes on in the same session: the model sees the first.
	typeLine("second request")
	stdout.await(t, "Answer to: second request", 1)
	if m := asked("second request"); !said(m, "first request") || !said(m, "talk slowly") {
		t.Fatalf("the second request was not sent in the first one's session: %+v", m)
	}
	// Lines pasted at once are one request, not one a line.
	typeLine("what does this error mean?\npanic: runtime error\ngoroutine 1 [running]:")
	stdout.await(t, "Answer to: what does this error mean?\npanic: runtime error\ngoroutine 1 [running]:", 1)
	// A line ending in a backslash goes on in the next, asked for on its
	// own prompt; the backslash is not sent.
	typeLine(`explain this:\`)
	stderr.await(t, "› "+"  ", 1)
	typeLine("x := 1")
	stdout.await(t, "Answer to: explain this:\nx := 1", 1)
	// A saved command of the folder's (Claude Code's .claude/commands) is
	// sent filled in, saying whose it is.
	if err := os.MkdirAll(filepath.Join(ws, ".claude", "commands"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".claude", "commands", "greet.md"), []byte("---\ndescription: Greet someone\n---\nSay hello to $1, warmly.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	typeLine(`/greet "Ada Lovelace"`)
	stdout.await(t, "Answer to: Say hello to Ada Lovelace, warmly.", 1)
	stderr.await(t, "/greet is this folder's command", 1)
	// Commands, and what each says.
	for _, c := range []struct{ typed, says string }{
		{"/bogus", "No command /bogus here"},
		{"/model", "Model: m. Installed: embed:latest, m:latest. /model NAME changes it."},
		{"/model absent", "Ollama has no model absent (installed: embed:latest, m:latest; ollama pull absent installs it)."},
		{"/model embed", "embed:latest is an embedding model: it cannot chat (it goes in --embed-model or Settings). The model stays m."},
		{"/approve read", "Approvals: read from the next request on: reads in the workspace run without asking"},
		{"/approve sometimes", `unknown approval mode "sometimes": use ask, read, all or none.`},
		{"/approve", "Approvals: read. /approve MODE changes it:"},
		{"/think", "Thinking: the model's own (a model that thinks does). /think off|on|low|medium|high|default changes it."},
		{"/think off", "Thinking from the next request on: off: faster answers"},
		{"/think sometimes", `thinking "sometimes" is not on, off, low, medium or high`},
		{"/think default", "Thinking from the next request on: the model's own"},
	} {
		typeLine(c.typed)
		stderr.await(t, c.says, 1)
	}

	// /new: a fresh session.
	typeLine("/new")
	stderr.await(t, "A new session;", 1)
	typeLine("third request")
	stdout.await(t, "Answer to: third request", 1)
	if m := asked("third request"); said(m, "first request") {
		t.Fatalf("/new did not start a new session: %+v", m)
	}
	if strings.Contains(stdout.String(), "/bogus") || len(srv.Requests()) != 7 {
		t.Fatalf("%d model requests (want 7: a command or a pasted line reached the model on its own?)", len(srv.Requests()))
	}

	// /undo puts back what the last request wrote, once the user says yes.
	typeLine("/undo")
	stderr.await(t, "nothing to undo in session", 1)
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	typeLine("/approve all")
	stderr.await(t, "Approvals: all from the next request on", 1)
	typeLine("overwrite the notes")
	stdout.await(t, "Answer to: wrote 5 bytes to notes.txt", 1)
	stderr.await(t, "shrimp: this request changed 1 file (/undo puts it back)", 1)
	typeLine("/undo")
	stderr.await(t, "Undo these changes? [y/N] ", 1)
	typeLine("n")
	stderr.await(t, "Nothing was undone.", 1)
	typeLine("/undo")
	stderr.await(t, "Undo these changes? [y/N] ", 2)
	typeLine("y")
	stderr.await(t, "restored  notes.txt", 1)
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "mine\n" {
		t.Errorf("notes.txt after /undo: %q", b)
	}
	// /redo takes that undo back.
	typeLine("/redo")
	stderr.await(t, "Redo these changes? [y/N] ", 1)
	typeLine("y")
	stderr.await(t, "restored  notes.txt", 2)
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) == "mine\n" {
		t.Errorf("notes.txt after /redo: %q", b)
	}
	typeLine("/redo")
	stderr.await(t, "Nothing to redo.", 1)

	typeLine("/exit")
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit: %v; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("/exit did not end the conversation; stderr:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "The conversation is session ") {
		t.Fatalf("stderr does not say where the conversation is kept:\n%s", stderr.String())
	}
	code, out, errOut := run("--data-dir", data, "sessions", "list", "--json")
	if code != 0 || strings.Count(out, `"id"`) != 2 {
		t.Fatalf("sessions list: %d %s %s; want two sessions", code, out, errOut)
	}
}

// TestConversationLineEditor runs the real binary's conversation with the
// keys and the screen on one terminal, as a person has them: the line
// editor's keys reach the model as the edited line, the up arrow sends a
// request again (from the history, in the next conversation too), a paste
// is one request, Ctrl-C drops the line typed, and Ctrl-D leaves with the
// terminal as it was found.
func TestConversationLineEditor(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: builds the shrimp binary")
	}
	bin := shrimpBinary(t)
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Content == "run a command" {
			return ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "echo hi"}})
		}
		return ollamatest.Text("Answer to: " + req.Messages[len(req.Messages)-1].Content)
	}})
	data := t.TempDir()
	converse := func(steps func(cmd *exec.Cmd, tty *os.File, keys func(string), stdout, screen *shown)) {
		t.Helper()
		screen := newShown()
		keyboard, tty := openScreen(t, screen)
		before, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		stdout := newShown()
		cmd, exited := startChat(t, bin, data, srv.URL, t.TempDir(), tty, stdout, tty)
		screen.await(t, "› ", 1)
		steps(cmd, tty, func(k string) {
			t.Helper()
			if _, err := keyboard.WriteString(k); err != nil {
				t.Fatal(err)
			}
		}, stdout, screen)
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("exit: %v; screen:\n%s", err, screen)
			}
		case <-time.After(time.Minute):
			t.Fatalf("Ctrl-D did not end the conversation; screen:\n%s", screen)
		}
		after, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		if after.Lflag != before.Lflag || after.Iflag != before.Iflag || after.Oflag != before.Oflag {
			t.Fatalf("the terminal was left changed: lflag %#x iflag %#x oflag %#x, found %#x %#x %#x",
				after.Lflag, after.Iflag, after.Oflag, before.Lflag, before.Iflag, before.Oflag)
		}
		s := screen.String()
		if on, off := strings.LastIndex(s, "\x1b[?2004h"), strings.LastIndex(s, "\x1b[?2004l"); on < 0 || off < on {
			t.Fatalf("bracketed paste left on (or never asked for): on at %d, off at %d", on, off)
		}
	}

	converse(func(_ *exec.Cmd, _ *os.File, keys func(string), stdout, screen *shown) {
		// Keys go to a prompt: typed while the last answer is still
		// printing, they reach a terminal not yet in raw mode (Ctrl-D there
		// is the line discipline's).
		prompt := 1
		at := func(k string) {
			t.Helper()
			screen.await(t, "› ", prompt)
			prompt++
			keys(k)
		}
		at("first request\r")
		stdout.await(t, "Answer to: first request", 1)
		at("\x1b[A\r") // the up arrow: the same request again
		stdout.await(t, "Answer to: first request", 2)
		at("half typed\x03") // Ctrl-C drops it
		screen.await(t, "(/exit or Ctrl-D leaves)", 1)
		at("你好\x1b[Dx\r") // wide characters edited where they are
		stdout.await(t, "Answer to: 你x好", 1)
		// /edit brings the request back to the prompt, edited there and
		// sent in its place.
		at("/edit\r")
		screen.await(t, "Edit the last request and press Enter", 1)
		at("\x7fz\r") // Backspace: the preset's last character
		stdout.await(t, "Answer to: 你xz", 1)
		at("ab\x1b[Dx\r") // edited: axb
		stdout.await(t, "Answer to: axb", 1)
		at("\x1b[200~what does this mean?\rpanic: boom\x1b[201~\r")
		stdout.await(t, "Answer to: what does this mean?\npanic: boom", 1)
		at("\x04")
	})
	if strings.Contains(fmt.Sprint(srv.Requests()), "half typed") {
		t.Fatal("a line dropped with Ctrl-C reached the model")
	}
	for _, r := range srv.Requests() {
		if m := r.Chat.Messages; m[len(m)-1].Content == "axb" && strings.Contains(fmt.Sprint(m), "你x好") {
			t.Fatal("the request after an edit was sent the request the edit replaced")
		}
	}
	// The next conversation has the history: the newest single line first.
	// SIGINT sent from elsewhere, at the prompt, is Ctrl-C there too.
	converse(func(cmd *exec.Cmd, tty *os.File, keys func(string), stdout, screen *shown) {
		keys("\x1b[A\r")
		stdout.await(t, "Answer to: axb", 1)
		screen.await(t, "› ", 2)
		// The window resized while a line is typed: the line is drawn again
		// at the new width.
		keys("abc")
		screen.await(t, "› abc", 1)
		if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: 100}); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Process.Signal(syscall.SIGWINCH); err != nil {
			t.Fatal(err)
		}
		screen.await(t, "› abc", 2)
		keys("\x15") // Ctrl-U: the line is dropped
		screen.await(t, "› ", 3)
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		screen.await(t, "(/exit or Ctrl-D leaves)", 1)
		screen.await(t, "› ", 4)
		keys("after the signal\r")
		stdout.await(t, "Answer to: after the signal", 1)
		screen.await(t, "› ", 5)
		keys("\x04")
	})
	// Ctrl-C while an approval question waits stops the run; the request
	// typed at the next prompt shows as it is typed. (The question's read,
	// left waiting for a whole line, took the keys unseen until Enter.)
	converse(func(cmd *exec.Cmd, _ *os.File, keys func(string), stdout, screen *shown) {
		keys("run a command\r")
		screen.await(t, "Allow shell.run", 1)
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		screen.await(t, "› ", 2)
		keys("abc")
		screen.await(t, "› abc", 1) // before Enter
		keys("\r")
		stdout.await(t, "Answer to: abc", 1)
		screen.await(t, "› ", 3)
		keys("\x04")
	})
}

// TestEditableTerminals: the line editor is used where keys and screen
// are one terminal that moves a cursor; not under TERM=dumb (Emacs's
// shell buffer edits the line itself), nor when the screen is a file.
func TestEditableTerminals(t *testing.T) {
	_, tty := openPTY(t)
	term := newTerminal(tty, io.Discard, nil)
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, c := range []struct {
		term string
		out  *os.File
		want bool
	}{
		{"xterm-256color", tty, true},
		{"", tty, true},
		{"dumb", tty, false},
		{"xterm-256color", file, false},
	} {
		t.Setenv("TERM", c.term)
		if got := editable(term, tty, c.out, nil) != nil; got != c.want {
			t.Errorf("TERM=%q, screen %s: editor %v, want %v", c.term, c.out.Name(), got, c.want)
		}
	}
}
