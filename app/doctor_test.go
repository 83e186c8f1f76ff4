package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/samber/lo"
	"github.com/shrimp-harness/shrimp/backend/doctor"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/tool/shell"
	"github.com/shrimp-harness/shrimp/backend/vectors"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

type fakeIndex struct {
	n, indexed int
	current    bool
	err        error
}

func (f fakeIndex) IndexHealth() (int, int, bool, error) { return f.n, f.indexed, f.current, f.err }

func TestJudgeIndex(t *testing.T) {
	for _, c := range []struct {
		ix     fakeIndex
		want   doctor.Status
		detail string
	}{
		{fakeIndex{3, 3, true, nil}, doctor.Pass, "3 procedures, all in the search index"},
		{fakeIndex{1, 1, true, nil}, doctor.Pass, "1 procedure, in the search index"},
		{fakeIndex{3, 2, true, nil}, doctor.Warn, "the search index holds 2 of 3 procedures"},
		{fakeIndex{3, 3, false, nil}, doctor.Warn, "up to date: false"},
		{fakeIndex{0, 0, false, errors.New("broken")}, doctor.Fail, "broken"},
	} {
		if r := judgeIndex(c.ix); r.Status != c.want || (r.Status != doctor.Pass && r.Fix == "") || !strings.Contains(r.Detail, c.detail) {
			t.Errorf("%+v: %+v, want %s, %q", c.ix, r, c.want, c.detail)
		}
	}
}

func TestVersionLess(t *testing.T) {
	for _, c := range []struct {
		v, than string
		less    bool
	}{
		{"0.24.0", "0.5.0", false},
		{"0.4.7", "0.5.0", true},
		{"v0.5.0", "0.5.0", false},
		{"0.5.0-rc1", "0.5.1", true},
		{"garbage", "0.5.0", false},
		{"1.0", "0.5.0", false},
	} {
		if got := versionLess(c.v, c.than); got != c.less {
			t.Errorf("versionLess(%q, %q) = %v", c.v, c.than, got)
		}
	}
}

// TestGoRelease: a binary built with an older Go than MinGo is told to be
// rebuilt, and MinGo is go.mod's toolchain line.
func TestGoRelease(t *testing.T) {
	for _, c := range []struct {
		built string
		want  doctor.Status
	}{
		{MinGo, doctor.Pass},
		{MinGo + "-X:simd", doctor.Pass},
		{"go1.26.8", doctor.Warn},
		{"go1.26.8-X:simd", doctor.Warn},
		{"go1.25.7", doctor.Warn},
		{"go1.27.3", doctor.Pass},
		{"go1.27", doctor.Pass},
		{"devel go1.27-0123abcd Mon Jan 1 00:00:00 2027 +0000", doctor.Pass},
	} {
		r := checkGoRelease(c.built)
		if r.Status != c.want || !strings.Contains(r.Detail, c.built) || (r.Status != doctor.Pass && !strings.Contains(r.Fix, "make build")) {
			t.Errorf("%s: %+v, want %s", c.built, r, c.want)
		}
	}
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(mod), "\n"), "toolchain "+MinGo) {
		t.Errorf("go.mod has no line %q: MinGo and the toolchain Shrimp is built with must agree", "toolchain "+MinGo)
	}
}

// TestDoctorOllamaLink: an Ollama on this machine passes; the same
// server reached at this machine's network address, as another machine's
// Ollama would be, is a warning that says what crosses the network and
// how to keep it on an encrypted link.
func TestDoctorOllamaLink(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "qwen3:4b"})
	var lan net.IP
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			lan = n.IP
			break
		}
	}
	if lan == nil {
		t.Skip("this machine has no network address other than loopback to reach the scripted Ollama at")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(lan.String(), "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", lan, err)
	}
	target, _ := url.Parse(srv.URL)
	remote := httptest.NewUnstartedServer(httputil.NewSingleHostReverseProxy(target))
	remote.Listener.Close()
	remote.Listener = ln
	remote.Start()
	defer remote.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	for _, c := range []struct {
		host        string
		want        doctor.Status
		detail, fix string
	}{
		{srv.URL, doctor.Pass, "Ollama 0.24.0 at " + srv.URL, ""},
		{remote.URL, doctor.Warn, "another machine over plain HTTP", "SSH tunnel"},
	} {
		a, err := Open(Config{DataDir: t.TempDir(), OllamaHost: c.host}, quiet)
		if err != nil {
			t.Fatal(err)
		}
		var got doctor.Result
		for _, r := range a.Doctor(ctx) {
			if r.Check == "ollama" {
				got = r
			}
		}
		a.Close(ctx)
		t.Logf("%s: %s: %s (%s)", c.host, got.Status, got.Detail, got.Fix)
		if got.Status != c.want || !strings.Contains(got.Detail, c.detail) || !strings.Contains(got.Fix, c.fix) {
			t.Errorf("%s: %+v\nwant %s, detail with %q, fix with %q", c.host, got, c.want, c.detail, c.fix)
		}
	}
}

