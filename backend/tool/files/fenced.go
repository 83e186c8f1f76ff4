package files

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// A model writes a file's content as it writes code in a chat answer:
// "```python" first, "```" last. The fence lines then land in the file, a
// syntax error in every language but Markdown. fs.write refuses such
// content once for a code file (once.go).

// fence matches a Markdown code fence's opening or closing line.
var fence = regexp.MustCompile("^(```|~~~)[A-Za-z0-9_+.#-]*$")

// proseExtensions are the file kinds whose content may well be a fenced
// block: a whole-file fence is not doubted there.
var proseExtensions = map[string]bool{".md": true, ".markdown": true, ".mdx": true, ".txt": true, ".rst": true, "": true}

// fencedDoubt is the doubt about fs.write's content wrapped whole in a
// Markdown code fence ("```python" … "```"), as a model writes code in a
// chat answer: the fence lines would be written into the file (a syntax
// error in every language but Markdown); nil when it is not.
func fencedDoubt(p, content string) *doubt {
	if proseExtensions[strings.ToLower(path.Ext(p))] {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(content), "\n")
	if len(lines) < 2 {
		return nil
	}
	first, last := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[len(lines)-1])
	if !fence.MatchString(first) || last != first[:3] {
		return nil
	}
	return &doubt{
		why:    fmt.Sprintf("the content is wrapped in a Markdown code fence (%s … %s), whose lines would be written into %s", first, last, path.Base(p)),
		advice: "Give the file's content alone, without the fence lines",
	}
}
