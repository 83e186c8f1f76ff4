package files

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// A model asked to change part of a long file often writes the part it
// changed and a comment for the rest ("// ... existing code ...",
// "# rest of the file unchanged ..."), as it would in a chat answer. The
// file then loses the rest: under an "always" or --approve all nobody
// reads the diff, and the model ends its run believing the file whole.
// Cline, Roo Code and Gemini CLI look for such placeholders; so do the
// file tools: a line of the new text that is a comment (or nothing)
// around an ellipsis, or a short comment with a word of placeholder.json
// ("# rest of the code remains the same"), which the old text did not
// have, where at least minDropped of the old text's lines are gone. Such a
// write or edit is refused once, saying why; the same call made again is
// done (a file may be meant to hold exactly that: a Python stub's "...").

// minDropped is how many of the old text's lines a placeholder must
// stand for.
const minDropped = 3

// placeholder matches a line that is a comment holding an ellipsis
// (`// ... existing code ...`, `# ... rest unchanged`, `<!-- … -->`,
// `-- ...`), or an ellipsis alone or in brackets (`...`, `[...]`,
// `(rest of methods ...)`). A comment's `#`, `;`, `%` or `--` is
// followed by a blank, so `#define LOG(...)` is code.
var placeholder = regexp.MustCompile(`^(?:(?://|/\*|<!--|\{/\*|(?:#+|;+|%+|--)(?:\s|$)).{0,100}(?:\.\.\.|…)|[\[(]?\s*(?:\.\.\.|…)\s*[\])]?$|\([^()]{0,60}(?:\.\.\.|…)[^()]{0,60}\)$)`)

// comment matches a line that is a comment, capturing its text.
var comment = regexp.MustCompile(`^(?://+|/\*+|<!--|\{/\*|(?:#+|;+|%+|--)(?:\s|$))\s*(.*?)\s*(?:\*+/\}?|-->)?$`)

//go:embed placeholder.json
var placeholderJSON []byte

// placeholderWords are placeholder.json's words.
var placeholderWords = func() []string {
	var f struct {
		Words []string `json:"words"`
	}
	if err := json.Unmarshal(placeholderJSON, &f); err != nil || len(f.Words) == 0 {
		panic(fmt.Sprintf("placeholder.json: %v", err))
	}
	return f.Words
}()

// maxPlaceholderWords is the most words a placeholder comment without an
// ellipsis has: a longer one explains code.
const maxPlaceholderWords = 8

// isPlaceholder reports whether a line (trimmed) stands in for text left
// out: an ellipsis alone or in a comment (placeholder), or a short
// comment with a word of placeholder.json.
func isPlaceholder(line string) bool {
	if placeholder.MatchString(line) {
		return true
	}
	m := comment.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	words := strings.FieldsFunc(strings.ToLower(m[1]), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) == 0 || len(words) > maxPlaceholderWords {
		return false
	}
	for _, w := range words {
		for _, p := range placeholderWords {
			if strings.HasPrefix(w, p) {
				return true
			}
		}
	}
	return false
}

// elided returns the first line of text (1-based, and the line) that
// stands in for lines of old it drops, with how many of old's lines are
// gone; 0 when none does.
func elided(old, text string) (at int, line string, dropped int) {
	have := map[string]bool{}
	for l := range strings.Lines(text) {
		have[strings.TrimSpace(l)] = true
	}
	had := map[string]bool{}
	for l := range strings.Lines(old) {
		l = strings.TrimSpace(l)
		if l != "" && !had[l] {
			had[l] = true
			if !have[l] {
				dropped++
			}
		}
	}
	if dropped < minDropped {
		return 0, "", 0
	}
	n := 0
	for l := range strings.Lines(text) {
		n++
		l = strings.TrimSpace(l)
		if !had[l] && len(l) <= 140 && isPlaceholder(l) {
			return n, l, dropped
		}
	}
	return 0, "", 0
}

// placeholderDoubt is the doubt about a tool's text (fs.write's content,
// or the file after fs.edit) that replaces the old text with a
// placeholder for some of it (elided); nil when it does not.
func placeholderDoubt(tool, old, text string) *doubt {
	if old == "" {
		return nil
	}
	at, line, dropped := elided(old, text)
	if at == 0 {
		return nil
	}
	d := &doubt{
		why:    fmt.Sprintf("line %d of what it would write, %q, looks like a placeholder for text the file has, and %d of the file's lines would be gone", at, line, dropped),
		advice: "fs.write replaces the whole file with exactly the content it is given: write the file out in full, or change part of it with fs.edit",
	}
	if tool == "fs.edit" {
		d.advice = "fs.edit puts the new text in place of the old exactly: give the new text in full, or replace a smaller part of the file"
	}
	return d
}
