package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

func TestHandles(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-devserver", "127.0.0.1:34115"}, false},
		{[]string{"--assetdir=dist"}, false},
		{[]string{"version"}, true},
		{[]string{"--help"}, true},
		{[]string{"--data-dir", "/x", "chat", "hi"}, true},
	}
	for _, tt := range tests {
		if got := Handles(tt.args); got != tt.want {
			t.Errorf("Handles(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

func TestParseGlobals(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantRest []string
		wantCfg  app.Config
		wantErr  bool
	}{
		{"before", []string{"--data-dir", "/d", "models", "list"}, []string{"models", "list"}, app.Config{DataDir: "/d"}, false},
		{"after with =", []string{"models", "list", "--ollama=h:1", "--model", "m"}, []string{"models", "list"}, app.Config{OllamaHost: "h:1", Model: "m"}, false},
		{"single dash", []string{"-model", "m", "chat"}, []string{"chat"}, app.Config{Model: "m"}, false},
		{"command flags stay", []string{"chat", "--json", "hi"}, []string{"chat", "--json", "hi"}, app.Config{}, false},
		{"after --", []string{"chat", "--", "--model", "x"}, []string{"chat", "--", "--model", "x"}, app.Config{}, false},
		{"missing value", []string{"chat", "--model"}, nil, app.Config{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg app.Config
			rest, _, err := parseGlobals(tt.args, &cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if strings.Join(rest, " ") != strings.Join(tt.wantRest, " ") || cfg != tt.wantCfg {
				t.Fatalf("got %q %+v, want %q %+v", rest, cfg, tt.wantRest, tt.wantCfg)
			}
		})
	}
}

func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestMainBasics(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    string
		wantErrOut string
	}{
		{"version", []string{"version"}, 0, "shrimp " + app.Version + " (" + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")\n", ""},
		{"--version", []string{"--version"}, 0, "shrimp " + app.Version + " (", ""},
		{"version takes no arguments", []string{"version", "x"}, 2, "", "version takes no arguments"},
		{"help lists commands", []string{"--help"}, 0, "version", ""},
		{"help command", []string{"help", "version"}, 0, "Usage: shrimp version", ""},
		{"unknown", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"version extra arg", []string{"version", "x"}, 2, "", "takes no arguments"},
		{"models bad sub", []string{"models", "pull"}, 2, "", "models subcommands are list, ctx and params"},
		// What to do next: TestOllamaDownOrNotInstalled.
		{"ollama down", []string{"--ollama", "http://127.0.0.1:9", "models", "list"}, 1, "", "Ollama is not running at http://127.0.0.1:9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(tt.args...)
			if code != tt.wantCode || !strings.Contains(out, tt.wantOut) || !strings.Contains(errOut, tt.wantErrOut) {
				t.Fatalf("code %d out %q err %q; want %d, %q, %q", code, out, errOut, tt.wantCode, tt.wantOut, tt.wantErrOut)
			}
			if tt.wantCode == 1 && strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Fatalf("error is not one line: %q", errOut)
			}
		})
	}
}

// TestOllamaDownOrNotInstalled: with no Ollama answering on this machine,
// the error says to start it when `ollama` is installed, and how to
// install it when it is not (`ollama serve` would be "command not
// found"); another machine's Ollama is not this one's to install.
func TestOllamaDownOrNotInstalled(t *testing.T) {
	installed := t.TempDir()
	if err := os.WriteFile(filepath.Join(installed, "ollama"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, host, want, not string
	}{
		{"installed", installed, "http://127.0.0.1:9", "— start it with `ollama serve`", "install"},
		{"not installed", t.TempDir(), "http://127.0.0.1:9", "no `ollama` is installed here (none on PATH): install it with curl -fsSL https://ollama.com/install.sh | sh", "—"},
		{"another machine", t.TempDir(), "http://192.0.2.1:9", "", "install it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("PATH", c.path)
			code, _, errOut := run("--ollama", c.host, "models", "list")
			if code != 1 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, c.not) {
				t.Fatalf("exit %d, stderr %q: want %q, not %q", code, errOut, c.want, c.not)
			}
		})
	}
}

// closedPipe is standard output whose reader went away.
type closedPipe struct{}

func (closedPipe) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// TestReaderGoneIsQuiet: a command whose output's reader stopped
// (`shrimp procedures list | head -1`) ends without a message about the
// broken pipe, with the status a shell gives a program SIGPIPE ended.
func TestReaderGoneIsQuiet(t *testing.T) {
	data := t.TempDir()
	srv := ollamatest.New(t, ollamatest.Model{Name: "m"})
	var errb bytes.Buffer
	code := Main(context.Background(), []string{"--data-dir", data, "--ollama", srv.URL, "models", "params", "m"}, closedPipe{}, &errb)
	if code != 141 || errb.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 141 and nothing said", code, errb.String())
	}
}
