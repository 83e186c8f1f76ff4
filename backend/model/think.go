package model

import (
	"strings"
	"unicode"
)

// Reasoning models write their thinking between <think> and </think> at
// the start of their answer (DeepSeek-R1, QwQ, Qwen3, Phi-4-reasoning);
// Ollama moves it into the message's thinking field only when the model's
// template declares it and the request asks (`think`), so with an older
// template, or a model pulled before its template learned it, the tags
// come in the content: the window showed the reasoning as the answer, and
// a tool call the model only considered in it ran.

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkTags moves a <think> block at the start of a streamed answer to
// its thinking. Its zero value is ready.
type thinkTags struct {
	state   int    // thinkStart, thinkInside, thinkAfter or thinkDone
	pending string // held back: blanks before a possible <think>, or a possible start of </think>
}

const (
	thinkStart  = iota
	thinkInside // in the block
	thinkAfter  // after it: the blanks before the answer are dropped
	thinkDone
)

// split takes a content chunk and returns what of it is thinking and what
// is answer, holding back what cannot be told yet.
func (t *thinkTags) split(chunk string) (thinking, answer string) {
	switch t.state {
	case thinkDone:
		return "", chunk
	case thinkAfter:
		if answer = strings.TrimLeftFunc(chunk, unicode.IsSpace); answer != "" {
			t.state = thinkDone
		}
		return "", answer
	case thinkStart:
		t.pending += chunk
		lead := strings.TrimLeftFunc(t.pending, unicode.IsSpace)
		switch {
		case lead == "" || (len(lead) < len(thinkOpen) && strings.HasPrefix(thinkOpen, lead)):
			return "", "" // blanks, or the tag not whole yet
		case !strings.HasPrefix(lead, thinkOpen):
			t.state = thinkDone
			answer, t.pending = t.pending, ""
			return "", answer
		}
		t.state = thinkInside
		chunk, t.pending = lead[len(thinkOpen):], ""
	}
	all := t.pending + chunk
	if i := strings.Index(all, thinkClose); i >= 0 {
		t.state, t.pending = thinkAfter, ""
		_, answer = t.split(all[i+len(thinkClose):])
		return all[:i], answer
	}
	// Hold back what may be the start of </think>.
	keep := 0
	for k := min(len(all), len(thinkClose)-1); k > 0; k-- {
		if strings.HasPrefix(thinkClose, all[len(all)-k:]) {
			keep = k
			break
		}
	}
	t.pending = all[len(all)-keep:]
	return all[:len(all)-keep], ""
}

// finish returns what was held back at the end of the answer.
func (t *thinkTags) finish() (thinking, answer string) {
	p := t.pending
	t.pending = ""
	if t.state == thinkInside {
		return p, "" // the answer ended inside its thinking
	}
	return "", p
}
