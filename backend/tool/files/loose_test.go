package files

import (
	"strings"
	"testing"
)

// TestLooseEdits: old text whose spacing a model got wrong is found line
// by line when it is found only once, the new text indented as the file
// is; what cannot be matched surely changes nothing and says why.
func TestLooseEdits(t *testing.T) {
	goFile := "package main\n\nfunc main() {\n\tif ok {\n\t\tcall(1)\n\t\tcall(2)\n\t}\n}\n"
	for _, tc := range []struct {
		name, content, old, new string
		want, how, err          string
	}{
		{name: "exact still exact", content: goFile, old: "call(1)", new: "call(3)", want: strings.Replace(goFile, "call(1)", "call(3)", 1)},
		{name: "trailing blanks", content: "a  \nb\t\nc\n", old: "a\nb\n", new: "x\ny\n", want: "x\ny\nc\n", how: "trailing blanks"},
		{name: "indentation dropped", content: goFile, old: "if ok {\n\tcall(1)\n\tcall(2)\n}", new: "if ok {\n\tcall(1)\n}",
			want: "package main\n\nfunc main() {\n\tif ok {\n\t\tcall(1)\n\t}\n}\n", how: "indentation ignored"},
		{name: "indented too much", content: "def f():\n    return 1\n", old: "        def f():\n            return 1", new: "        def f():\n            return 2",
			want: "def f():\n    return 2\n", how: "indentation ignored"},
		{name: "blank lines inside", content: "\tone\n\n\ttwo\n", old: "one\n   \ntwo\n", new: "uno\n\ndos\n", want: "\tuno\n\n\tdos\n", how: "indentation ignored"},
		{name: "windows endings", content: "\tx := 1\r\n\ty := 2\r\n", old: "x := 1\ny := 2", new: "x := 3\ny := 4",
			want: "\tx := 3\r\n\ty := 4\r\n", how: "indentation ignored"},
		{name: "at the end without a newline", content: "a\n\tlast", old: "  last", new: "  final\n  line", want: "a\n\tfinal\n\tline", how: "indentation ignored"},
		{name: "deleting", content: "keep\n  drop1\n  drop2\nkeep\n", old: "drop1\ndrop2\n", new: "", want: "keep\nkeep\n", how: "indentation ignored"},
		{name: "spaces for the file's tabs, two levels", content: "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n", old: "    if x {\n        y()\n    }", new: "    if z {\n        y()\n        w()\n    }",
			want: "func f() {\n\tif z {\n\t\ty()\n\t\tw()\n\t}\n}\n", how: "indentation ignored"},
		{name: "tabs for the file's two spaces", content: "a:\n  b:\n    c: 1\n", old: "b:\n\tc: 1", new: "b:\n\tc: 2\n\td: 3",
			want: "a:\n  b:\n    c: 2\n    d: 3\n", how: "indentation ignored"},
		{name: "indentation that no unit explains", content: "\tif x {\n\t   y()\n\t}\n", old: "if x {\n  y()\n}", new: "z",
			err: "indentation differs from it line by line"},
		{name: "found twice loosely", content: "\tx()\n  x()\n", old: "x()", new: "y()", err: "occurs 2 times"},
		{name: "words differ", content: goFile, old: "call(9)", new: "x", err: "copy the text exactly"},
		{name: "blank lines only", content: "a\n\n\nb\n", old: " \n \n", new: "x", err: "copy the text exactly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, how, err := replaced(EditArgs{Path: "f", Old: tc.old, New: tc.new}, tc.content)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q (content %q)", err, tc.err, got)
				}
				return
			}
			if err != nil || got != tc.want || !strings.Contains(how, tc.how) || (tc.how == "") != (how == "") {
				t.Fatalf("got %q (%q, %v), want %q", got, how, err, tc.want)
			}
		})
	}
}

// FuzzLooseEdit: a loose match never panics, and when it edits, the file
// outside the matched lines is kept byte for byte, the lines it replaced
// are the old text's lines with their spacing ignored, and the new text's
// words come out in order.
func FuzzLooseEdit(f *testing.F) {
	f.Add("func a() {\n\treturn 1\n}\n", "func a() {\n    return 1\n}", "func a() {\n    return 2\n}")
	f.Add("x  \ny\n", "x\ny", "z")
	f.Add("a\r\n  b\r\nc", "b\nc", "d\ne")
	f.Add("\t\tif x {\n\t\t\ty()\n\t\t}\n", "if x {\n    y()\n}", "if x {\n    z()\n}\n")
	f.Add("", "\n", "x")
	f.Fuzz(func(t *testing.T, content, old, new string) {
		out, how, matched, err := looseReplace(EditArgs{Path: "f", Old: old, New: new}, content)
		if !matched || err != nil {
			return
		}
		if how == "" {
			t.Fatal("an edit without saying what was ignored")
		}
		// Lines as the file has them (SplitAfter's empty last piece aside).
		in, got := strings.SplitAfter(content, "\n"), strings.SplitAfter(out, "\n")
		// The lines kept before and after the match.
		pre := 0
		for pre < len(in) && pre < len(got) && in[pre] == got[pre] {
			pre++
		}
		suf := 0
		for suf < len(in)-pre && suf < len(got)-pre && in[len(in)-1-suf] == got[len(got)-1-suf] {
			suf++
		}
		removed := in[pre : len(in)-suf]
		oldLines := textLines(old)
		if len(removed) > len(oldLines) {
			t.Fatalf("%d lines changed for an old text of %d lines:\n%q\n->\n%q", len(removed), len(oldLines), content, out)
		}
		// Every changed line is one of the old text's, spacing aside, in
		// its place (the kept lines may have matched a few of them).
		for i := range removed {
			found := false
			for _, o := range oldLines {
				if strings.TrimSpace(removed[i]) == strings.TrimSpace(o) {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("changed line %q is not in the old text %q", removed[i], old)
			}
		}
		// The new text's words, in order.
		words := strings.Fields(new)
		rest := out
		for _, w := range words {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Fatalf("new text's %q missing or out of order in %q", w, out)
			}
			rest = rest[i+len(w):]
		}
	})
}
