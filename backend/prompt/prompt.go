// Package prompt fits a conversation into a model's context window before
// each model call.
//
// The measure is the one the model pays for, estimated: the characters of
// every message's content and tool-call JSON, plus the tool definitions,
// divided by 4. The budget is num_ctx minus the room kept for the answer.
//
// When the conversation does not fit, Fitter compacts it in this order,
// stopping as soon as it fits:
//  1. old tool outputs become one-line stubs that say how to get them back
//     (tool.output.read with the output's handle);
//  2. the oldest turns (everything before the current request) are
//     summarised by the model, in chunks that fit, into one message; the
//     summary is kept for the rest of the run;
//  3. if summarising fails, those turns are dropped and a warning says so;
//  4. what is still too long is cut, oldest content first, keeping the
//     newest user message (shortened in the middle if it alone is too big).
//
// The result never exceeds the budget; compaction is reported as a
// context:compacted event. Fitter never fails the run.
package prompt

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// TypeCompacted is published when a prompt was compacted to fit.
const TypeCompacted agent.Type = "context:compacted"

// Compacted is the data of [TypeCompacted].
type Compacted struct {
	Before     int `json:"before_tokens"`
	After      int `json:"after_tokens"`
	Budget     int `json:"budget_tokens"`
	Stubbed    int `json:"stubbed_outputs"`
	Summarized int `json:"summarized_messages"`
	Dropped    int `json:"dropped_messages"`
	Cut        int `json:"cut_messages"`
}

// Tokens estimates the tokens of a message: content, thinking and tool-call
// JSON characters divided by 4.
func Tokens(m api.Message) int {
	n := len(m.Content) + len(m.Thinking)
	for _, tc := range m.ToolCalls {
		b, _ := json.Marshal(tc)
		n += len(b)
	}
	return (n + 3) / 4
}

// Estimate is the tokens of messages and tool definitions.
func Estimate(msgs []api.Message, tools api.Tools) int {
	n := 0
	for _, m := range msgs {
		n += Tokens(m)
	}
	if len(tools) > 0 {
		b, _ := json.Marshal(tools)
		n += (len(b) + 3) / 4
	}
	return n
}

// Fitter fits one run's prompts. It keeps the summary it made for the rest
// of the run. The zero value works without summaries (Model nil).
type Fitter struct {
	Model      agent.Model // used to summarise; nil skips that step
	ModelName  string
	Reserve    int // tokens kept for the answer (default: num_ctx/8, at least 256)
	KeepRecent int // newest messages whose tool outputs are never stubbed (default 4)

	summary     string // summary of the first summarized messages of history
	summarized  int    // how many leading history messages the summary replaces
	summaryFrom string // the first summarized message, to check the history did not change
}

func (f *Fitter) reserve(numCtx int) int {
	if f.Reserve > 0 {
		return f.Reserve
	}
	return max(256, numCtx/8)
}

// Budget is the most tokens a prompt may have for num_ctx.
func (f *Fitter) Budget(numCtx int) int { return numCtx - f.reserve(numCtx) }

