// Package fence puts text in a Markdown code fence it cannot close: one
// backtick longer than the text's longest run of backticks, three at
// least (CommonMark), so text holding "```" stays inside its block
// instead of turning what follows into Markdown.
package fence

import "strings"

// Around returns text fenced, info after the opening fence.
func Around(info, text string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + info + "\n" + text + "\n" + fence
}
