package web

import (
	"bytes"
	"fmt"
	"mime"
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
// is decoded. A body that is not text (an image, an archive, a PDF) is an
// error saying so: its bytes would only fill the model's context.
func pageText(body []byte, contentType string) (string, error) {
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
	var b strings.Builder
	hiddenChars := visibleText(&b, doc, false)
	out := strings.TrimSpace(collapseLines(b.String()))
	if hiddenChars > 0 {
		// Said, so a page that shows its text only through scripts is not
		// taken for an empty one.
		out += fmt.Sprintf("\n[web.fetch left out %d characters of text this page hides from its readers]", hiddenChars)
	}
	return out, nil
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

// visibleText writes the text of n a reader sees; inPre keeps a <pre>'s
// spacing. It returns how many characters of text hidden elements held.
func visibleText(b *strings.Builder, n *html.Node, inPre bool) (hiddenChars int) {
	switch n.Type {
	case html.TextNode:
		if inPre {
			b.WriteString(n.Data)
		} else if t := strings.Join(strings.Fields(n.Data), " "); t != "" {
			if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") && !strings.HasSuffix(s, " ") && n.Data != strings.TrimLeft(n.Data, " \t\r\n") {
				b.WriteByte(' ')
			}
			b.WriteString(t)
			if n.Data != strings.TrimRight(n.Data, " \t\r\n") {
				b.WriteByte(' ')
			}
		}
		return 0
	case html.CommentNode, html.DoctypeNode:
		return 0
	case html.ElementNode:
		if n.DataAtom == atom.Head {
			// The title is the one thing in the head a reader sees.
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.DataAtom == atom.Title {
					visibleText(b, c, false)
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
		if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
			// Cells of a row on one line, apart.
			if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
				b.WriteString(" | ")
			}
		}
		// Headings and list items marked as Markdown marks them: a page's
		// outline is what a model needs most to find its way in it.
		if l := heading[n.DataAtom]; l > 0 {
			startLine(b)
			b.WriteString(strings.Repeat("#", l) + " ")
		}
		if n.DataAtom == atom.Li {
			startLine(b)
			b.WriteString("- ")
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		hiddenChars += visibleText(b, c, inPre)
	}
	if n.Type == html.ElementNode && blocks[n.DataAtom] {
		b.WriteString("\n")
	}
	return hiddenChars
}

// heading is the level of each heading element.
var heading = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

// startLine ends the line b is on, unless it is at the start of one.
func startLine(b *strings.Builder) {
	if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

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