// Fit implements agent.Context.
func (f *Fitter) Fit(ctx context.Context, msgs []api.Message, tools api.Tools, numCtx int) ([]api.Message, []agent.Event, error) {
	budget := f.Budget(numCtx)
	before := Estimate(msgs, tools)
	if before <= budget {
		return msgs, nil, nil
	}
	st := Compacted{Before: before, Budget: budget}
	var events []agent.Event
	toolTokens := Estimate(nil, tools)

	// Split: leading system messages, history before the current request,
	// and the current request with the turns that followed it.
	var system []api.Message
	i := 0
	for i < len(msgs) && msgs[i].Role == "system" {
		system = append(system, msgs[i])
		i++
	}
	rest := msgs[i:]
	last := len(rest) - 1
	for last >= 0 && rest[last].Role != "user" {
		last--
	}
	if last < 0 {
		last = 0
	}
	// Each part keeps its token count as it changes, so fitting costs one
	// estimate per message and change: re-estimating every part after each
	// message (tool-call JSON included) took 16 s for a session of 1,000
	// exchanges, before every model call.
	sys, history, current := newPart(system), newPart(clone(rest[:last])), newPart(clone(rest[last:]))
	over := func() int { return sys.tokens + history.tokens + current.tokens + toolTokens - budget }
	fits := func() bool { return over() <= 0 }

	// 1. Stub tool outputs, oldest first, except the newest few messages.
	keep := f.KeepRecent
	if keep <= 0 {
		keep = 4
	}
	stub := func(p *part, protect int) {
		for j := range p.ms {
			if fits() || j >= len(p.ms)-protect {
				return
			}
			if m := p.ms[j]; m.Role == "tool" && len(m.Content) > 160 {
				m.Content = stubFor(m)
				p.set(j, m)
				st.Stubbed++
			}
		}
	}
	stub(history, 0)
	if !fits() {
		stub(current, keep)
	}

	// 2. Summarise the history (reusing this run's summary when it still
	// covers the same messages): its newest part, one and a half budgets of
	// it (three or four summary calls); what came before is left out. Every
	// request of a long session summarised all of it again, a model call
	// per half a context of history, before its first answer.
	if !fits() && len(history.ms) > 0 {
		from, tokens := len(history.ms), 0 // the newest message is always kept
		for from > 0 {
			t := Tokens(history.ms[from-1])
			if from < len(history.ms) && tokens+t > 3*(budget/2) {
				break
			}
			from, tokens = from-1, tokens+t
		}
		if from > 0 {
			st.Dropped += from
			history = &part{ms: history.ms[from:], tokens: tokens}
		}
		summary, n, err := f.summarize(ctx, history.ms, budget/2, numCtx)
		switch {
		case err != nil:
			events = append(events, agent.Event{Type: agent.TypeError, Time: time.Now().UTC(), Data: agent.Error{Kind: agent.KindWarning,
				Message: fmt.Sprintf("the conversation no longer fits the model's context (%d of %d tokens) and could not be summarised (%v), so its %d oldest messages were left out", before, budget, err, len(history.ms))}})
			st.Dropped += len(history.ms)
			history = newPart(nil)
		default:
			st.Summarized += n
			history = newPart(append([]api.Message{{Role: "system", Content: "Summary of the earlier conversation:\n" + summary}}, history.ms[n:]...))
		}
	}
	// Drop what is left of the history, oldest first.
	for !fits() && len(history.ms) > 0 {
		history.tokens -= Tokens(history.ms[0])
		history.ms = history.ms[1:]
		st.Dropped++
	}
	// 3. Cut content: tool outputs in the current turns, then anything but
	// the newest user message, then that message and the system prompt.
	if !fits() {
		stub(current, 1)
	}
	cut := func(p *part, j int) {
		m := p.ms[j]
		m.ToolCalls = slices.Clone(m.ToolCalls) // cutContent rewrites them; set reads the old ones
		if over() > 0 && cutContent(&m, over()) {
			p.set(j, m)
			st.Cut++
		}
	}
	for j := 1; j < len(current.ms) && !fits(); j++ { // the newest user message (0) is a last resort, below
		cut(current, j)
	}
	for j := range sys.ms {
		cut(sys, j)
	}
	if len(current.ms) > 0 {
		cut(current, 0)
	}
	out := append(append(append([]api.Message{}, sys.ms...), history.ms...), current.ms...)
	st.After = Estimate(out, tools)
	events = append(events, agent.Event{Type: TypeCompacted, Time: time.Now().UTC(), Data: st})
	return out, events, nil
}

// part is a run of messages and their estimated tokens.
type part struct {
	ms     []api.Message
	tokens int
}

func newPart(ms []api.Message) *part { return &part{ms: ms, tokens: Estimate(ms, nil)} }

// set replaces message j, keeping the count.
func (p *part) set(j int, m api.Message) {
	p.tokens += Tokens(m) - Tokens(p.ms[j])
	p.ms[j] = m
}

// stubFor is what an omitted tool output becomes.
func stubFor(m api.Message) string {
	handle := ""
	if i := strings.Index(m.Content, "handle "); i >= 0 {
		f := strings.Fields(m.Content[i+len("handle "):])
		if len(f) > 0 {
			handle = strings.Trim(f[0], ",.;:)]")
		}
	}
	if handle != "" {
		return fmt.Sprintf("[output of %s omitted to save context (%d chars); call tool.output.read with handle %s to see it]", m.ToolName, len(m.Content), handle)
	}
	return fmt.Sprintf("[output of %s omitted to save context (%d chars); call %s again if you need it]", m.ToolName, len(m.Content), m.ToolName)
}

