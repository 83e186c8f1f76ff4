package web

import (
	"bytes"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// pageText returns what a page says, as text for the model, from its body
// and Content-Type. HTML gives the text a reader without scripts sees: not
// scripts, styles or templates, and not what the page hides from the
// reader (the hidden attribute, aria-hidden, display:none,
// visibility:hidden), which is where an injection aimed at the model and
// not the person reading would sit; how much was left out so is said. A
// body in another character set (the header's, or the page's own <meta>)
// is decoded. Links in the page's text read as Markdown writes them,
// [text](address), their addresses made absolute from base (the page's
// own address; nil leaves links as their text) or the page's <base>; not
// those of its navigation, header, footer and asides, which would fill
// what the model reads with menus. A body that is not text (an image, an archive, a PDF) is an
// error saying so: its bytes would only fill the model's context.
func pageText(body []byte, contentType string, base *url.URL) (string, error) {
	media, _, _ := mime.ParseMediaType(contentType)
	if !textual(media, body) {
		return "", fmt.Errorf("the answer is %s, not text: web.fetch reads pages and text files (HTML, plain text, JSON, XML, CSV, Markdown)", describeMedia(media))
	}
	isHTML := media == "text/html" || media == "application/xhtml+xml" || (media == "" && looksHTML(body))
	if r, err := charset.NewReader(bytes.NewReader(body), contentType); err == nil && (isHTML || !utf8.Valid(body)) {
		var b bytes.Buffer
		if _, err := b.ReadFrom(r); err == nil {
			body = b.Bytes()
		}
	}
	text := strings.ToValidUTF8(string(body), "\uFFFD")
	if !isHTML {
		return text, nil
	}
	// Parsed as by a reader without scripts: <noscript> is what it shows.
	doc, err := html.ParseWithOptions(strings.NewReader(text), html.ParseOptionEnableScripting(false))
	if err != nil {
		return text, nil // not HTML after all: the text as it came
	}
	r := reader{base: base}
	if base != nil {
		self := *base
		self.Fragment, self.RawFragment = "", ""
		r.base, r.self = baseOf(doc, base), self.String()
	}
	hiddenChars := r.visible(doc, false, false)
	out := strings.TrimSpace(collapseLines(r.b.String()))
	if hiddenChars > 0 {
		// Said, so a page that shows its text only through scripts is not
		// taken for an empty one.
		out += fmt.Sprintf("\n[web.fetch left out %d characters of text this page hides from its readers]", hiddenChars)
	}
	if r.unshown > 0 {
		out += fmt.Sprintf("\n[web.fetch showed the addresses of the first %d links; %d more are shown as their text]", maxLinks, r.unshown)
	}
	return out, nil
}

// baseOf returns the address the page's relative links lead from: its
// <base href>, else the address it was fetched from.
func baseOf(doc *html.Node, fetched *url.URL) *url.URL {
	var find func(n *html.Node) *url.URL
	find = func(n *html.Node) *url.URL {
		if n.Type == html.ElementNode && n.DataAtom == atom.Base {
			for _, a := range n.Attr {
				if strings.EqualFold(a.Key, "href") {
					if u, err := fetched.Parse(strings.TrimSpace(a.Val)); err == nil {
						return u
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if u := find(c); u != nil {
				return u
			}
		}
		return nil
	}
	if u := find(doc); u != nil {
		return u
	}
	return fetched
}

// textual reports whether a body of this media type is text the model can
// read; without a type, whether the bytes look like text.
func textual(media string, body []byte) bool {
	switch {
	case strings.HasPrefix(media, "text/"):
		return true
	case media == "application/json", media == "application/xml", media == "application/xhtml+xml",
		media == "application/javascript", media == "application/ecmascript", media == "application/x-ndjson",
		media == "application/yaml", media == "application/toml", media == "application/rss+xml", media == "application/atom+xml",
		strings.HasSuffix(media, "+json"), strings.HasSuffix(media, "+xml"):
		return true
	case media == "" || media == "application/octet-stream":
		head := body[:min(len(body), 512)]
		return !bytes.ContainsRune(head, 0) && (utf8.Valid(head) || utf8.Valid(head[:max(0, len(head)-3)]))
	}
	return false
}

func describeMedia(media string) string {
	if media == "" || media == "application/octet-stream" {
		return "binary data"
	}
	return media
}

func looksHTML(body []byte) bool {
	head := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 512)]))
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}

