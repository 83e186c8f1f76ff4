package model

import (
	"encoding/json"
	"strings"
	"unicode"

	"github.com/ollama/ollama/api"
)

// gpt-oss writes its whole answer in OpenAI's harmony format: a sequence
// of messages, each a header naming its channel (and, for a call, its
// recipient) and a body:
//
//	<|channel|>analysis<|message|>We need to read it.<|end|>
//	<|start|>assistant<|channel|>commentary to=functions.fs.read <|constrain|>json<|message|>{"path":"a.txt"}<|call|>
//	<|start|>assistant<|channel|>final<|message|>Done.<|return|>
//
// Ollama reads it (v0.24.0 and v0.32.15 harmony/harmonyparser.go) only
// when the model's family is gpt-oss and its template holds <|start|> and
// <|end|> (server/routes.go shouldUseHarmony); a GGUF whose template
// Ollama matched to a generic one leaves it all in the content, as
// llama.cpp #15102, mlxcel #654 and imp #1716 met: the thinking shown as
// the answer, the call never made. harmony reads such a content: the
// analysis channel is thinking, final and commentary without a recipient
// are the answer, and a message to functions.NAME (or NAME) is a call,
// made when NAME is a registered tool (Ollama's parser takes the
// recipient before or after the channel and a <|constrain|> glued to
// it; llama.cpp #15158 met "json" glued to the name).

// harmonyStarts are what a harmony answer opens with.
var harmonyStarts = []string{"<|channel|>", "<|start|>"}

// harmonyEnds end a message's body: <|end|>, and the stop tokens <|call|>
// and <|return|> where the runner leaves them in; <|start|> and
// <|channel|> begin the next message's header (a body that lacks its end).
var harmonyEnds = []string{"<|end|>", "<|call|>", "<|return|>", "<|start|>", "<|channel|>"}

const (
	harmonyUndecided = iota // nothing but blanks yet
	harmonyOff              // not harmony: content passes as it is
	harmonyHeader           // reading a message's header
	harmonyBody             // reading its body
)

// harmony splits a content written in harmony into thinking, answer and
// calls, as it streams. Its zero value needs known set.
type harmony struct {
	known     func(string) bool // registered tool names
	state     int
	buf       string          // held back: a header, a possible end token
	body      strings.Builder // a call's body so far
	channel   string
	recipient string
	header    string // the raw header of the body being read
	fresh     bool   // no text of the body being read given out yet
	answered  bool   // answer text was given: another message's starts a paragraph
}

// on reports whether the content is read as harmony.
func (h *harmony) on() bool { return h.state == harmonyHeader || h.state == harmonyBody }

// split takes a content chunk and returns what of it is thinking, what is
// answer, and the calls it completed.
func (h *harmony) split(chunk string) (thinking, answer string, calls []api.ToolCall) {
	if h.state == harmonyOff {
		return "", chunk, nil
	}
	h.buf += chunk
	if h.state == harmonyUndecided {
		lead := strings.TrimLeftFunc(h.buf, unicode.IsSpace)
		switch {
		case lead == "":
			return "", "", nil
		case hasAnyPrefix(lead, harmonyStarts):
			h.state, h.buf = harmonyHeader, lead
		case isPrefixOfAny(lead, harmonyStarts):
			return "", "", nil
		default:
			h.state = harmonyOff
			out := h.buf
			h.buf = ""
			return "", out, nil
		}
	}
	var th, an strings.Builder
	for {
		if h.state == harmonyHeader {
			h.buf = strings.TrimLeftFunc(h.buf, unicode.IsSpace)
			head, body, ok := strings.Cut(h.buf, "<|message|>")
			if !ok {
				if len(h.buf) > 1024 { // no header is that long: show it
					h.state = harmonyOff
					h.answer(&an, h.buf)
					h.buf = ""
				}
				break
			}
			h.header, h.fresh = head, true
			h.channel, h.recipient = harmonyHeaderOf(head)
			h.state, h.buf = harmonyBody, body
			continue
		}
		// Only what is new is searched: a call's body is kept aside
		// (body) until its end, so a long one costs linear time.
		i, end := firstOf(h.buf, harmonyEnds)
		if i < 0 {
			keep := partialSuffix(h.buf, harmonyEnds)
			if h.recipient != "" {
				h.body.WriteString(h.buf[:len(h.buf)-keep]) // a call's body is read whole
			} else {
				h.emit(&th, &an, h.buf[:len(h.buf)-keep])
			}
			h.buf = h.buf[len(h.buf)-keep:]
			break
		}
		body, rest := h.buf[:i], h.buf[i:]
		if end == "<|end|>" || end == "<|call|>" || end == "<|return|>" {
			rest = rest[len(end):]
		}
		if h.recipient != "" {
			h.body.WriteString(body)
			body = h.body.String()
			h.body.Reset()
		}
		calls = append(calls, h.emit(&th, &an, body)...)
		h.state, h.buf, h.recipient, h.channel = harmonyHeader, rest, "", ""
	}
	return th.String(), an.String(), calls
}

