// Package realserver runs a real Ollama server for integration tests:
// ollama v0.24.0 (the last release that runs GGUF models from a plain cgo
// build), built from the Go module proxy once per machine and cached by
// version, started on a free loopback port with its own HOME and model
// directory, loaded with deterministic scripted models (package gguf), and
// stopped by PID.
//
// Building needs gcc/g++, the Debian packages nlohmann-json3-dev and
// libstb-dev, and the miniaudio stub header in cgo-include/ (module zips drop
// llama.cpp's vendor/ directory). `make test-ollama` installs the packages.
package realserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/shrimp-harness/shrimp/internal/ollamatest/gguf"
)

// Version is the ollama release built and run.
const Version = "0.24.0"

// CacheDir is where the built binary is kept: $SHRIMP_OLLAMA_CACHE, else
// $XDG_CACHE_HOME/shrimp/ollama, else ~/.cache/shrimp/ollama.
func CacheDir() string {
	if d := os.Getenv("SHRIMP_OLLAMA_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "shrimp", "ollama")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "shrimp", "ollama")
}

// includeDir is the directory holding the miniaudio stub, next to this file.
func includeDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate the realserver package source")
	}
	dir := filepath.Join(filepath.Dir(file), "cgo-include")
	if _, err := os.Stat(filepath.Join(dir, "miniaudio", "miniaudio.h")); err != nil {
		return "", fmt.Errorf("miniaudio stub missing: %w", err)
	}
	return dir, nil
}

// Binary returns the path of the cached ollama binary, building it first
// when it is missing (5–7 minutes on 2 cores with a cold Go build cache,
// seconds with a warm one). Concurrent callers wait on a lock file.
func Binary(ctx context.Context, log func(string)) (string, error) {
	dir := filepath.Join(CacheDir(), "v"+Version)
	bin := filepath.Join(dir, "ollama")
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("ollama cache dir: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("ollama build lock: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("ollama build lock: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil // another process built it while we waited
	}
	for _, h := range []string{"/usr/include/nlohmann/json_fwd.hpp", "/usr/include/stb/stb_image.h"} {
		if _, err := os.Stat(h); err != nil {
			return "", fmt.Errorf("building ollama needs %s: install nlohmann-json3-dev and libstb-dev (make test-ollama does)", h)
		}
	}
	inc, err := includeDir()
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if log != nil {
		log(fmt.Sprintf("building ollama v%s into %s (first run on this machine: about 5-7 minutes)", Version, dir))
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", "install", "-trimpath",
		"-ldflags", "-s -w -X github.com/ollama/ollama/version.Version="+Version,
		"github.com/ollama/ollama@v"+Version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "CGO_ENABLED=1", "CGO_CPPFLAGS=-I"+inc, "GOFLAGS=-mod=mod")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tail := out.String()
		if len(tail) > 3000 {
			tail = tail[len(tail)-3000:]
		}
		return "", fmt.Errorf("build ollama v%s: %w\n%s", Version, err, tail)
	}
	if err := os.Rename(filepath.Join(tmp, "ollama"), bin); err != nil {
		return "", fmt.Errorf("install ollama binary: %w", err)
	}
	if log != nil {
		log(fmt.Sprintf("built ollama v%s in %v", Version, time.Since(start).Round(time.Second)))
	}
	return bin, nil
}

// Server is a running ollama serve.
type Server struct {
	URL  string // http://127.0.0.1:PORT
	bin  string
	dir  string
	cmd  *exec.Cmd
	logs *bytes.Buffer
	done chan error
}

// Start runs `ollama serve` with its own HOME and OLLAMA_MODELS under dir.
func Start(ctx context.Context, bin, dir string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), bin: bin, dir: dir, logs: &bytes.Buffer{}, done: make(chan error, 1)}
	for _, d := range []string{"home", "models"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = s.env()
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start ollama serve: %w", err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/api/version")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("ollama serve exited: %v\n%s", err, s.logs.String())
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("ollama serve did not answer in 30 s:\n%s", s.logs.String())
		}
	}
}

func (s *Server) env() []string {
	return append(os.Environ(),
		"HOME="+filepath.Join(s.dir, "home"),
		"OLLAMA_MODELS="+filepath.Join(s.dir, "models"),
		"OLLAMA_HOST="+strings.TrimPrefix(s.URL, "http://"),
		"OLLAMA_NO_CLOUD=1",
	)
}

// Logs returns what the server printed so far.
func (s *Server) Logs() string { return s.logs.String() }

// Stop kills the server's process group and waits for it.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// Model is a scripted model to create on the server.
type Model struct {
	Name     string
	Spec     gguf.Spec
	Template string
	NumCtx   int
}

// Create writes the model's GGUF and Modelfile and runs `ollama create`.
func (s *Server) Create(ctx context.Context, m Model) error {
	dir := filepath.Join(s.dir, "build-"+m.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := gguf.Write(&b, m.Spec); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "model.gguf"), b.Bytes(), 0o644); err != nil {
		return err
	}
	numCtx := m.NumCtx
	if numCtx == 0 {
		numCtx = 2048
	}
	modelfile := fmt.Sprintf("FROM ./model.gguf\nTEMPLATE \"\"\"%s\"\"\"\nPARAMETER temperature 0\nPARAMETER num_ctx %d\nPARAMETER num_predict 48\n", m.Template, numCtx)
	if err := os.WriteFile(filepath.Join(dir, "Modelfile"), []byte(modelfile), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, s.bin, "create", m.Name, "-f", "Modelfile")
	cmd.Dir = dir
	cmd.Env = s.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ollama create %s: %w\n%s", m.Name, err, out)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
