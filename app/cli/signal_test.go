package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// shrimpBinary builds the real binary once per test process.
func shrimpBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "shrimp-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "shrimp")
		if out, err := exec.Command("go", "build", "-o", builtBin, "../..").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// removeBuiltBinary removes what shrimpBinary built (64 MB a test run),
// once the package's tests are done: TestMain calls it.
func removeBuiltBinary() {
	if builtBin != "" {
		_ = os.RemoveAll(filepath.Dir(builtBin))
	}
}

// TestChatSIGINT runs the real binary, interrupts it mid-answer, and checks
// that the run ended with agent:run-ended, that both ends are stored, and
// that the exit status is non-zero.
func TestChatSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: builds the shrimp binary")
	}
	bin := shrimpBinary(t)
	slow := ollamatest.Reply{Delay: 200 * time.Millisecond}
	for range 50 {
		slow.Text = append(slow.Text, "word ")
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{slow}})
	data := t.TempDir()
	cmd := exec.Command(bin, "chat", "--json", "--data-dir", data, "--ollama", srv.URL, "--model", "m", "--workspace", t.TempDir(), "talk slowly")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var lines []line
	interrupted := false
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		lines = append(lines, l)
		if l.Type == "agent:token" && !interrupted {
			_ = cmd.Process.Signal(syscall.SIGINT)
			interrupted = true
		}
	}
	err = cmd.Wait()
	if err == nil {
		t.Fatal("exit 0 after SIGINT")
	}
	if !interrupted {
		t.Fatal("never saw a token to interrupt")
	}
	if last := lines[len(lines)-1]; last.Type != "agent:run-ended" && !strings.HasPrefix(last.Type, "usage:") && !strings.HasPrefix(last.Type, "metrics:") {
		t.Fatalf("last event %s", last.Type)
	}
	var ended map[string]any
	for _, l := range lines {
		if l.Type == "agent:run-ended" {
			_ = json.Unmarshal(l.Data, &ended)
		}
	}
	if ended["status"] != "cancelled" {
		t.Fatalf("run-ended %v", ended)
	}
	if !strings.Contains(stderr.String(), "cancelled") {
		t.Fatalf("stderr %q", stderr.String())
	}
	// Both ends are in the store.
	code, out, _ := run("--data-dir", data, "sessions", "show", lines[0].Session, "--json")
	var view struct{ Events []line }
	if code != 0 || json.Unmarshal([]byte(out), &view) != nil {
		t.Fatalf("sessions show: %d %s", code, out)
	}
	if len(view.Events) < 2 || view.Events[0].Type != "agent:run-started" {
		t.Fatalf("stored events %+v", view.Events)
	}
	found := false
	for _, e := range view.Events {
		found = found || e.Type == "agent:run-ended"
	}
	if !found {
		t.Fatal("agent:run-ended not stored")
	}
}

// TestChatSIGKILL kills the real binary mid-answer (no chance to clean up):
// what was stored is intact (seq strictly increasing from 1, the run's
// start included) and the session can be continued, numbering on.
func TestChatSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: builds the shrimp binary")
	}
	bin := shrimpBinary(t)
	slow := ollamatest.Reply{Delay: 100 * time.Millisecond}
	for range 100 {
		slow.Text = append(slow.Text, "word ")
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{slow, ollamatest.Text("Back again.")}})
	data := t.TempDir()
	cmd := exec.Command(bin, "chat", "--json", "--data-dir", data, "--ollama", srv.URL, "--model", "m", "--workspace", t.TempDir(), "talk slowly")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	tokens := 0
	session := ""
	for sc.Scan() {
		var l line
		_ = json.Unmarshal(sc.Bytes(), &l)
		session = l.Session
		if l.Type == "agent:token" {
			tokens++
			if tokens == 3 {
				_ = cmd.Process.Kill()
				break
			}
		}
	}
	_ = cmd.Wait()
	code, out, errOut := run("--data-dir", data, "sessions", "show", session, "--json")
	if code != 0 {
		t.Fatalf("sessions show after kill: %s", errOut)
	}
	var view struct {
		Events   []line
		Messages []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &view); err != nil || len(view.Events) == 0 {
		t.Fatalf("stored events: %v %s", err, out)
	}
	if len(view.Messages) != 1 || view.Messages[0]["content"] != "talk slowly" {
		t.Fatalf("the request was not kept: %v", view.Messages)
	}
	for i, e := range view.Events {
		if e.Seq != int64(i+1) {
			t.Fatalf("stored seq %d at %d: not contiguous from 1", e.Seq, i)
		}
	}
	if view.Events[0].Type != "agent:run-started" {
		t.Fatalf("first stored event %s", view.Events[0].Type)
	}
	last := view.Events[len(view.Events)-1].Seq
	r := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "--session", session, "are you there?")
	if r.code != 0 || r.lines[0].Seq != last+1 {
		t.Fatalf("continue after kill: exit %d, first seq %d after %d (%s)", r.code, r.lines[0].Seq, last, r.stderr)
	}
}

