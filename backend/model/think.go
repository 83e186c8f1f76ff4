package model

import (
	"slices"
	"strings"
	"unicode"
)

// Reasoning models write their thinking in a block at the start of
// their answer (DeepSeek-R1, QwQ, Qwen3, Phi-4-reasoning between <think>
// and </think>; the others in thinkForms); Ollama moves it into the
// message's thinking field only when the model's template (or its
// built-in parser) declares it and the request asks (`think`), so with
// an older template, a model pulled before its template learned it, or a
// GGUF whose template Ollama matched to a generic one, the block comes in
// the content: the window showed the reasoning as the answer, and a tool
// call the model only considered in it ran.

// thinkForms are the blocks' tags, family by family, as their chat
// templates and Ollama's parsers for them write them (v0.32.15
// model/parsers: gemma4.go, ministral.go, cohere.go; Seed-OSS's template).
var thinkForms = []struct{ open, close string }{
	{"<think>", "</think>"},                    // DeepSeek-R1, QwQ, Qwen3, Phi-4-reasoning, LFM2, OLMo 3 Think, GLM
	{"<|channel>thought", "<channel|>"},        // Gemma 4
	{"[THINK]", "[/THINK]"},                    // Magistral, Ministral 3
	{"<|START_THINKING|>", "<|END_THINKING|>"}, // Cohere Command A Reasoning
	{"<seed:think>", "</seed:think>"},          // Seed-OSS
}

// answerForms are the tags some families wrap their answer in after
// their thinking (Cohere Command A: <|START_RESPONSE|> … <|END_RESPONSE|>,
// Ollama v0.32.15 model/parsers/cohere.go): taken out, the answer kept.
var answerForms = []struct{ open, close string }{
	{"<|START_RESPONSE|>", "<|END_RESPONSE|>"},
}

// startForms are what an answer may open with: a thinking block, or an
// answer's wrapper.
var startForms = append(slices.Clip(thinkForms), answerForms...)

// thinkTags moves a thinking block at the start of a streamed answer to
// its thinking, and takes the tags of an answer's wrapper out. Its zero
// value is ready.
type thinkTags struct {
	state   int    // thinkStart, thinkInside, thinkAfter, answerInside or thinkDone
	close   string // the open block's closing tag
	pending string // held back: blanks before a possible opening tag, or a possible start of the closing one
	// headless: the block's opening tag was not written (startInside):
	// what comes first is thinking up to close, and the answer after all
	// when close never comes (thought keeps it for that).
	headless  bool
	begun     bool // headless, and past the blanks and a possible opening tag
	takenBack bool // headless, until the server gave thinking of its own
	thought   strings.Builder
	// opened: a block or a wrapper was opened at the start.
	opened bool
	// lone is a thinking block's closing tag met in an answer that
	// opened none: the model thinks without writing the opening tag
	// (its template writes it into the prompt, or was made without it:
	// ollama #10921, #12736; Qwen's documentation calls an output with
	// only </think> normal for its thinking-2507 models). tail holds the answer's last bytes, for a
	// tag split over two chunks.
	lone string
	tail string
}

// startInside reads the answer as a thinking block whose opening tag
// was not written, ended by close.
func (t *thinkTags) startInside(close string) {
	t.state, t.close, t.headless, t.opened = thinkInside, close, true, true
}

// notHeadless takes back startInside when the server gave thinking of its
// own before anything else: it reads the model's blocks itself.
func (t *thinkTags) notHeadless() {
	if t.headless && !t.begun {
		t.state, t.close, t.headless, t.opened = thinkStart, "", false, false
		t.takenBack = true
	}
}

// closeTags and openTags are the thinking blocks' closing and opening
// tags.
var closeTags, openTags = func() (closes, opens []string) {
	for _, f := range thinkForms {
		closes, opens = append(closes, f.close), append(opens, f.open)
	}
	return closes, opens
}()

// openOf is the opening tag of the block close ends.
func openOf(close string) string {
	for _, f := range thinkForms {
		if f.close == close {
			return f.open
		}
	}
	return ""
}

// watch looks for a closing tag in an answer that opened no block, and
// before it no opening tag either (an answer about the tags).
func (t *thinkTags) watch(chunk string) {
	if t.opened || t.lone != "" {
		return
	}
	s := t.tail + chunk
	if strings.IndexFunc(s, func(r rune) bool { return r < 256 && tagStarts[r] }) < 0 {
		t.tail = "" // no tag starts here: most of an answer
		return
	}
	o, _ := firstOf(s, openTags)
	if i, tag := firstOf(s, closeTags); i >= 0 && (o < 0 || i < o) {
		t.lone = tag
		return
	}
	if o >= 0 {
		t.opened = true // the tags are written about: none is lone
		return
	}
	t.tail = s[len(s)-partialSuffix(s, allTags):]
}