// skipped are elements whose content is not read as text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Template: true,
	atom.Head: true, atom.Iframe: true, atom.Object: true, atom.Select: true,
}

// blocks are elements that start a new line.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Li: true, atom.Tr: true, atom.Br: true, atom.Hr: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Ul: true, atom.Ol: true, atom.Table: true, atom.Pre: true, atom.Blockquote: true,
	atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true, atom.Main: true,
	atom.Nav: true, atom.Aside: true, atom.Dt: true, atom.Dd: true, atom.Figure: true, atom.Figcaption: true,
	atom.Title: true, atom.Details: true, atom.Summary: true, atom.Form: true,
}

// hiddenStyle matches inline styles that keep an element from being seen.
var hiddenStyle = regexp.MustCompile(`(?i)(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden|content-visibility\s*:\s*hidden)\s*(!important\s*)?(;|$)`)

// hidden reports whether an element is hidden from the reader.
func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch strings.ToLower(a.Key) {
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(strings.TrimSpace(a.Val), "true") {
				return true
			}
		case "style":
			if hiddenStyle.MatchString(a.Val) {
				return true
			}
		}
	}
	return false
}

// reader writes the text of a page a reader sees, links as Markdown
// writes them.
type reader struct {
	b    text
	base *url.URL // where the page's relative links lead from; nil: links are text
	self string   // the page's own address, not shown as a link
	// links counts the addresses shown; seen holds them, each shown once.
	links int
	seen  map[string]bool
	// unshown counts the links past maxLinks, shown as their text only.
	unshown int
}

// maxLinks is how many links' addresses a page shows; maxLinkLen is the
// longest address shown (a tracking link's hundreds of characters say
// nothing the model needs).
const (
	maxLinks   = 300
	maxLinkLen = 300
)

// visible writes the text of n a reader sees; inPre keeps a <pre>'s
// spacing, chrome marks the page's navigation (menus, headers, footers),
// whose links are not followed up (their text stays). It returns how
// many characters of text hidden elements held.
func (r *reader) visible(n *html.Node, inPre, chrome bool) (hiddenChars int) {
	b := &r.b
	switch n.Type {
	case html.TextNode:
		if inPre {
			b.WriteString(n.Data)
		} else if t := strings.Join(strings.Fields(n.Data), " "); t != "" {
			if n.Data != strings.TrimLeft(n.Data, " \t\r\n") {
				b.space()
			}
			b.WriteString(t)
			if n.Data != strings.TrimRight(n.Data, " \t\r\n") {
				b.writeByte(' ')
			}
		} else if n.Data != "" {
			b.space() // the space between two links, say
		}
		return 0
	case html.CommentNode, html.DoctypeNode:
		return 0
	case html.ElementNode:
		if n.DataAtom == atom.Head {
			// The title is the one thing in the head a reader sees.
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.DataAtom == atom.Title {
					r.visible(c, false, true)
				}
			}
			return 0
		}
		if skipped[n.DataAtom] && n.DataAtom != atom.Title {
			return 0
		}
		if hidden(n) {
			return textLength(n)
		}
		if n.DataAtom == atom.Pre {
			inPre = true
		}
		chrome = chrome || navigation(n)
		if n.DataAtom == atom.A && !inPre && !chrome {
			if to := r.address(n); to != "" {
				return r.link(n, to)
			}
		}
		if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
			// Cells of a row on one line, apart.
			if b.midLine() {
				b.trimSpace()
				b.WriteString(" | ")
			}
		}
		// Headings and list items marked as Markdown marks them: a page's
		// outline is what a model needs most to find its way in it.
		if l := heading[n.DataAtom]; l > 0 {
			b.startLine()
			b.WriteString(strings.Repeat("#", l) + " ")
		}
		if n.DataAtom == atom.Li {
			b.startLine()
			b.WriteString("- ")
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		hiddenChars += r.visible(c, inPre, chrome)
	}
	if n.Type == html.ElementNode && blocks[n.DataAtom] {
		b.WriteString("\n")
	}
	return hiddenChars
}

