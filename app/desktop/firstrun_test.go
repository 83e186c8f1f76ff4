package desktop

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// fakeOllama writes an `ollama` that serves the scripted Ollama (built
// from internal/ollamatest/cmd/scriptedollama) on $OLLAMA_HOST, as
// `ollama serve` does; broken makes it fail the way a port in use does.
func fakeOllama(t *testing.T, broken bool) string {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "ollama")
	body := "#!/bin/sh\necho \"Error: listen tcp $OLLAMA_HOST: bind: address already in use\" >&2\nexit 1\n"
	if !broken {
		server := filepath.Join(dir, "scriptedollama")
		build := exec.Command("go", "build", "-o", server, "github.com/shrimp-harness/shrimp/internal/ollamatest/cmd/scriptedollama")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build the scripted ollama: %v\n%s", err, out)
		}
		body = fmt.Sprintf("#!/bin/sh\n[ \"$1\" = serve ] || exit 2\necho \"fake ollama serving on $OLLAMA_HOST\"\nexec %s -addr \"$OLLAMA_HOST\"\n", server)
	}
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestStartOllama: the window starts an installed Ollama, waits for it,
// stops it with the window; a broken one is reported with its log; a
// missing one gets install commands; a running one is left alone.
func TestStartOllama(t *testing.T) {
	addr := freeAddr(t)
	a, _ := openWindowApp(t, "http://"+addr, "")
	f := NewFirstRun(a, NewSystem(a, 0))
	f.lookPath = func(string) (string, error) { return "", errors.New("not found") }
	if s := f.Ollama(); s.Installed || len(s.Install) == 0 || !strings.Contains(s.Install[0], "ollama.com/install.sh") || !s.Local {
		t.Fatalf("not installed: %+v", s)
	}
	if _, err := f.StartOllama(); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("start without ollama: %v", err)
	}

	broken := fakeOllama(t, true)
	f.lookPath = func(string) (string, error) { return broken, nil }
	if _, err := f.StartOllama(); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("a failing ollama serve: %v", err)
	}

	fake := fakeOllama(t, false)
	f.lookPath = func(string) (string, error) { return fake, nil }
	st, err := f.StartOllama()
	if err != nil || !st.Reachable || !slices.Contains(st.Models, "shrimp-test-chain:latest") {
		t.Fatalf("start: %+v %v", st, err)
	}
	s := f.Ollama()
	if !s.Started || !strings.Contains(strings.Join(s.Log, "\n"), "fake ollama serving on "+addr) {
		t.Fatalf("after start: %+v", s)
	}
	pid := f.cmd.Process.Pid
	// Asked again, the running one is left alone.
	if st, err := f.StartOllama(); err != nil || !st.Reachable || f.cmd == nil || f.cmd.Process.Pid != pid {
		t.Fatalf("second start: %+v %v", st, err)
	}
	models, err := f.Models()
	// The scripted Ollama's two models: an embedding one and a tool caller.
	if err != nil || len(models) != 2 || !models[0].Embedding || !models[1].Tools {
		t.Fatalf("models: %+v %v", models, err)
	}
	f.Stop()
	deadline := time.Now().Add(time.Minute)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Fatal("the Ollama the window started outlived Stop")
	}

	// An Ollama on another machine is not Shrimp's to start.
	remote, _ := openWindowApp(t, "http://192.0.2.1:11434", "")
	fr := NewFirstRun(remote, NewSystem(remote, 0))
	fr.lookPath = func(string) (string, error) { return fake, nil }
	if fr.Ollama().Local {
		t.Error("a remote host counted as local")
	}
}

// TestFirstWorkspace: ~/Shrimp is offered and made.
func TestFirstWorkspace(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	srv := ollamatest.New(t, ollamatest.Model{Name: "all-minilm", Embedding: true}, ollamatest.Model{Name: "plain", NoTools: true}, ollamatest.Model{Name: "qwen3:4b"})
	a, _ := openWindowApp(t, srv.URL, "")
	f := NewFirstRun(a, NewSystem(a, 0))
	ws, err := f.FirstWorkspace()
	if err != nil || ws != filepath.Join(home, "Shrimp") {
		t.Fatalf("first workspace: %q %v", ws, err)
	}
	if got, err := f.CreateWorkspace(ws); err != nil || got != ws {
		t.Fatalf("create: %q %v", got, err)
	}
	if info, err := os.Stat(ws); err != nil || !info.IsDir() {
		t.Fatalf("not made: %v", err)
	}
	if _, err := f.CreateWorkspace("relative/dir"); err == nil {
		t.Fatal("a relative workspace was made")
	}
	models, err := f.Models()
	if err != nil || len(models) != 3 || !models[0].Embedding || models[0].Tools || models[1].Tools || models[1].Embedding || !models[2].Tools || models[2].Embedding {
		t.Fatalf("models (an embedding model, one without tools, one with): %+v %v", models, err)
	}
	if r := f.RecommendedModels(); len(r) < 3 || r[0].Size == "" {
		t.Fatalf("recommended: %+v", r)
	}
}

// TestRecentWorkspaces: the folders earlier sessions worked in are
// offered, the latest first, not those gone since, at most five.
func TestRecentWorkspaces(t *testing.T) {
	a, _ := openWindowApp(t, "http://127.0.0.1:9", "")
	f := NewFirstRun(a, NewSystem(a, 0))
	if got, err := f.RecentWorkspaces(); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("no sessions: %v %v, want an empty list", got, err)
	}
	root := t.TempDir()
	start := time.Now().UTC().Add(-time.Hour)
	for i, name := range []string{"gone", "a", "b", "c", "d", "e", "f", "a"} {
		dir := filepath.Join(root, name)
		if name != "gone" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Store.CreateSession(context.Background(), store.Session{ID: fmt.Sprint("s", i), Workspace: dir, UpdatedAt: start.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	for _, name := range []string{"a", "f", "e", "d", "c"} { // b is the sixth, gone is gone
		want = append(want, filepath.Join(root, name))
	}
	got, err := f.RecentWorkspaces()
	if err != nil || len(got) != 5 || got[0].Sessions != 2 {
		t.Fatalf("recent: %+v %v", got, err)
	}
	for i, w := range got {
		if w.Path != want[i] {
			t.Errorf("recent[%d] = %s, want %s", i, w.Path, want[i])
		}
	}
}