// TestDoctorEmbedModel: the embedding-model check against the scripted
// server, from none set to a model recall compares meanings with, and
// each way a chosen model can be wrong, with what to do.
func TestDoctorEmbedModel(t *testing.T) {
	srv := ollamatest.Start(
		ollamatest.Model{Name: "nomic-embed-text", Embedding: true},
		ollamatest.Model{Name: "qwen3:4b"},
	)
	defer srv.Close()
	down := ollamatest.Start()
	down.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	for _, c := range []struct {
		name, host, embed string
		triggers          int
		want              doctor.Status
		detail, fix       string
	}{
		{"none set", srv.URL, "", 0, doctor.Pass, "none set: recall compares meanings with the built-in sentence encoder", ""},
		{"Ollama down", down.URL, "nomic-embed-text", 0, doctor.Warn, "Ollama is not reachable", "start Ollama"},
		{"not installed", srv.URL, "mxbai-embed-large", 0, doctor.Fail, "mxbai-embed-large is set but not installed", "ollama pull mxbai-embed-large"},
		{"a chat model", srv.URL, "qwen3:4b", 0, doctor.Warn, "qwen3:4b is not an embedding model (Ollama lists it for completion, tools)", "ollama pull nomic-embed-text"},
		{"few procedures", srv.URL, "nomic-embed-text", 3, doctor.Pass, "3 of 3 stored requests have its vectors; recall uses it once 20", ""},
		{"in use", srv.URL, "nomic-embed-text:latest", 24, doctor.Pass, "24 of 24 stored requests have its vectors; recall compares meanings with it", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := Open(Config{DataDir: t.TempDir(), OllamaHost: c.host, EmbedModel: c.embed}, quiet)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close(ctx)
			if c.triggers > 0 {
				mem, err := a.Memory(ctx)
				if err != nil {
					t.Fatal(err)
				}
				learn(t, mem, archiveTriggers(c.triggers))
			}
			var got doctor.Result
			for _, r := range a.Doctor(ctx) {
				if r.Check == "embedding model" {
					got = r
				}
			}
			t.Logf("%s: %s (%s)", got.Status, got.Detail, got.Fix)
			if got.Status != c.want || !strings.Contains(got.Detail, c.detail) || !strings.Contains(got.Fix, c.fix) {
				t.Fatalf("%+v\nwant %s, detail with %q, fix with %q", got, c.want, c.detail, c.fix)
			}
			if got.Status != doctor.Pass && got.Fix == "" {
				t.Errorf("a %s without a fix", got.Status)
			}
		})
	}
}

// TestJudgeEmbedding: the progress of an answering embedding model, each
// state a user can meet, worded with what to do when it is not a pass.
func TestJudgeEmbedding(t *testing.T) {
	retry := time.Date(2026, 12, 1, 9, 30, 15, 0, time.Local)
	for _, c := range []struct {
		es     procedures.EmbedderStatus
		want   doctor.Status
		detail string
	}{
		{procedures.EmbedderStatus{}, doctor.Warn, "recall does not use it"},
		{procedures.EmbedderStatus{Name: "ollama:m"}, doctor.Pass, "no procedures yet: recall uses it once 20"},
		{procedures.EmbedderStatus{Name: "ollama:m", Wordings: 40, Embedded: 12, Status: vectors.Status{Failed: 28, Err: errors.New("connection refused"), Retry: retry}},
			doctor.Warn, "12 of 40 stored requests have its vectors; the last try failed: connection refused (tried again at 09:30:15)"},
		{procedures.EmbedderStatus{Name: "ollama:m", Wordings: 40, Embedded: 12, Status: vectors.Status{Pending: 28}}, doctor.Pass, "the rest are embedded in the background; recall uses it once 20"},
		{procedures.EmbedderStatus{Name: "ollama:m", Wordings: 40, Embedded: 40, InUse: true}, doctor.Pass, "40 of 40 stored requests have its vectors; recall compares meanings with it"},
	} {
		r := judgeEmbedding("m answers", c.es)
		if r.Status != c.want || !strings.Contains(r.Detail, c.detail) || (r.Status != doctor.Pass && r.Fix == "") {
			t.Errorf("%+v: %+v, want %s with %q", c.es, r, c.want, c.detail)
		}
	}
}