// link writes the link a as [its text](to); a link that holds blocks (a
// card: a heading and a summary) as its text, then <to> on a line of its
// own. A link without visible text, or whose address was shown already,
// is its text alone.
func (r *reader) link(a *html.Node, to string) (hiddenChars int) {
	b := &r.b
	if textLength(a) == 0 || r.seen[to] {
		return r.inner(a)
	}
	if r.links == maxLinks {
		r.unshown++
		return r.inner(a)
	}
	if holdsBlock(a) {
		before := len(b.buf)
		hiddenChars = r.inner(a)
		if len(bytes.TrimSpace(b.buf[before:])) > 0 {
			r.shown(to)
			b.startLine()
			b.WriteString("<" + to + ">\n")
		}
		return hiddenChars
	}
	if a.FirstChild != nil && a.FirstChild.Type == html.TextNode && a.FirstChild.Data != strings.TrimLeft(a.FirstChild.Data, " \t\r\n") {
		b.space() // the link's own leading space, before its bracket
	}
	b.writeByte('[')
	open := len(b.buf)
	hiddenChars = r.inner(a)
	spaced := b.endsWith(" ")
	b.trimSpace()
	if len(b.buf) == open { // its text was all hidden: no link to name
		b.buf = b.buf[:open-1]
		return hiddenChars
	}
	r.shown(to)
	b.WriteString("](" + to + ")")
	if spaced {
		b.WriteString(" ")
	}
	return hiddenChars
}

// inner writes what a link holds, links within it as their text.
func (r *reader) inner(a *html.Node) (hiddenChars int) {
	for c := a.FirstChild; c != nil; c = c.NextSibling {
		hiddenChars += r.visible(c, false, true)
	}
	return hiddenChars
}

// shown counts an address as shown.
func (r *reader) shown(to string) {
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[to] = true
	r.links++
}

// address returns where the link a leads, absolute, when it is worth
// showing: an http(s) page other than this one, no longer than
// maxLinkLen.
func (r *reader) address(a *html.Node) string {
	if r.base == nil {
		return ""
	}
	href := ""
	for _, at := range a.Attr {
		if strings.EqualFold(at.Key, "href") {
			href = strings.TrimSpace(at.Val)
		}
	}
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := r.base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	to := u.String()
	if len(to) > maxLinkLen || to == r.self {
		return ""
	}
	return to
}

// navigation reports whether n is the page's chrome: its navigation, its
// header or footer, an aside.
func navigation(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Header, atom.Footer, atom.Aside:
		return true
	}
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, "role") && strings.EqualFold(strings.TrimSpace(a.Val), "navigation") {
			return true
		}
	}
	return false
}

// holdsBlock reports whether a block element is under n.
func holdsBlock(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (blocks[c.DataAtom] || holdsBlock(c)) {
			return true
		}
	}
	return false
}

// heading is the level of each heading element.
var heading = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

// text is the text being written: a buffer that can look at and take
// back its end.
type text struct{ buf []byte }

func (t *text) WriteString(s string) { t.buf = append(t.buf, s...) }
func (t *text) writeByte(c byte)     { t.buf = append(t.buf, c) }
func (t *text) String() string       { return string(t.buf) }

// endsWith reports whether the text ends with s.
func (t *text) endsWith(s string) bool { return bytes.HasSuffix(t.buf, []byte(s)) }

// midLine reports whether the text is not at the start of a line.
func (t *text) midLine() bool { return len(t.buf) > 0 && !t.endsWith("\n") }

// startLine ends the line the text is on, unless it is at its start.
func (t *text) startLine() {
	if t.midLine() {
		t.writeByte('\n')
	}
}

// space writes a space between words: not at a line's start, after
// another space, or just inside a link's bracket.
func (t *text) space() {
	if t.midLine() && !t.endsWith(" ") && !t.endsWith("[") {
		t.writeByte(' ')
	}
}

// trimSpace takes back the spaces at the text's end.
func (t *text) trimSpace() { t.buf = bytes.TrimRight(t.buf, " ") }

// textLength counts the characters of text under n, scripts and styles
// aside.
func textLength(n *html.Node) int {
	if n.Type == html.TextNode {
		return utf8.RuneCountInString(strings.Join(strings.Fields(n.Data), " "))
	}
	if n.Type == html.ElementNode && skipped[n.DataAtom] {
		return 0
	}
	count := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		count += textLength(c)
	}
	return count
}

// collapseLines trims each line and keeps at most one empty line in a row.
func collapseLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	empty := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if strings.TrimSpace(l) == "" {
			empty++
			if empty > 1 {
				continue
			}
			l = ""
		} else {
			empty = 0
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
