package files

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/samber/lo"
)

// A model asked to change part of a long file often writes the part it
// changed and a comment for the rest ("// ... existing code ...",
// "# rest of the file unchanged ...", "// 其余代码保持不变"), as it would
// in a chat answer. The file then loses the rest: under an "always" or
// --approve all nobody reads the diff, and the model ends its run
// believing the file whole. Cline, Roo Code and Gemini CLI look for such
// placeholders; so do the file tools. Where at least minDropped of the
// old text's lines are gone, the old and new texts' lines are compared
// (a patience diff, then a line diff within its gaps), and a line the old text did not have is a placeholder
// when it stands where some of the old text's code (or prose: lines that
// are no comments) went and
//   - is a comment that opens or ends with an ellipsis, or an ellipsis
//     alone or in brackets ("...", "[...]", "(rest of methods ...)"), or
//     a short comment with a word of placeholder.json ("# rest of the
//     code remains the same"); or
//   - in any language, is one of at most two comments that stand, alone,
//     where at least minBlock such lines went.
// Such a write or edit is refused once, saying why; the same call made
// again is done (a file may be meant to hold exactly that: a Python
// stub's "...").
//
// A comment with an ellipsis inside a sentence ("a counter, p01, …, and
// the rest"), and one in place of other comments (a doc comment
// rewritten), is no placeholder: over this repository's history (5,737
// files changed by hand), the first made 57 of 57 false alarms when any
// new comment with an ellipsis counted.

// minDropped is how many of the old text's lines a placeholder must
// stand for.
const minDropped = 3

// minBlock is how many of the old text's lines must go where a comment
// stands, alone, for it to be a placeholder without an ellipsis or a
// word of one.
const minBlock = 5

// ellipsis matches what a placeholder is by its form: a comment whose
// text opens with an ellipsis (not one of a path's, "…/list_changed") or
// ends with one (`// ... existing code ...`, `# ...rest unchanged`,
// `<!-- … -->`, `-- ...`), or an ellipsis alone or in brackets (`...`,
// `[...]`, `(rest of methods ...)`, `[其余代码保持不变...]`). A comment's
// `#`, `;`, `%` or `--` is followed by a blank, so `#define LOG(...)` is
// code.
var ellipsis = regexp.MustCompile(`^(?:(?://+|/\*+|<!--|\{/\*|(?:#+|;+|%+|--)(?:\s|$))\s*(?:(?:\.\.\.|…)(?:[^/.]|$)|.{0,100}(?:\.\.\.|…)[\s\])）]*(?:\*+/\}?|-->)?$)|[\[(]?\s*(?:\.\.\.|…)\s*[\])]?$|[\[(][^()\[\]]{0,60}(?:\.\.\.|…)[^()\[\]]{0,60}[\])]$)`)

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

// isPlaceholder reports whether a line (trimmed) is a placeholder by its
// form: an ellipsis at a comment's edge, alone or in brackets, or a short
// comment with a word of placeholder.json.
func isPlaceholder(line string) bool {
	if ellipsis.MatchString(line) {
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

// numbered is a text's non-blank line, trimmed, with its line number.
type numbered struct {
	text string
	at   int
}

// nonBlank returns text's non-blank lines.
func nonBlank(text string) []numbered {
	var out []numbered
	n := 0
	for l := range strings.Lines(text) {
		n++
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, numbered{l, n})
		}
	}
	return out
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
	fresh := func(l numbered) bool { return !had[l.text] && len(l.text) <= 140 }
	// stands reports a line of put that stands for lines of went.
	stands := func(went, put []numbered) (numbered, bool) {
		gone := lo.CountBy(went, func(l numbered) bool { return !have[l.text] && !comment.MatchString(l.text) })
		if gone == 0 {
			return numbered{}, false
		}
		if l, ok := lo.Find(put, func(l numbered) bool { return fresh(l) && isPlaceholder(l.text) }); ok {
			return l, true
		}
		notes := lo.Filter(put, func(l numbered, _ int) bool { return !trivial(l) })
		if gone >= minBlock && len(notes) > 0 && len(notes) <= 2 && lo.EveryBy(notes, func(l numbered) bool { return fresh(l) && comment.MatchString(l.text) }) {
			return notes[0], true
		}
		return numbered{}, false
	}
	for _, g := range gaps(nonBlank(old), nonBlank(text)) {
		if len(g.old)*len(g.new) > maxGap { // read whole
			if l, ok := stands(g.old, g.new); ok {
				return l.at, l.text, dropped
			}
			continue
		}
		for _, h := range hunks(g.old, g.new) {
			if l, ok := stands(g.old[h.I1:h.I2], g.new[h.J1:h.J2]); ok {
				return l.at, l.text, dropped
			}
		}
	}
	return 0, "", 0
}

