package files

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
		{"a comment that explains", kept + "# keep the previous values where the user set none of their own\nvalues = {}\n", 0},
		{"a comment without such a word", kept + "// REST client\nclient = None\n", 0},
		// In any language, a comment alone where five lines of code went.
		{"a comment alone where the code went", kept + "# 其余代码保持不变\n", 10},
		{"an ellipsis inside a sentence", kept + "# retries 1, 2, … up to five\nretries = 5\n", 0},
		{"an ellipsis of a path", kept + "# …/list_changed is sent on a change\nwatch = True\n", 0},
		{"in brackets with words", kept + "[rest of the code unchanged...]\n", 10},
		{"code with such a word", kept + "same = previous  # the same\n", 0},
		{"a variadic macro", kept + "#define LOG(...) printf(__VA_ARGS__)\n", 0},
		{"spread arguments", kept + "console.log(...args);\nconst all = [...a, ...b];\n", 0},
		{"a string", kept + "print(\"loading...\")\n", 0},
		{"a shebang", "#!/bin/sh ...\n", 0},
		{"nothing dropped", module + "# ... more to come ...\n", 0},
		// A placeholder stands where lines went, not beside a deletion
		// elsewhere.
		{"away from what went", "# ... more to come ...\n" + kept, 0},
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

// goFile is a Go file of four functions with a doc comment.
const goFile = `package shop

// Basket holds what a customer picked,
// in the order they picked it, with
// the quantity of each, and is saved
// with the session: a basket outlives
// the page it was filled on, and is
// emptied once the order is placed.
type Basket struct{ Items []Item }

func (b *Basket) Add(it Item) {
	for i := range b.Items {
		if b.Items[i].SKU == it.SKU {
			b.Items[i].Qty += it.Qty
			return
		}
	}
	b.Items = append(b.Items, it)
}

func (b *Basket) Remove(sku string) {
	for i := range b.Items {
		if b.Items[i].SKU == sku {
			b.Items = append(b.Items[:i], b.Items[i+1:]...)
			return
		}
	}
}

func (b *Basket) Total() (cents int) {
	for _, it := range b.Items {
		cents += it.Qty * it.Cents
	}
	return cents
}

func (b *Basket) Empty() bool {
	return len(b.Items) == 0
}
`