// finish returns what was held back at the end of the content.
func (h *harmony) finish() (thinking, answer string, calls []api.ToolCall) {
	var th, an strings.Builder
	switch h.state {
	case harmonyUndecided, harmonyOff:
		an.WriteString(h.buf)
	case harmonyHeader:
		// A header with no body is dropped; anything more is shown.
		if !bareHeader(h.buf) {
			h.fresh = true
			h.answer(&an, h.buf)
		}
	case harmonyBody:
		h.body.WriteString(h.buf)
		calls = h.emit(&th, &an, h.body.String())
		h.body.Reset()
	}
	h.buf = ""
	return th.String(), an.String(), calls
}

// emit gives out a piece of the current message's body: as thinking, as
// answer, or, for a call, the call its whole body makes.
func (h *harmony) emit(th, an *strings.Builder, text string) []api.ToolCall {
	switch {
	case h.recipient != "":
		c, ok, bad := h.call(text)
		switch {
		case ok:
			return []api.ToolCall{c}
		case bad:
			return []api.ToolCall{malformedCall(h.header + "<|message|>" + text)}
		}
		// Not a registered tool: shown, as any text call of one.
		h.answer(an, h.header+"<|message|>"+text)
	case h.channel == "analysis":
		th.WriteString(text)
	default:
		h.answer(an, text)
	}
	return nil
}

// answer adds answer text, a new message's after a blank line.
func (h *harmony) answer(an *strings.Builder, text string) {
	if text == "" {
		return
	}
	if h.fresh && h.answered {
		an.WriteString("\n\n")
	}
	h.fresh, h.answered = false, true
	an.WriteString(text)
}

// call reads the current message's body as a call of its recipient: ok
// when the recipient is a registered tool and the body its arguments,
// bad when it is a registered tool and the body is not JSON arguments.
func (h *harmony) call(body string) (c api.ToolCall, ok, bad bool) {
	name := strings.TrimPrefix(h.recipient, "functions.")
	if !h.known(name) {
		if n, glued := strings.CutSuffix(name, "json"); glued && h.known(n) {
			name = n
		} else {
			return c, false, false
		}
	}
	body = strings.TrimSpace(body)
	if body == "" {
		body = "{}"
	}
	args, good := arguments(json.RawMessage(body))
	if !good {
		return c, false, true
	}
	return api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: args}}, true, false
}

// harmonyHeaderOf reads a header as Ollama's parser does: the channel
// follows <|channel|> up to a blank; the recipient is a "to=" word before
// or after it; <|constrain|> and what follows say the body's format.
func harmonyHeaderOf(head string) (channel, recipient string) {
	head, _, _ = strings.Cut(head, "<|constrain|>")
	head = strings.ReplaceAll(head, "<|start|>", " ")
	if before, after, ok := strings.Cut(head, "<|channel|>"); ok {
		i := strings.IndexFunc(after, unicode.IsSpace)
		if i < 0 {
			i = len(after)
		}
		channel, head = after[:i], before+" "+after[i:]
	}
	for _, w := range strings.Fields(head) {
		if r, ok := strings.CutPrefix(w, "to="); ok {
			return channel, r
		}
	}
	return channel, ""
}

// bareHeader reports whether s is nothing but the start of a header:
// tokens, the role and a channel's name.
func bareHeader(s string) bool {
	for _, w := range strings.Fields(strings.NewReplacer("<|start|>", " ", "<|channel|>", " ").Replace(s)) {
		if w != "assistant" && w != "analysis" && w != "commentary" && w != "final" {
			return false
		}
	}
	return true
}

// firstOf returns the earliest of subs in s and its position, -1 if none.
func firstOf(s string, subs []string) (int, string) {
	at, which := -1, ""
	for _, sub := range subs {
		if i := strings.Index(s, sub); i >= 0 && (at < 0 || i < at) {
			at, which = i, sub
		}
	}
	return at, which
}

// lastOf returns the last of subs in s and its position, -1 if none.
func lastOf(s string, subs []string) (int, string) {
	at, which := -1, ""
	for _, sub := range subs {
		if i := strings.LastIndex(s, sub); i > at {
			at, which = i, sub
		}
	}
	return at, which
}

// partialSuffix is the length of the longest suffix of s that begins one
// of subs (and is not one).
func partialSuffix(s string, subs []string) int {
	longest := 0
	for _, sub := range subs {
		longest = max(longest, len(sub))
	}
	for k := min(len(s), longest-1); k > 0; k-- {
		c := s[len(s)-k]
		for _, sub := range subs {
			if sub[0] == c && strings.HasPrefix(sub, s[len(s)-k:]) {
				return k
			}
		}
	}
	return 0
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// isPrefixOfAny reports whether s begins one of subs.
func isPrefixOfAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.HasPrefix(sub, s) {
			return true
		}
	}
	return false
}