// TestCheckMCP: the doctor reads mcp.json without starting anything: a
// command not found and a variable not set are warned about, with what
// to do; a kept sign-in is said; a damaged file fails.
// TestCheckShell: the doctor says which shell runs commands, and warns
// when it is not bash.
func TestCheckShell(t *testing.T) {
	if r := checkShell("/bin/bash"); r.Status != doctor.Pass || !strings.Contains(r.Detail, "/bin/bash") {
		t.Errorf("bash: %+v", r)
	}
	if r := checkShell("/bin/sh"); r.Status != doctor.Warn || !strings.Contains(r.Detail, "/bin/sh") || !strings.Contains(r.Fix, "install bash") {
		t.Errorf("sh: %+v", r)
	}
}

func TestCheckHooks(t *testing.T) {
	// A script copied from Windows: found, and it cannot start.
	crlf := filepath.Join(t.TempDir(), "guard.sh")
	if err := os.WriteFile(crlf, []byte("#!/bin/sh\r\nexit 0\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	found := func(name string) (string, error) {
		if name == "notify-send" || name == "/bin/sh" || name == crlf {
			return name, nil
		}
		return "", exec.ErrNotFound
	}
	for _, tc := range []struct {
		name  string
		hooks []hooks.Hook
		want  doctor.Status
		says  []string
	}{
		{"none", nil, doctor.Pass, []string{"none configured"}},
		{"all found", []hooks.Hook{{Event: "agent:run-ended", Command: "notify-send"}, {Event: hooks.PreToolCall, Command: "./check.sh"}}, doctor.Pass, []string{"2 configured, 2 enabled, their commands found"}},
		{"an observer's command missing", []hooks.Hook{{Event: "agent:run-ended", Command: "no-such-notifier"}, {Event: hooks.PreToolCall, Command: "/bin/sh"}}, doctor.Warn, []string{"runs no-such-notifier, which is not found: it fails each time"}},
		{"a gate's command missing", []hooks.Hook{{Event: "agent:run-ended", Command: "no-such-notifier"}, {Event: hooks.PreToolCall, Command: "/opt/guard/deny"}}, doctor.Fail, []string{"runs /opt/guard/deny, which is not found: every tool call it applies to is denied", "no-such-notifier"}},
		{"a prompt hook", []hooks.Hook{{Event: hooks.PreRunEnd, Claude: "Stop", Prompt: "Done?"}, {Event: "agent:run-ended", Command: "notify-send"}}, doctor.Pass, []string{"2 configured, 2 enabled (1 of them asking the request's model), their commands found"}},
		{"a missing one switched off", []hooks.Hook{{Event: hooks.PreToolCall, Command: "gone", Disabled: true}}, doctor.Pass, []string{"1 configured, 0 enabled"}},
		{"a gate's script with Windows line endings", []hooks.Hook{{Event: hooks.PreToolCall, Command: crlf}}, doctor.Fail, []string{"cannot start: " + crlf + " has Windows line endings", "every tool call it applies to is denied"}},
		// A Claude Code guard whose jq is missing blocks nothing there, nor here: a warning, naming jq.
		{"a Claude Code guard's program missing", []hooks.Hook{{Event: hooks.PreToolCall, Claude: "PreToolUse", Tool: "Bash", Command: "/bin/sh", Args: []string{"-c", "jq -r .tool_input.command | grep -q rm && exit 2"}}}, doctor.Warn, []string{"(pre-tool-call Bash (Claude Code PreToolUse)) runs jq, which is not found", "does not block"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := hooks.Config{}
			for _, h := range tc.hooks {
				if _, err := cfg.Add(h); err != nil {
					t.Fatal(err)
				}
			}
			if len(tc.hooks) > 0 {
				if err := cfg.Save(filepath.Join(dir, hooks.FileName)); err != nil {
					t.Fatal(err)
				}
			}
			r := checkHooks(dir, found)
			if r.Status != tc.want || (r.Status != doctor.Pass && r.Fix == "") {
				t.Errorf("%+v, want %s with a fix", r, tc.want)
			}
			for _, w := range tc.says {
				if !strings.Contains(r.Detail, w) {
					t.Errorf("%q lacks %q", r.Detail, w)
				}
			}
		})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, hooks.FileName), []byte(`{"hooks": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := checkHooks(dir, found); r.Status != doctor.Fail || !strings.Contains(r.Fix, "mend or remove") {
		t.Errorf("a damaged file: %+v", r)
	}
}

func TestCheckMCP(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, mcp.FileName)
	if r := checkMCP(dir, os.LookupEnv, exec.LookPath); r.Status != doctor.Pass || r.Detail != "none configured" {
		t.Errorf("no file: %+v", r)
	}
	cfg := mcp.Config{Servers: map[string]mcp.Server{
		"files":  {Command: "npx", Args: []string{"-y", "server"}},
		"gone":   {Command: "no-such-server"},
		"gh":     {URL: "https://api.example/mcp", Headers: map[string]string{"Authorization": "Bearer ${SHRIMP_TEST_NO_SUCH_VAR}"}},
		"hosted": {URL: "https://hosted.example/mcp"},
		"off":    {Command: "whatever", Disabled: true},
		"My Web": {URL: "https://web.example/mcp"}, // written by hand: cannot start, the rest can
		"win":    {Command: "win-server"},
	}}
	crlf := filepath.Join(t.TempDir(), "win-server")
	if err := os.WriteFile(crlf, []byte("#!/usr/bin/env node\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(path); err != nil {
		t.Fatal(err)
	}
	found := func(name string) (string, error) {
		switch name {
		case "npx":
			return "/usr/bin/npx", nil
		case "win-server":
			return crlf, nil
		}
		return "", exec.ErrNotFound
	}
	r := checkMCP(dir, os.LookupEnv, found)
	for _, want := range []string{"7 configured, 1 disabled: files, hosted", "win cannot start: " + crlf + " has Windows line endings", "gh takes SHRIMP_TEST_NO_SUCH_VAR, which is not set", "gone's command no-such-server is not found",
		`server name "My Web": use up to 32 letters, digits, - and _ (it becomes part of tool names); it cannot start`} {
		if r.Status != doctor.Warn || !strings.Contains(r.Detail, want) {
			t.Errorf("%+v lacks %q", r, want)
		}
	}
	if !strings.Contains(r.Fix, "set SHRIMP_TEST_NO_SUCH_VAR") || !strings.Contains(r.Fix, "install no-such-server") || !strings.Contains(r.Fix, `shrimp mcp remove "My Web"`) {
		t.Errorf("fix %q", r.Fix)
	}
	if err := os.WriteFile(path, []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := checkMCP(dir, os.LookupEnv, found); r.Status != doctor.Fail || !strings.Contains(r.Fix, "mend or remove") {
		t.Errorf("a damaged file: %+v", r)
	}
}

// TestCheckCaches: the commands' caches check names where they are, what
// they take and when they go; a system with no cache folder is warned of.
func TestCheckCaches(t *testing.T) {
	for _, c := range []struct {
		name   string
		u      shell.CacheUsage
		err    error
		status doctor.Status
		says   []string
	}{
		{"none yet", shell.CacheUsage{Root: "/home/u/.cache/shrimp/workspaces"}, nil, doctor.Pass, []string{"none yet", "/home/u/.cache/shrimp/workspaces", "60 days"}},
		{"two", shell.CacheUsage{Root: "/c", Folders: 2, Bytes: 1_500_000}, nil, doctor.Pass, []string{"2 workspaces' folders", "1.5 MB", "7 days after the workspace is gone"}},
		{"no cache folder", shell.CacheUsage{}, errors.New("the system names no cache folder"), doctor.Warn, []string{"no cache folder", "HOME"}},
	} {
		r := checkCaches(c.u, c.err)
		text := r.Detail + " " + r.Fix
		if r.Status != c.status || !lo.EveryBy(c.says, func(s string) bool { return strings.Contains(text, s) }) {
			t.Errorf("%s: %+v, want %v saying %q", c.name, r, c.status, c.says)
		}
	}
}