// TestPlaceholders: each placeholder of testdata/placeholders.json, as
// models write them in several languages, is found where it stands for
// code that went: at the file's end, and between two functions kept (the
// closing brace of the one kept may match that of one left out); a note
// written beside the code that replaced what went, and a doc comment
// rewritten shorter, are not.
func TestPlaceholders(t *testing.T) {
	var data struct {
		Placeholders, Notes []string
	}
	raw, err := os.ReadFile("testdata/placeholders.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	head := goFile[:strings.Index(goFile, "func (b *Basket) Remove")]
	tail := goFile[strings.Index(goFile, "func (b *Basket) Empty"):]
	changedAdd := strings.Replace(head, "b.Items[i].Qty += it.Qty", "b.Items[i].Qty += max(it.Qty, 1)", 1)
	for _, p := range data.Placeholders {
		for _, text := range []string{changedAdd + p + "\n", changedAdd + p + "\n\n" + tail} {
			if at, line, _ := elided(goFile, text); line != p {
				t.Errorf("%q not found (found line %d, %q) in:\n%s", p, at, line, text)
			}
		}
	}
	// In a class, the closing brace after the placeholder matches a
	// method's, which cuts what went in two.
	class := "class Basket {\n  add(it) {\n    this.items.push(it)\n  }\n  remove(sku) {\n    this.items = this.items.filter(i => i.sku !== sku)\n  }\n  total() {\n    return this.items.reduce((s, i) => s + i.cents, 0)\n  }\n  empty() {\n    return this.items.length === 0\n  }\n}\n"
	for _, p := range data.Placeholders {
		text := "class Basket {\n  add(it) {\n    this.items.push({ ...it })\n  }\n  " + p + "\n}\n"
		if at, line, _ := elided(class, text); line != p {
			t.Errorf("%q not found in a class (found line %d, %q)", p, at, line)
		}
	}
	for _, n := range data.Notes {
		text := head + "func (b *Basket) Remove(sku string) {\n\t" + n + "\n\tb.Items = slices.DeleteFunc(b.Items, func(it Item) bool { return it.SKU == sku })\n}\n\n" + tail
		if at, line, _ := elided(goFile, text); at != 0 {
			t.Errorf("the note %q taken for a placeholder (line %d, %q)", n, at, line)
		}
	}
	shorter := strings.Replace(goFile, goFile[strings.Index(goFile, "// Basket holds"):strings.Index(goFile, "type Basket")], "// Basket holds what a customer picked,\n// saved with the session.\n", 1)
	if at, line, _ := elided(goFile, shorter); at != 0 {
		t.Errorf("a doc comment rewritten shorter taken for a placeholder (line %d, %q)", at, line)
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

// BenchmarkElided is the placeholder check of a write that keeps the
// first half of a file of 5,000 lines (functions much alike, as
// generated code is) and puts a placeholder for the rest.
func BenchmarkElided(b *testing.B) {
	var old strings.Builder
	for i := 0; old.Len() == 0 || strings.Count(old.String(), "\n") < 5000; i++ {
		fmt.Fprintf(&old, "func f%d(x int) int {\n\tif x > %d {\n\t\treturn x\n\t}\n\treturn 0\n}\n\n", i, i)
	}
	lines := strings.SplitAfter(old.String(), "\n")
	text := strings.Join(lines[:len(lines)/2], "") + "// ... rest unchanged ...\n"
	b.ReportAllocs()
	for b.Loop() {
		if at, _, _ := elided(old.String(), text); at == 0 {
			b.Fatal("the placeholder was not found")
		}
	}
}

// TestPlaceholderHistory runs the placeholder check over the changes
// scripts/placeholder-history.sh takes from this repository's history
// (SHRIMP_PLACEHOLDER_PAIRS: its folder of old and new texts): each
// refusal is a false alarm, and more than 0.2% fail the test.
func TestPlaceholderHistory(t *testing.T) {
	dir := os.Getenv("SHRIMP_PLACEHOLDER_PAIRS")
	if dir == "" {
		t.Skip("SHRIMP_PLACEHOLDER_PAIRS is not set: run scripts/placeholder-history.sh")
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.txt"))
	if err != nil {
		t.Fatal(err)
	}
	total, alarms := 0, 0
	for l := range strings.Lines(string(index)) {
		f := strings.Fields(l)
		old, err1 := os.ReadFile(filepath.Join(dir, f[0]+".old"))
		text, err2 := os.ReadFile(filepath.Join(dir, f[0]+".new"))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		total++
		if at, line, dropped := elided(string(old), string(text)); at != 0 {
			alarms++
			t.Logf("%.8s %s line %d (%d lines gone): %q", f[1], f[2], at, dropped, line)
		}
	}
	t.Logf("%d false alarms in %d files changed (%.2f%%)", alarms, total, 100*float64(alarms)/float64(max(total, 1)))
	if total == 0 || alarms*500 > total {
		t.Errorf("%d false alarms in %d files changed: over 0.2%%", alarms, total)
	}
}

// FuzzGaps: whatever two texts, the lines outside gaps are the same on
// both sides, in the same order (the anchors), and each line is in one
// gap at most; elided never fails and names a line of the new text.
func FuzzGaps(f *testing.F) {
	f.Add(goFile, strings.Replace(goFile, "func (b *Basket) Total", "// 其余代码保持不变\nfunc (b *Basket) Total2", 1))
	f.Add(module, "import os\n# ...\n")
	f.Add("a\nb\na\n", "b\na\nb\n")
	f.Fuzz(func(t *testing.T, old, text string) {
		a, b := nonBlank(old), nonBlank(text)
		inGap := func(ls []numbered, side func(gap) []numbered) []string {
			seen := map[int]bool{}
			for _, g := range gaps(a, b) {
				for _, l := range side(g) {
					if seen[l.at] {
						t.Fatalf("line %d in two gaps", l.at)
					}
					seen[l.at] = true
				}
			}
			var out []string
			for _, l := range ls {
				if !seen[l.at] {
					out = append(out, l.text)
				}
			}
			return out
		}
		if x, y := inGap(a, func(g gap) []numbered { return g.old }), inGap(b, func(g gap) []numbered { return g.new }); !slices.Equal(x, y) {
			t.Fatalf("outside the gaps, old has %q and new %q", x, y)
		}
		if at, line, _ := elided(old, text); at != 0 {
			if lines := strings.Split(text, "\n"); at > len(lines) || strings.TrimSpace(lines[at-1]) != line {
				t.Fatalf("elided names line %d, %q, which text does not have there", at, line)
			}
		}
	})
}
