package session

import (
	"strings"
)

// inert returns a model's Markdown answer that loads nothing when the
// export is opened in a Markdown viewer: an image ("![…](…)", "![…][…]")
// or raw HTML ("<img …>", "<iframe …>") would be fetched or run the moment
// it is shown, with whatever an injection put in its address (the EchoLeak
// pattern). "![" becomes "!\[" and "<" before a tag, comment or autolink
// becomes "\<": backslash escapes a viewer shows as the text itself. Only
// code blocks fenced at the line's start are left as they are: CommonMark
// ends a fence indented in a list item where the item ends, so escaping
// stops only where no viewer can read anything but code (in inline code
// and indented blocks the backslash shows). Links stay links: they load
// only when clicked. A fence left open is closed at the end.
func inert(md string) string {
	var b strings.Builder
	b.Grow(len(md) + 16)
	fence := "" // the open code fence, if any
	for line := range strings.Lines(md) {
		if fence != "" {
			b.WriteString(line)
			trimmed := strings.TrimLeft(line, " ")
			if len(line)-len(trimmed) < 4 && strings.HasPrefix(trimmed, fence) && strings.Trim(strings.TrimRight(trimmed, " \t\r\n"), fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if fence = openFence(line); fence != "" {
			b.WriteString(line)
			continue
		}
		b.WriteString(inertLine(line))
	}
	if fence != "" {
		// Left open, the fence would run on into the next message and
		// pair with its fences, not with the ones read here.
		if !strings.HasSuffix(md, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(fence)
	}
	return b.String()
}

// openFence returns the fence a line opens at its start ("```", "~~~~",
// …), or "".
func openFence(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 && (c == '~' || !strings.ContainsRune(line[n:], '`')) {
			return line[:n]
		}
	}
	return ""
}

// inertLine escapes one line's images and tags.
func inertLine(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line):
			b.WriteString(line[i : i+2]) // an escape already: keep the pair
			i++
		case c == '!' && i+1 < len(line) && line[i+1] == '[':
			b.WriteString(`!\[`)
			i++
		case c == '<' && i+1 < len(line) && tagStart(line[i+1]):
			b.WriteString(`\<`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// tagStart reports whether c, after "<", starts an HTML tag, a closing
// tag, a comment or declaration, a processing instruction or an autolink.
func tagStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}
