package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

const module = `import os
import sys


def load(path):
    with open(path) as f:
        return f.read()


def save(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    print(load(sys.argv[1]))
`

// TestElided: a line that is a comment around an ellipsis, or an
// ellipsis alone, stands in for the old text's lines when it is new and
// at least minDropped of them are gone; code with an ellipsis of its own
// does not.
func TestElided(t *testing.T) {
	kept := "import os\nimport sys\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n\n\n"
	for _, tc := range []struct {
		name, text string
		at         int // 0: none
	}{
		{"a Python comment", kept + "# ... rest of the file unchanged ...\n", 10},
		{"a C-style comment", kept + "// ... existing code ...\n", 10},
		{"a block comment", kept + "/* … */\n", 10},
		{"an HTML comment", kept + "<!-- ... -->\n", 10},
		{"an SQL comment", kept + "-- ...\n", 10},
		{"an ellipsis alone", kept + "    ...\n", 10},
		{"in brackets", kept + "[...]\n", 10},
		{"Gemini CLI's shorthand", kept + "(rest of methods ...)\n", 10},
		{"no ellipsis, words of placeholder.json", kept + "# rest of the code remains the same\n", 10},
		{"a block comment's words", kept + "/* remaining methods unchanged */\n", 10},
		{"an HTML comment's words", kept + "<!-- rest of the page unchanged -->\n", 10},
		{"two words", kept + "// Existing code\n", 10},
		{"a comment that explains", kept + "# keep the previous values where the user set none of their own\n", 0},
		{"a comment without such a word", kept + "// REST client\n", 0},
		{"code with such a word", kept + "same = previous  # the same\n", 0},
		{"a variadic macro", kept + "#define LOG(...) printf(__VA_ARGS__)\n", 0},
		{"spread arguments", kept + "console.log(...args);\nconst all = [...a, ...b];\n", 0},
		{"a string", kept + "print(\"loading...\")\n", 0},
		{"a shebang", "#!/bin/sh ...\n", 0},
		{"nothing dropped", module + "# ... more to come ...\n", 0},
		{"two lines dropped", strings.Replace(module, "def main():\n    print(load(sys.argv[1]))\n", "# ...\n", 1), 0},
		{"already there", "# ...\n" + kept, 0},
		{"the whole file, rewritten", "print('hello')\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := module
			if tc.name == "already there" {
				old = "# ...\n" + module
			}
			at, line, dropped := elided(old, tc.text)
			if at != tc.at || (at != 0) != (dropped >= minDropped) || (at != 0 && strings.TrimSpace(strings.Split(tc.text, "\n")[at-1]) != line) {
				t.Errorf("elided = %d, %q, %d; want line %d", at, line, dropped, tc.at)
			}
		})
	}
}

// TestPlaceholderRefusedOnce: a write or an edit that would replace the
// rest of a file with "# ... rest unchanged ..." is refused, naming the
// line, unless the user saw the call and allowed it; made again, the
// same call goes through. The approval question warns about it.
func TestPlaceholderRefusedOnce(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		tool string
		args any
	}{
		{"fs.write", WriteArgs{Path: "tool.py", Content: "import os\nimport sys\n\n\ndef load(path):\n    return open(path).read()\n\n\n# ... rest of the file unchanged ...\n"}},
		{"fs.edit", EditArgs{Path: "tool.py", Old: module[strings.Index(module, "def load"):], New: "def load(path):\n    return open(path).read()\n\n# ... existing code ...\n"}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			ws, dir := workspace(t, map[string]string{"tool.py": module})
			file := filepath.Join(dir, "tool.py")
			args, _ := json.Marshal(tc.args)
			if w := strings.Join(ws.Doubts(ctx, tc.tool, args), "\n"); !strings.Contains(w, "looks like a placeholder") || !strings.Contains(w, "lines would be gone") {
				t.Errorf("the approval question's warning: %q", w)
			}
			run := toolRunner(t, ws, tc.tool)
			_, err := run(args)
			if err == nil || !strings.Contains(err.Error(), "was not done: line") || !strings.Contains(err.Error(), "make the same call again") {
				t.Fatalf("first call: %v", err)
			}
			if got, _ := os.ReadFile(file); string(got) != module {
				t.Fatalf("the refused call changed the file: %q", got)
			}
			if _, err := run(args); err != nil {
				t.Fatalf("the same call again: %v", err)
			}
			if got, _ := os.ReadFile(file); !strings.Contains(string(got), "# ... ") {
				t.Errorf("the call made again was not done: %q", got)
			}

			// Shown to the user and allowed: done at once.
			if err := os.WriteFile(file, []byte(module), 0o644); err != nil {
				t.Fatal(err)
			}
			seen, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer seen.Close()
			var err2 error
			for _, x := range seen.Tools() {
				if x.Name() == tc.tool {
					_, err2 = x.Run(agent.WithSeen(ctx, true), args)
				}
			}
			if err2 != nil {
				t.Errorf("a call the user saw and allowed: %v", err2)
			}
		})
	}
}

// TestPlaceholderWordsClean: placeholder.json's words are lower case
// letters, each once, none the start of another (it would match for it).
func TestPlaceholderWordsClean(t *testing.T) {
	for i, w := range placeholderWords {
		if w == "" || strings.ToLower(w) != w || strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
			t.Errorf("%q is not a lower-case word", w)
		}
		for j, o := range placeholderWords {
			if i != j && strings.HasPrefix(o, w) {
				t.Errorf("%q starts %q: one of them is not needed", w, o)
			}
		}
	}
}
