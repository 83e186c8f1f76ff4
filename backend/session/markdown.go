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
	// A fence is read two ways: at a line's start only, and after up to
	// three spaces, as CommonMark reads one outside a list or a quote
	// (inside one, the container's end closes it, which no line says). A
	// line is left as it is only when both readings put it in a fence:
	// " ```" read only the first way made the next "```" seem to open a
	// fence the renderer closed there, and what followed escaped nothing.
	// (A fence's own lines pass through inertLine unchanged.)
	at, indented := "", "" // the fence each reading has open, if any
	for line := range strings.Lines(md) {
		inside := at != "" && indented != ""
		at, indented = step(at, line, 0), step(indented, line, 3)
		if inside && at != "" && indented != "" {
			b.WriteString(line)
			continue
		}
		b.WriteString(inertLine(line))
	}
	// Left open, a fence would run on into the next message and pair with
	// its fences, not with the ones read here.
	for i, fence := range []string{at, indented} {
		if fence == "" || i == 1 && fence == at {
			continue
		}
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(fence)
	}
	return b.String()
}

// step is the fence open after line, given the one open before it
// (fence, "" for none), fences opening after up to indent spaces.
func step(fence, line string, indent int) string {
	if fence == "" {
		return openFence(line, indent)
	}
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) < 4 && strings.HasPrefix(trimmed, fence) && strings.Trim(strings.TrimRight(trimmed, " \t\r\n"), fence[:1]) == "" {
		return ""
	}
	return fence
}

// openFence returns the fence a line opens after up to indent spaces
// ("```", "~~~~", …), or "".
func openFence(line string, indent int) string {
	for i := 0; i < indent && strings.HasPrefix(line, " "); i++ {
		line = line[1:]
	}
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
