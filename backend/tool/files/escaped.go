package files

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shrimp-harness/shrimp/internal/plural"
)

// Some models write a file's text through one JSON encoding too many: its
// line breaks arrive as the two characters `\n`, its quotes as `\"`
// (reported of Grok, of small local models writing calls as text, and of
// proxies: openclaw #14452, docker-agent #99). fs.write of such text makes
// a file of one line; fs.edit finds no such old text. Text that holds no
// line break but does hold `\n` escapes, and reads as the inside of a JSON
// string, is taken to be such text: fs.edit tries it with its escapes read
// (only when it is not in the file as written, loosely either), and
// fs.write refuses it once, saying so (made again, it is written).

// escapedLines returns s with its JSON escapes read, and whether s looks
// like text encoded once too often: no line break, at least one `\n`
// escape, and the inside of a valid JSON string (so no bare quote: a line
// of code with "\n" in a string literal keeps its quotes bare).
func escapedLines(s string) (string, bool) {
	if strings.Contains(s, "\n") || !strings.Contains(s, `\n`) {
		return "", false
	}
	var out string
	if json.Unmarshal([]byte(`"`+s+`"`), &out) != nil {
		return "", false
	}
	return out, true
}

// escapedDoubt is the doubt about fs.write's content that looks encoded
// once too often: one line holding at least two `\n` escapes (a one-line
// file may be meant to hold them); nil when it does not.
func escapedDoubt(content string) *doubt {
	text, ok := escapedLines(content)
	if !ok || strings.Count(text, "\n") < 2 {
		return nil
	}
	return &doubt{
		why:    fmt.Sprintf("the content is one line holding %s written out (a backslash, then n), so the file would be a single line", plural.N(strings.Count(content, `\n`), `\n`, `\n's`)),
		advice: "Write it with real line breaks (escaped once in the call's JSON, not twice)",
	}
}

// newEscapedDoubt is the doubt about an edit whose new text looks encoded
// once too often (one line holding `\n` escapes, no bare quote) while its
// old text has no such escape of its own: the old text was found as
// written, but the new would put a backslash and an n where a line break
// was meant; nil when it does not.
func newEscapedDoubt(in EditArgs) *doubt {
	if _, ok := escapedLines(in.New); !ok || strings.Contains(in.Old, `\n`) {
		return nil
	}
	return &doubt{
		why:    fmt.Sprintf("the new text is one line holding %s written out (a backslash, then n) where the old text has none", plural.N(strings.Count(in.New, `\n`), `\n`, `\n's`)),
		advice: "Give it with real line breaks (escaped once in the call's JSON, not twice)",
	}
}