// TestSignalEndsAToolRun: SIGTERM (and Ctrl-C) while a tool runs ends the
// process promptly with "cancelled; the session so far is stored", and the
// tool's process does not outlive it. Checked on a long shell command and
// on fs.read of a FIFO with no writer.
func TestSignalEndsAToolRun(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: builds the shrimp binary")
	}
	bin := shrimpBinary(t)
	tests := []struct {
		name string
		sig  syscall.Signal
		call ollamatest.Call
	}{
		{"SIGTERM during sleep", syscall.SIGTERM, ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "echo $$ > pid; sleep 300"}}},
		{"SIGINT during sleep", syscall.SIGINT, ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "echo $$ > pid; sleep 300"}}},
		{"SIGTERM during fs.read of a FIFO", syscall.SIGTERM, ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "fifo"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644); err != nil {
				t.Fatal(err)
			}
			// The answer after the tool is slow, so the run is still going
			// when the signal comes even if the tool returned at once.
			after := ollamatest.Reply{Text: []string{"done"}, Delay: time.Minute}
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Tools(tt.call), after}})
			cmd := exec.Command(bin, "chat", "--json", "--approve", "all", "--data-dir", t.TempDir(), "--ollama", srv.URL, "--model", "m", "--workspace", ws, "go")
			stdout, _ := cmd.StdoutPipe()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					var l line
					_ = json.Unmarshal(sc.Bytes(), &l)
					if l.Type == "agent:tool-call" {
						if tt.call.Name == "shell.run" {
							waitFor(t, filepath.Join(ws, "pid"))
						}
						_ = cmd.Process.Signal(tt.sig)
					}
				}
				exited <- cmd.Wait()
			}()
			select {
			case err := <-exited:
				if err == nil || !strings.Contains(stderr.String(), "cancelled; the session so far is stored") {
					t.Fatalf("exit %v, stderr %q", err, stderr.String())
				}
			case <-time.After(2 * time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("still running long after %v; stderr %q", tt.sig, stderr.String())
			}
			if b, err := os.ReadFile(filepath.Join(ws, "pid")); err == nil {
				pid := strings.TrimSpace(string(b))
				if pid == "" {
					t.Fatal("the pid file is empty: the signal came before the shell wrote it")
				}
				if _, err := os.Stat("/proc/" + pid); err == nil {
					t.Errorf("the command's shell %s outlived Shrimp", pid)
				}
			}
		})
	}
}

// waitFor waits until the file at path holds a line (the command started
// and wrote it: the shell's redirection creates the file empty first, and
// a signal in between left the pid "", so "/proc/" was found alive).
func waitFor(t *testing.T, path string) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%s never got its line", path)
}

// TestKilledDuringTool kills the real binary (SIGKILL) while a shell
// command runs: the command dies with it. Reopened by `sessions show` or
// by going on with `chat --session` (which says so on stderr), the
// session has the call's result "interrupted" and the run's end; going on
// hands the model that result (so it knows the command may have half run)
// and runs nothing again by itself.
func TestKilledDuringTool(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: builds the shrimp binary")
	}
	bin := shrimpBinary(t)
	const cmdline = "echo ran >> runs; echo $$ > pid; sleep 300"
	for _, first := range []string{"sessions show", "chat --session"} {
		t.Run(first+" first", func(t *testing.T) {
			ws, data := t.TempDir(), t.TempDir()
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
				ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": cmdline}}),
				ollamatest.Text("It was interrupted; I will not run it again unasked."),
			}})
			session := killDuringTool(t, bin, data, ws, srv.URL)
			show := func() []line {
				code, out, errOut := run("--data-dir", data, "sessions", "show", session, "--json")
				var view struct{ Events []line }
				if err := json.Unmarshal([]byte(out), &view); code != 0 || err != nil {
					t.Fatalf("sessions show after the kill: %v %s", err, errOut)
				}
				return view.Events
			}
			if first == "sessions show" {
				show()
			}
			r := chat(t, data, srv.URL, ws, "--model", "m", "--session", session, "what happened?")
			if r.code != 0 {
				t.Fatalf("going on after the kill: exit %d (%s)", r.code, r.stderr)
			}
			if said := strings.Contains(r.stderr, "was interrupted"); said != (first == "chat --session") {
				t.Errorf("chat --session said the last request was interrupted: %v (%q)", said, r.stderr)
			}
			events := show()
			at := slices.IndexFunc(events, func(l line) bool { return l.Seq == r.lines[0].Seq })
			if at < 2 {
				t.Fatalf("the new run's start (seq %d) is not stored after the kill's end", r.lines[0].Seq)
			}
			var result agent.ToolResult
			var ended agent.RunEnded
			_ = json.Unmarshal(events[at-2].Data, &result)
			_ = json.Unmarshal(events[at-1].Data, &ended)
			if events[at-2].Type != "agent:tool-result" || !strings.HasPrefix(result.Error, "interrupted") || result.Name != "shell.run" {
				t.Errorf("the killed call's result: %s %+v", events[at-2].Type, result)
			}
			if events[at-1].Type != "agent:run-ended" || ended.Status != agent.StatusInterrupted || ended.ToolCalls != 1 {
				t.Errorf("the killed run's end: %s %+v", events[at-1].Type, ended)
			}
			reqs := srv.Requests()
			msgs := reqs[len(reqs)-1].Chat.Messages
			var roles []string
			for _, m := range msgs[1:] { // after the system prompt
				roles = append(roles, m.Role)
			}
			if got := strings.Join(roles, " "); got != "user assistant tool user" {
				t.Fatalf("history sent after the kill: %s", got)
			}
			if c := msgs[2].ToolCalls; len(c) != 1 || c[0].Function.Name != "shell.run" {
				t.Errorf("the killed call in the history: %+v", c)
			} else if got, ok := c[0].Function.Arguments.Get("command"); !ok || got != cmdline {
				t.Errorf("the killed call's command in the history: %v", got)
			}
			if !strings.Contains(msgs[3].Content, "interrupted") {
				t.Errorf("its result in the history: %q", msgs[3].Content)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "runs")); string(b) != "ran\n" {
				t.Errorf("the command ran %d times, want once", strings.Count(string(b), "ran"))
			}
		})
	}
}