// cutContent shortens a message by about over tokens, cutting from the
// middle so the start and end stay; it reports whether it changed anything.
func cutContent(m *api.Message, over int) bool {
	n := len(m.Content)
	if n == 0 {
		if len(m.ToolCalls) > 0 {
			for i := range m.ToolCalls {
				m.ToolCalls[i].Function.Arguments = api.NewToolCallFunctionArguments()
			}
			return true
		}
		return false
	}
	marker := "\n[… %d chars cut to fit the context …]\n"
	drop := min(n, over*4+len(marker)+16)
	if drop >= n-8 {
		m.Content = fmt.Sprintf("[%d chars cut to fit the context]", n)
		return true
	}
	head := (n - drop) / 2
	tail := n - drop - head
	m.Content = m.Content[:head] + fmt.Sprintf(marker, drop) + m.Content[n-tail:]
	return true
}

func clone(ms []api.Message) []api.Message {
	out := make([]api.Message, len(ms))
	for i, m := range ms {
		out[i] = m
		out[i].ToolCalls = append([]api.ToolCall(nil), m.ToolCalls...)
	}
	return out
}

// summarize asks the model to summarise history in chunks of at most
// chunk tokens; it returns the summary and how many messages it covers.
// Each request sets num_ctx to the run's, so Ollama neither reloads the
// model for another size nor cuts the summary's input.
func (f *Fitter) summarize(ctx context.Context, history []api.Message, chunk, numCtx int) (string, int, error) {
	if f.Model == nil {
		return "", 0, fmt.Errorf("no model to summarise with")
	}
	// Reuse this run's summary when the history still starts the same.
	if f.summary != "" && f.summarized <= len(history) && history[0].Content == f.summaryFrom {
		return f.summary, f.summarized, nil
	}
	summary := ""
	i := 0
	for i < len(history) {
		var b strings.Builder
		if summary != "" {
			fmt.Fprintf(&b, "Summary so far:\n%s\n\n", summary)
		}
		b.WriteString("Conversation:\n")
		start := i
		for i < len(history) {
			line := fmt.Sprintf("%s: %s\n", roleName(history[i]), history[i].Content)
			if (b.Len()+len(line))/4 > chunk && i > start {
				break
			}
			if len(line)/4 > chunk {
				line = line[:chunk*4-16] + "…\n"
			}
			b.WriteString(line)
			i++
		}
		text, err := f.ask(ctx, b.String(), numCtx)
		if err != nil {
			return "", 0, err
		}
		summary = text
	}
	f.summary, f.summarized, f.summaryFrom = summary, len(history), history[0].Content
	return summary, len(history), nil
}

func roleName(m api.Message) string {
	if m.Role == "tool" {
		return "tool " + m.ToolName
	}
	return m.Role
}

// summaryTokens is the most a summary may run to.
const summaryTokens = 1024

func (f *Fitter) ask(ctx context.Context, text string, numCtx int) (string, error) {
	stream := false
	// num_predict bounds the summary (8 short sentences are ~200 tokens): a
	// model repeating itself would otherwise run on, unseen, for as long as
	// Ollama lets it, since the answer comes whole.
	req := &api.ChatRequest{Model: f.ModelName, Stream: &stream, Options: map[string]any{"num_ctx": numCtx, "num_predict": summaryTokens}, Messages: []api.Message{
		{Role: "system", Content: "Summarise the conversation below in at most 8 short sentences for your own later use. Keep file names, facts, decisions and open questions. Plain text only."},
		{Role: "user", Content: text},
	}}
	var out strings.Builder
	err := f.Model.Chat(ctx, req, func(r api.ChatResponse) error {
		out.WriteString(r.Message.Content)
		return nil
	})
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(out.String())
	if s == "" {
		return "", fmt.Errorf("the model returned an empty summary")
	}
	if len(s) > 4000 {
		s = s[:4000]
	}
	return s, nil
}
