package desktop

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/internal/childproc"
	"github.com/shrimp-harness/shrimp/internal/tail"
)

// FirstRun is the bound service that leads a new user to a first answer:
// it starts Ollama when it is installed but not running (and stops the
// one it started with the window), says how to install it when it is not,
// tells which installed models can call tools and which small ones to
// pull, and makes the first workspace.
type FirstRun struct {
	app    *app.App
	system *System
	// lookPath finds the ollama binary (exec.LookPath; tests stand in).
	lookPath func(string) (string, error)
	// startWait bounds how long a started Ollama may take to answer.
	startWait time.Duration

	mu  sync.Mutex
	cmd *exec.Cmd
	log *tail.Lines // the output of the Ollama it started last
}

// NewFirstRun returns the service; system is refreshed once Ollama answers.
func NewFirstRun(a *app.App, system *System) *FirstRun {
	return &FirstRun{app: a, system: system, lookPath: exec.LookPath, startWait: 45 * time.Second, log: tail.New(40)}
}

// OllamaSetup says what the window can do about a missing Ollama.
type OllamaSetup struct {
	Installed bool     `json:"installed"` // an ollama binary is on PATH
	Path      string   `json:"path"`
	Local     bool     `json:"local"`   // the configured host is this machine (Shrimp can start it)
	Started   bool     `json:"started"` // Shrimp started it and stops it on exit
	Install   []string `json:"install"` // commands that install it on this system
	Log       []string `json:"log"`     // the last lines of the one Shrimp started
}

// Ollama reports whether Ollama is installed here and how to install it.
func (f *FirstRun) Ollama() OllamaSetup {
	s := OllamaSetup{Install: installCommands(), Local: model.IsLocal(f.app.Model.Host())}
	if p, err := f.lookPath("ollama"); err == nil {
		s.Installed, s.Path = true, p
	}
	f.mu.Lock()
	s.Started = f.cmd != nil
	s.Log = f.log.Lines()
	f.mu.Unlock()
	return s
}

// installCommands are the ways to install Ollama on this system, from
// /etc/os-release: the official script everywhere on Linux.
func installCommands() []string {
	out := []string{"curl -fsSL https://ollama.com/install.sh | sh"}
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		if s := string(b); strings.Contains(s, "ID=arch") || strings.Contains(s, "ID_LIKE=arch") {
			out = append(out, "sudo pacman -S ollama")
		}
	}
	return append(out, "or download it from https://ollama.com/download/linux")
}

// StartOllama runs `ollama serve` as a child of the window (stopped with
// it) and waits until it answers. A running Ollama is left alone. The
// error says why it did not come up, with its last log lines.
func (f *FirstRun) StartOllama() (model.Status, error) {
	ctx := context.Background()
	if st := f.app.Model.Status(ctx); st.Reachable {
		return st, nil
	}
	host := f.app.Model.Host()
	if !model.IsLocal(host) {
		return model.Status{}, fmt.Errorf("Ollama is configured at %s, another machine: start it there, or set the host to http://127.0.0.1:11434 in Settings", host)
	}
	path, err := f.lookPath("ollama")
	if err != nil {
		return model.Status{}, errors.New("Ollama is not installed: install it with curl -fsSL https://ollama.com/install.sh | sh")
	}
	f.mu.Lock()
	if f.cmd != nil {
		f.mu.Unlock()
		return model.Status{}, errors.New("Ollama is already starting")
	}
	u, _ := url.Parse(host)
	cmd := exec.Command(path, "serve")
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+u.Host)
	log := tail.New(40)
	cmd.Stdout, cmd.Stderr = log, log
	// Wait returns once ollama exits, even if a child of it keeps the
	// output pipe open.
	cmd.WaitDelay = time.Second
	cmd.SysProcAttr = childproc.Attr(syscall.SIGTERM)
	f.log = log
	if err := cmd.Start(); err != nil {
		f.mu.Unlock()
		return model.Status{}, fmt.Errorf("start %s serve: %w", path, err)
	}
	f.cmd = cmd
	f.mu.Unlock()
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait() // all its output is in log once Wait returns
		f.mu.Lock()
		if f.cmd == cmd {
			f.cmd = nil
		}
		f.mu.Unlock()
		exited <- err
	}()
	deadline := time.After(f.startWait)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			return model.Status{}, fmt.Errorf("ollama serve stopped (%v): %s", err, lastLines(log, 3))
		case <-deadline:
			f.Stop()
			return model.Status{}, fmt.Errorf("ollama serve did not answer within %s: %s", f.startWait, lastLines(log, 3))
		case <-tick.C:
			if st := f.app.Model.Status(ctx); st.Reachable {
				f.system.Refresh()
				return st, nil
			}
		}
	}
}