// allTags are the thinking blocks' closing and opening tags.
var allTags = append(slices.Clip(closeTags), openTags...)

// tagStarts holds the bytes a thinking block's tag starts with.
var tagStarts = func() (b [256]bool) {
	for _, tag := range allTags {
		b[tag[0]] = true
	}
	return b
}()

const (
	thinkStart   = iota
	thinkInside  // in the thinking block
	thinkAfter   // after it: the blanks before the answer are dropped
	answerInside // in an answer's wrapper
	thinkDone
)

// split takes a content chunk and returns what of it is thinking and what
// is answer, holding back what cannot be told yet.
func (t *thinkTags) split(chunk string) (thinking, answer string) {
	switch t.state {
	case thinkDone:
		t.watch(chunk)
		return "", chunk
	case thinkStart, thinkAfter:
		t.pending += chunk
		lead := strings.TrimLeftFunc(t.pending, unicode.IsSpace)
		if lead == "" {
			return "", "" // blanks so far
		}
		forms := answerForms
		if t.state == thinkStart {
			forms = startForms
		}
		opened, maybe := false, false
		if t.state == thinkStart {
			// A closing tag first closes an empty block the template
			// opened and closed (a fine-tuned qwen3 writes "</think>"
			// once more: ms-swift #5005): it goes, and nothing is
			// learned from it.
			for _, c := range closeTags {
				if rest, ok := strings.CutPrefix(lead, c); ok {
					t.state, t.opened, t.pending = thinkAfter, true, ""
					return t.split(rest)
				}
				maybe = maybe || strings.HasPrefix(c, lead)
			}
		}
		for k, f := range forms {
			if rest, ok := strings.CutPrefix(lead, f.open); ok {
				t.state, t.opened = thinkInside, true
				if k >= len(forms)-len(answerForms) {
					t.state = answerInside
				}
				t.close, chunk, t.pending, opened = f.close, rest, "", true
				break
			}
			maybe = maybe || strings.HasPrefix(f.open, lead)
		}
		switch {
		case opened:
		case maybe:
			return "", "" // a tag not whole yet
		default:
			if t.state == thinkAfter {
				t.pending = lead // the blanks between thinking and answer go
			}
			t.state = thinkDone
			answer, t.pending = t.pending, ""
			t.watch(answer)
			return "", answer
		}
	}
	all := t.pending + chunk
	if t.headless && !t.begun {
		// The model may write the opening tag after all: it goes.
		lead := strings.TrimLeftFunc(all, unicode.IsSpace)
		switch open := openOf(t.close); {
		case lead == "" || lead != open && strings.HasPrefix(open, lead):
			t.pending = all
			return "", "" // blanks, or the tag not whole yet
		case strings.HasPrefix(lead, open):
			all = lead[len(open):]
		}
		t.begun = true
	}
	if i := strings.Index(all, t.close); i >= 0 {
		t.pending = ""
		if t.state == answerInside {
			t.state = thinkDone
			return "", all[:i] + all[i+len(t.close):]
		}
		t.state, t.headless = thinkAfter, false
		_, answer = t.split(all[i+len(t.close):])
		return all[:i], answer
	}
	// Hold back what may be the start of the closing tag.
	keep := partialSuffix(all, []string{t.close})
	t.pending = all[len(all)-keep:]
	if t.state == answerInside {
		return "", all[:len(all)-keep]
	}
	if t.headless {
		t.thought.WriteString(all[:len(all)-keep])
	}
	return all[:len(all)-keep], ""
}

// finish returns what was held back at the end of the answer.
func (t *thinkTags) finish() (thinking, answer string) {
	p := t.pending
	t.pending = ""
	switch t.state {
	case thinkInside:
		if t.headless && !t.begun {
			return "", p // blanks
		}
		if t.headless {
			// No closing tag: the model answered without thinking, and
			// what was read as thinking is the answer.
			t.thought.WriteString(p)
			return p, t.thought.String()
		}
		return p, "" // the answer ended inside its thinking
	case thinkAfter:
		return "", strings.TrimLeftFunc(p, unicode.IsSpace)
	}
	return "", p
}