// maxGap bounds the gaps compared line by line (old lines times new
// lines: a line diff's cost is quadratic at worst); a larger one is read
// whole.
const maxGap = 1 << 20

// gap is a stretch of the old text and the stretch of the new text in
// its place.
type gap struct{ old, new []numbered }

// gaps returns where a's and b's lines differ, as a patience diff finds
// them: the lines that each text has once, in the same order in both
// (the longest such run), hold the texts together, and what lies
// between two of them is a gap. Lines common in code ("}", "return",
// "end") hold nothing, so a placeholder's closing brace is not taken for
// that of a method left out; and it takes O(n log n), where a line
// diff's worst case is quadratic (0.7 s for 5,000 lines): gaps are then
// compared line by line (hunks).
func gaps(a, b []numbered) []gap {
	count := func(ls []numbered) map[string]int {
		m := make(map[string]int, len(ls))
		for _, l := range ls {
			m[l.text]++
		}
		return m
	}
	inA, inB := count(a), count(b)
	at := make(map[string]int, len(b))
	for j, l := range b {
		at[l.text] = j
	}
	// The anchors, in a's order: (i, j) for each line once in each.
	type pair struct{ i, j int }
	var pairs []pair
	for i, l := range a {
		if inA[l.text] == 1 && inB[l.text] == 1 {
			pairs = append(pairs, pair{i, at[l.text]})
		}
	}
	// The longest run of them increasing in b too (patience sorting).
	var tops []int // per length, the index in pairs of the smallest j that ends a run that long
	prev := make([]int, len(pairs))
	for k, p := range pairs {
		n, _ := slices.BinarySearchFunc(tops, p.j, func(t, j int) int { return cmp.Compare(pairs[t].j, j) })
		prev[k] = -1
		if n > 0 {
			prev[k] = tops[n-1]
		}
		if n == len(tops) {
			tops = append(tops, k)
		} else {
			tops[n] = k
		}
	}
	anchors := []pair{{len(a), len(b)}}
	if len(tops) > 0 {
		for k := tops[len(tops)-1]; k >= 0; k = prev[k] {
			anchors = append(anchors, pairs[k])
		}
	}
	anchors = append(anchors, pair{-1, -1})
	slices.Reverse(anchors)
	var out []gap
	for k := 1; k < len(anchors); k++ {
		from, to := anchors[k-1], anchors[k]
		if to.i-from.i > 1 || to.j-from.j > 1 {
			out = append(out, gap{a[from.i+1 : to.i], b[from.j+1 : to.j]})
		}
	}
	return out
}

// hunks returns the stretches where the lines of a gap's two sides
// differ (a line diff). A stretch that only takes lines away is one with
// the stretch before or after it when what they share between them is
// at most two short lines (a closing bracket or the like: "}", "end",
// "];"): the diff may match the "}" after a placeholder with that of a
// method left out, and cut what went in two.
func hunks(a, b []numbered) []difflib.OpCode {
	texts := func(ls []numbered) []string { return lo.Map(ls, func(l numbered, _ int) string { return l.text }) }
	var out []difflib.OpCode
	join := false // the last stretch is followed by a trivial match only (opcodes alternate: equal, then not)
	for _, op := range difflib.NewMatcher(texts(a), texts(b)).GetOpCodes() {
		switch {
		case op.Tag == 'e':
			join = len(out) > 0 && op.I2-op.I1 <= 2 && lo.EveryBy(a[op.I1:op.I2], trivial)
		case join && (op.Tag == 'd' || out[len(out)-1].Tag == 'd'):
			last := &out[len(out)-1]
			last.Tag, last.I2, last.J2 = 'r', op.I2, op.J2
		default:
			out = append(out, op)
		}
	}
	return out
}

// trivial reports whether a line is too short to say where it was.
func trivial(l numbered) bool { return len(l.text) <= 3 }

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
