package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
	"github.com/shrimp-harness/shrimp/internal/sandbox"
	"github.com/shrimp-harness/shrimp/internal/sandbox/sandboxtest"
)

// TestShellSandbox: with every call allowed (--approve all, where nobody
// reads the command), a command the model runs writes in the workspace
// but not outside it, and the model is told why; SHRIMP_SANDBOX=off
// lets it through.
func TestShellSandbox(t *testing.T) {
	if _, err := sandbox.Check(); err != nil {
		t.Skipf("commands cannot be confined on this machine (%v): the sandbox's absence is checked by TestDoctorSandbox", err)
	}
	target := filepath.Join(sandboxtest.Outside(t), "planted.txt")
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			return ollamatest.Text("done")
		}
		return ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "echo in > inside.txt; echo out > " + target}})
	}})
	for _, tt := range []struct {
		env     string
		planted bool
	}{{"", false}, {"off", true}} {
		t.Run("SHRIMP_SANDBOX="+tt.env, func(t *testing.T) {
			t.Setenv("SHRIMP_SANDBOX", tt.env)
			os.Remove(target)
			ws := t.TempDir()
			r := chat(t, t.TempDir(), srv.URL, ws, "--model", "m", "--approve", "all", "plant a file")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if b, err := os.ReadFile(filepath.Join(ws, "inside.txt")); err != nil || string(b) != "in\n" {
				t.Errorf("the write in the workspace: %q %v", b, err)
			}
			_, err := os.Stat(target)
			if planted := err == nil; planted != tt.planted {
				t.Errorf("a file outside the workspace planted: %v, want %v", planted, tt.planted)
			}
			res := r.data(t, "agent:tool-result")
			if len(res) != 1 {
				t.Fatalf("results %v", res)
			}
			errText, _ := res[0]["error"].(string)
			if told := strings.Contains(errText, "shell sandbox"); told == tt.planted {
				t.Errorf("the model told of the sandbox: %v (error %q)", told, errText)
			}
		})
	}
}
