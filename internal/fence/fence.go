// Package fence puts text in Markdown code it cannot leave: a code fence
// one backtick longer than the text's longest run of backticks, three at
// least, or an inline code span likewise one longer (CommonMark), so text
// holding "```" or "`<img …>`" stays code instead of turning what follows
// into Markdown.
package fence

import "strings"

// Around returns text fenced, info after the opening fence.
func Around(info, text string) string {
	fence := strings.Repeat("`", max(3, longestRun(text)+1))
	return fence + info + "\n" + text + "\n" + fence
}

// Inline returns text, on one line, as an inline code span: between
// backtick runs longer than any it holds, with a space inside each so a
// backtick at its edge stays text.
func Inline(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	ticks := strings.Repeat("`", longestRun(text)+1)
	return ticks + " " + text + " " + ticks
}

// longestRun is the length of text's longest run of backticks.
func longestRun(text string) int {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