// Stop ends the Ollama Shrimp started, if any (the window's shutdown).
func (f *FirstRun) Stop() {
	f.mu.Lock()
	cmd := f.cmd
	f.cmd = nil
	f.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for syscall.Kill(cmd.Process.Pid, 0) == nil {
			time.Sleep(50 * time.Millisecond)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// ModelChoice is an installed model and whether it can call tools.
type ModelChoice struct {
	Name      string `json:"name"`
	Tools     bool   `json:"tools"`
	Embedding bool   `json:"embedding"` // an embedding model: it cannot chat
	Checked   bool   `json:"checked"`   // /api/show answered (else Tools is unknown)
	Sees      bool   `json:"sees"`      // Ollama lists "vision": it takes images
	Thinks    bool   `json:"thinks"`    // Ollama lists "thinking": it thinks unless asked not to
	// Trained is the context the model was trained for, which Ollama
	// gives it at most (0: not said).
	Trained int `json:"trained,omitempty"`
}

// Models lists the installed models with their tool support (/api/show).
func (f *FirstRun) Models() ([]ModelChoice, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	installed, err := f.app.Model.List(ctx)
	if err != nil {
		return []ModelChoice{}, err
	}
	names := make([]string, 0, len(installed))
	for _, m := range installed {
		names = append(names, m.Name)
	}
	details := f.app.Model.ShowAll(ctx, names)
	out := []ModelChoice{}
	for _, name := range names {
		d, ok := details[name]
		out = append(out, ModelChoice{Name: name, Tools: ok && d.Tools(), Embedding: ok && !d.Chats(), Checked: ok, Sees: ok && d.ListsVision(), Thinks: ok && d.Thinks(), Trained: d.ContextLength})
	}
	return out, nil
}

// RecommendedModels lists small models that call tools well, smallest
// first.
func (f *FirstRun) RecommendedModels() []app.RecommendedModel { return app.RecommendedModels }

// FirstWorkspace is the folder a new user is offered: ~/Shrimp.
func (f *FirstRun) FirstWorkspace() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home folder: type a workspace folder instead (%w)", err)
	}
	return filepath.Join(home, "Shrimp"), nil
}

// RecentWorkspace is a folder earlier sessions worked in.
type RecentWorkspace struct {
	Path     string `json:"path"`
	Sessions int    `json:"sessions"`
}

// maxRecentWorkspaces is how many folders the window offers.
const maxRecentWorkspaces = 5

// RecentWorkspaces returns the folders earlier sessions worked in (the
// window's, and `shrimp chat`'s in a terminal), the most recently used
// first, those that are still folders, at most five: where a user who
// worked in a terminal, or chose a folder before, most likely works next.
func (f *FirstRun) RecentWorkspaces() ([]RecentWorkspace, error) {
	uses, err := f.app.Store.RecentWorkspaces(context.Background(), 4*maxRecentWorkspaces)
	if err != nil {
		return nil, err
	}
	out := []RecentWorkspace{}
	for _, u := range uses {
		if info, err := os.Stat(u.Workspace); err != nil || !info.IsDir() {
			continue // moved or deleted since
		}
		if out = append(out, RecentWorkspace{Path: u.Workspace, Sessions: u.Sessions}); len(out) == maxRecentWorkspaces {
			break
		}
	}
	return out, nil
}

// CreateWorkspace makes dir (and its parents) if missing and returns it.
func (f *FirstRun) CreateWorkspace(dir string) (string, error) {
	dir = strings.TrimSpace(dir)
	if dir == "" || !filepath.IsAbs(dir) {
		return "", errors.New("give the workspace as a full path, such as /home/you/Shrimp")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	return dir, nil
}

// lastLines joins the last n lines of a process's output for an error.
func lastLines(log *tail.Lines, n int) string {
	all := log.Lines()
	if len(all) == 0 {
		return "it printed nothing"
	}
	return tail.Last(all, n)
}