// killDuringTool runs `chat` until its shell command has started, kills
// Shrimp with SIGKILL, checks that the command's shell died with it, and
// returns the session.
func killDuringTool(t *testing.T, bin, data, ws, host string) string {
	t.Helper()
	cmd := exec.Command(bin, "chat", "--json", "--approve", "all", "--data-dir", data, "--ollama", host, "--model", "m", "--workspace", ws, "build it")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	session := ""
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var l line
		_ = json.Unmarshal(sc.Bytes(), &l)
		session = l.Session
		if l.Type == "agent:tool-call" {
			waitFor(t, filepath.Join(ws, "pid"))
			_ = cmd.Process.Kill()
			break
		}
	}
	_ = cmd.Wait()
	b, _ := os.ReadFile(filepath.Join(ws, "pid"))
	shellPID := strings.TrimSpace(string(b))
	deadline := time.Now().Add(time.Minute)
	for shellPID != "" && !gone(shellPID) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if shellPID == "" || !gone(shellPID) {
		stat, _ := os.ReadFile("/proc/" + shellPID + "/stat")
		t.Errorf("the command's shell %q outlived the killed Shrimp: %s", shellPID, stat)
	}
	return session
}

// gone reports whether process pid has ended: no longer listed, or a
// zombie (dead; the process that adopted it, here PID 1, reaps it when it
// gets to it).
func gone(pid string) bool {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command, which is in parentheses.
	i := strings.LastIndex(string(stat), ") ")
	return i >= 0 && strings.HasPrefix(string(stat[i+2:]), "Z")
}

// TestChatOutputReaderGoes: `shrimp chat … | head -1`: the reader of the
// output goes after the first line. The request still runs to its end
// (SIGPIPE used to kill the process at its next line, leaving the session
// interrupted and nothing learned): it exits 0 with its run stored whole
// and its procedure learned.
func TestChatOutputReaderGoes(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: builds the shrimp binary")
	}
	bin := shrimpBinary(t)
	calls := []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "a"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "b"}}),
		{Text: []string{"Three ", "folders ", "listed."}, Delay: 50 * time.Millisecond},
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: calls})
	data, ws := t.TempDir(), t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "chat", "--json", "--data-dir", data, "--ollama", srv.URL, "--model", "m", "--approve", "read", "--workspace", ws, "list my folders")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(stdout).ReadString('\n') // head -1
	if err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	var l line
	if err := json.Unmarshal([]byte(first), &l); err != nil || l.Type != "agent:run-started" {
		t.Fatalf("first line %q", first)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the reader went after one line: %v (stderr %q)", err, stderr.String())
	}
	code, out, _ := run("--data-dir", data, "sessions", "show", l.Session, "--json")
	var view struct{ Events []line }
	if code != 0 || json.Unmarshal([]byte(out), &view) != nil || len(view.Events) == 0 {
		t.Fatalf("sessions show: %d %s", code, out)
	}
	var ended map[string]any
	for _, e := range view.Events {
		if e.Type == "agent:run-ended" {
			_ = json.Unmarshal(e.Data, &ended)
		}
	}
	if ended["status"] != "responded" {
		t.Errorf("the stored run ended %v, want responded", ended)
	}
	if code, out, _ := run("--data-dir", data, "procedures", "list", "--json"); code != 0 || !strings.Contains(out, "list my folders") {
		t.Errorf("nothing learned from the request: %d %s", code, out)
	}
}
