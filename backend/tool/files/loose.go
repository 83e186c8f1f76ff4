package files

import (
	"fmt"
	"strings"
)

// Models copy the text they mean to replace with its spacing a little
// wrong more often than its words: trailing blanks dropped, a block's
// indentation lost or written with spaces where the file has tabs. An
// exact match then fails, and a small model often fails the same way
// again. Codex's apply_patch and Aider match such text line by line,
// looser at each pass; so does fs.edit, when the exact text is not there:
//
//  1. lines equal but for trailing blanks;
//  2. lines equal but for the blanks around them. The new text is then
//     indented as the file is: when each of the old text's lines is the
//     file's with one prefix of blanks swapped for another, the new
//     text's lines get the same swap; when they are not, nothing is
//     changed and the error shows the file's lines.
//
// A loose match counts only when it is the only one at its pass.

// looseMatch is an edit's old text found by lines.
type looseMatch struct {
	start, end int        // the file's lines [start, end)
	how        string     // what was ignored, for the result
	from, to   string     // indentation to swap in the new text's lines (pass 2)
	unit       indentUnit // the new text's lines put in the file's indentation unit first
}

// indentUnit rewrites a line's leading blanks in another unit.
type indentUnit struct {
	width  int  // spaces a tab stands for; 0 leaves the line as written
	toTabs bool // spaces become tabs; else tabs become spaces
}

// convert rewrites the leading blanks of line in the unit.
func (u indentUnit) convert(line string) string {
	if u.width == 0 {
		return line
	}
	lead, spaces := indent(line), strings.Repeat(" ", u.width)
	if u.toTabs {
		return strings.ReplaceAll(lead, spaces, "\t") + line[len(lead):]
	}
	return strings.ReplaceAll(lead, "\t", spaces) + line[len(lead):]
}

// indentUnits are tried in order: as written, then the usual widths, a
// model's spaces for a file's tabs first (Go, Makefiles).
var indentUnits = []indentUnit{{}, {4, true}, {2, true}, {8, true}, {4, false}, {2, false}, {8, false}}

// indent is a line's leading blanks.
func indent(line string) string { return line[:len(line)-len(strings.TrimLeft(line, " \t"))] }

// textLines splits an edit's text into lines, its line ends as "\n" and
// a final one dropped.
func textLines(text string) []string {
	return lines(strings.TrimSuffix(strings.ReplaceAll(text, "\r\n", "\n"), "\n"))
}

// mapLines applies f to each line, keeping its ending.
func mapLines(ls []string, f func(string) string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = f(bare(l)) + l[len(bare(l)):]
	}
	return out
}

// lines splits text into lines that keep their endings.
func lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.SplitAfter(text, "\n")
}

// bare is a line without its ending.
func bare(line string) string { return strings.TrimRight(line, "\r\n") }

// looseReplace makes the edit by lines: the content with the matched
// lines replaced, a note of what was ignored, and an error when there is
// no single loose match either (matched false: the caller's own error
// stands).
func looseReplace(in EditArgs, content string) (out, how string, matched bool, err error) {
	old := textLines(in.Old)
	if len(old) == 0 || strings.TrimSpace(in.Old) == "" {
		return "", "", false, nil
	}
	file := lines(content)
	for pass, same := range []func(a, b string) bool{
		func(a, b string) bool { return strings.TrimRight(a, " \t\r\n") == strings.TrimRight(b, " \t\r\n") },
		func(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) },
	} {
		var found []int
		for i := 0; i+len(old) <= len(file); i++ {
			ok := true
			for j, o := range old {
				if !same(file[i+j], o) {
					ok = false
					break
				}
			}
			if ok {
				found = append(found, i)
			}
		}
		switch {
		case len(found) > 1:
			return "", "", true, fmt.Errorf("the old text is not in %s as written, and with its spacing ignored it occurs %d times (from lines %d and %d): give more of the text around it, copied exactly", in.Path, len(found), found[0]+1, found[1]+1)
		case len(found) == 0:
			continue
		}
		m := looseMatch{start: found[0], end: found[0] + len(old), how: "trailing blanks ignored"}
		if pass == 1 {
			ok := false
			// The old text's indentation as written, then in the file's
			// unit: tabs for every 4, 2 or 8 spaces, or spaces for tabs.
			for _, m.unit = range indentUnits {
				if m.from, m.to, ok = reindent(mapLines(old, m.unit.convert), file[m.start:m.end]); ok {
					break
				}
			}
			if !ok {
				return "", "", true, fmt.Errorf("the old text is not in %s as written; with its spacing ignored it matches lines %d-%d, but their indentation differs from it line by line, so the new text cannot be indented to match. Those lines are, exactly:\n%s", in.Path, m.start+1, m.end, strings.Join(file[m.start:m.end], ""))
			}
			m.how = "indentation ignored; the new text was indented as the file is"
		}
		return m.apply(file, in.New), m.how, true, nil
	}
	return "", "", false, nil
}

// reindent finds the swap of leading blanks that turns each of the old
// text's lines into the file's, blank lines aside: every old line starts
// with from, and the file's line is to followed by the rest of it (a block
// copied without its indentation: from "" and to the block's; or with too
// much of it). It is read off the first line (their indentations less the
// end they share) and must hold for every line.
func reindent(old, file []string) (from, to string, ok bool) {
	first := true
	for i, o := range old {
		o, f := bare(o), bare(file[i])
		if strings.TrimSpace(o) == "" {
			continue
		}
		oi, fi := indent(o), indent(f)
		if first {
			n := 0
			for n < len(oi) && n < len(fi) && oi[len(oi)-1-n] == fi[len(fi)-1-n] {
				n++
			}
			from, to, first = oi[:len(oi)-n], fi[:len(fi)-n], false
		}
		rest, found := strings.CutPrefix(oi, from)
		if !found || to+rest != fi {
			return "", "", false
		}
	}
	return from, to, !first
}

// apply replaces the matched lines with the new text, its lines ended as
// the file's are and indented by the match's swap.
func (m looseMatch) apply(file []string, newText string) string {
	ending := "\n"
	if strings.HasSuffix(file[m.start], "\r\n") {
		ending = "\r\n"
	}
	last := file[m.end-1][len(bare(file[m.end-1])):] // the last matched line's ending ("" at the end of a file without one)
	var b strings.Builder
	for _, l := range file[:m.start] {
		b.WriteString(l)
	}
	if newText != "" {
		nl := textLines(newText)
		for i, l := range nl {
			l = m.unit.convert(bare(l))
			if rest, ok := strings.CutPrefix(l, m.from); ok && strings.TrimSpace(l) != "" {
				l = m.to + rest
			}
			b.WriteString(l)
			if i < len(nl)-1 {
				b.WriteString(ending)
			} else {
				b.WriteString(last)
			}
		}
	}
	for _, l := range file[m.end:] {
		b.WriteString(l)
	}
	return b.String()
}
