package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestPlaceholderWriteIsRefused: under --approve all (nobody reads the
// diff), a model that rewrites a file as its first function and
// "# ... rest of the file unchanged ..." is told so instead of cutting
// the file; its full write then goes through, and the file keeps all it
// had.
func TestPlaceholderWriteIsRefused(t *testing.T) {
	ws := t.TempDir()
	module := "import sys\n\n\ndef load(path):\n    return open(path).read()\n\n\ndef save(path, text):\n    open(path, \"w\").write(text)\n\n\ndef main():\n    print(load(sys.argv[1]))\n"
	if err := os.WriteFile(filepath.Join(ws, "tool.py"), []byte(module), 0o644); err != nil {
		t.Fatal(err)
	}
	full := strings.Replace(module, "return open(path).read()", "with open(path) as f:\n        return f.read()", 1)
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "tool.py", "content": "import sys\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n\n\n# ... rest of the file unchanged ...\n"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "tool.py", "content": full}}),
		ollamatest.Text("load now closes its file"),
	}})
	r := chat(t, t.TempDir(), srv.URL, ws, "--model", "m", "--approve", "all", "make load close its file")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "tool.py")); string(got) != full {
		t.Errorf("tool.py:\n%s", got)
	}
	// The approval gate saw the warning (a question would have shown it).
	if !strings.Contains(r.raw, `"approval:requested"`) || !strings.Contains(r.raw, "looks like a placeholder for text the file has") {
		t.Errorf("no approval:requested event carries the warning:\n%s", r.raw)
	}
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[1].Chat.Messages
	last := msgs[len(msgs)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, `line 9 of what it would write, "# ... rest of the file unchanged ..."`) || !strings.Contains(last.Content, "write the file out in full") {
		t.Errorf("the model was told: %s %q", last.Role, last.Content)
	}
}
