package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestChatSIGINT runs the real binary, interrupts it mid-answer, and checks
// that the run ended with agent:run-ended, that both ends are stored, and
// that the exit status is non-zero.
func TestChatSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: builds the shrimp binary")
	}
	bin := filepath.Join(t.TempDir(), "shrimp")
	build := exec.Command("go", "build", "-o", bin, "../..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
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
	if last := lines[len(lines)-1]; last.Type != "agent:run-ended" && !strings.HasPrefix(last.Type, "usage:") {
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
	_ = os.Remove(bin)
}
