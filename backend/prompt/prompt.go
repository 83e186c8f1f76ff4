// Package prompt fits a conversation into a model's context window before
// each model call.
//
// The measure is the one the model pays for, estimated: the tokens of
// every message's content and tool-call JSON, plus the tool definitions,
// by character class (internal/tokens). The budget is num_ctx minus the
// room kept for the answer.
//
// When the conversation does not fit, Fitter compacts it in this order,
// stopping as soon as it fits:
//  1. a newest user message over half the room left by the system
//     prompt and the tool definitions (material pasted or piped with the
//     request) is cut towards half, in the middle, so the instruction at
//     its start stays;
//  2. old tool outputs become one-line stubs that say how to get them back
//     (tool.output.read with the output's handle);
//  3. the turns before the current request are summarised by the model,
//     in chunks that fit, into one message, all but the newest exchanges
//     that fit in a quarter of the budget, which stay as they were; the
//     summary is kept for the rest of the run and, given a [Memory], for
//     the session's later requests, which send it with the messages that
//     came after it and summarise only those onto it when they outgrow
//     the context too (a long session pays a summary call every few
//     requests, not several before each one);
//  4. if summarising fails, those turns are dropped and a warning says so;
//  5. what is still too long goes: the rest of the history, oldest first
//     (a tool result never without its call); then the current turns'
//     tool outputs are cut, then their other messages (content, then call
//     arguments); then the summary goes, the current turns go but the
//     newest, oldest first, each call with its results; the system prompt
//     is cut, then the newest user message (shortened in the middle), and
//     last the newest turn goes.
//
// The result never exceeds the budget; compaction is reported as a
// context:compacted event. Fitter never fails the run.
package prompt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/internal/ollamaerr"
	"github.com/shrimp-harness/shrimp/internal/plural"
	"github.com/shrimp-harness/shrimp/internal/textcut"
	"github.com/shrimp-harness/shrimp/internal/tokens"
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
	// SummaryCalls is how many model calls summarising took (0 when a
	// kept summary was enough).
	SummaryCalls int `json:"summary_calls"`
}

// Summary is what a session keeps of its earliest history once it has
// been summarised.
type Summary struct {
	Text   string
	Covers int    // how many leading history messages it replaces
	Digest string // of those messages ([Digest]), to notice a changed history
}

// Memory keeps one session's summary between its runs.
type Memory interface {
	// Summary returns the kept summary; ok is false when there is none.
	Summary(ctx context.Context) (s Summary, ok bool, err error)
	// KeepSummary replaces the kept summary.
	KeepSummary(ctx context.Context, s Summary) error
}

// Digest identifies the messages a summary covers: their number and their
// first and last message. A session's history only grows, so this notices
// a summary offered for another history without reading all of it.
func Digest(ms []api.Message) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00", len(ms))
	if len(ms) > 0 {
		for _, m := range []api.Message{ms[0], ms[len(ms)-1]} {
			fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d\x00", m.Role, m.ToolName, m.Content, len(m.ToolCalls))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Tokens estimates the tokens of a message: its content, thinking, tool
// calls as JSON (internal/tokens) and images (attach.Tokens each).
func Tokens(m api.Message) int {
	n := tokens.Count(m.Content) + tokens.Count(m.Thinking) + attach.Tokens*len(m.Images)
	for _, tc := range m.ToolCalls {
		n += tokens.JSON(tc)
	}
	return n
}

// Estimate is the tokens of messages and tool definitions.
func Estimate(msgs []api.Message, tools api.Tools) int {
	n := 0
	for _, m := range msgs {
		n += Tokens(m)
	}
	if len(tools) > 0 {
		n += tokens.JSON(tools)
	}
	return n
}

// Fitter fits one run's prompts. It keeps the summary it made for the rest
// of the run, and in Memory for the session's later runs. The zero value
// works without summaries (Model nil).
type Fitter struct {
	Model      agent.Model // used to summarise; nil skips that step
	ModelName  string
	Reserve    int    // tokens kept for the answer (default: num_ctx/8, at least 256)
	KeepRecent int    // newest messages whose tool outputs are never stubbed (default 4)
	Memory     Memory // keeps the summary between runs; nil keeps it for this run only

	kept   Summary // the summary in force, if any
	loaded bool    // Memory was read
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
func (f *Fitter) Fit(ctx context.Context, msgs []api.Message, tools api.Tools, numCtx, room int) ([]api.Message, []agent.Event, error) {
	budget := f.Budget(room)
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

	// 0. A summary kept from earlier (this run's or the session's) stands
	// for the messages it covers.
	base := "" // the summary in force
	if s, ok, ev := f.summaryFor(ctx, rest[:last]); ok {
		base = s.Text
		st.Summarized = s.Covers
		after := history.ms[s.Covers:]
		for len(after) > 0 && after[0].Role == "tool" { // results of a call the summary took
			after = after[1:]
			st.Dropped++
		}
		history = newPart(append([]api.Message{summaryMessage(s.Text)}, after...))
	} else if ev != nil {
		events = append(events, *ev)
	}
	off := 0 // history.ms[off:] are messages not yet summarised
	if base != "" {
		off = 1
	}

	// 1. A request over half the room the system prompt and the tools
	// leave (material pasted or piped with it) is cut towards half first:
	// it cannot go whole anyway, and what else is cut for it would be what
	// the model needs to go on (its instructions, its calls' results, the
	// conversation before), so it calls its tools again, and again.
	if len(current.ms) > 0 && !fits() {
		half := (budget - sys.tokens - toolTokens) / 2
		if m, extra := current.ms[0], Tokens(current.ms[0])-max(half, 0); extra > 0 && cutContent(&m, min(extra, over())) {
			current.set(0, m)
			st.Cut++
		}
	}

	// 2. Stub tool outputs, oldest first, except the newest few messages.
	keep := f.KeepRecent
	if keep <= 0 {
		keep = 4
	}
	stub := func(p *part, protect int) {
		for j := range p.ms {
			if fits() || j >= len(p.ms)-protect {
				return
			}
			if m := p.ms[j]; m.Role == "tool" && (len(m.Content) > 160 || len(m.Images) > 0) {
				m.Content, m.Images = stubFor(m), nil // a picture a tool showed goes too
				p.set(j, m)
				st.Stubbed++
			}
		}
	}
	stub(history, 0)
	if !fits() {
		stub(current, keep)
	}

	// 3. Summarise the history not summarised yet onto the summary in
	// force, but for its newest exchanges, which stay as they were when
	// they fit in a quarter of the budget: the model sees the turns it is
	// most likely to be asked about, and the next requests have room to
	// grow before they summarise again. Of the older messages, the newest
	// one and a half budgets are summarised (three or four summary calls)
	// and what came before is left out: every request of a long session
	// used to summarise all of it again, before its first answer.
	if !fits() && len(history.ms) > off {
		fresh := history.ms[off:]
		// Keep verbatim the longest run of whole exchanges (from a user
		// message on) that leaves room for the summary.
		summaryRoom := max(256, Tokens(summaryMessage(base)))
		room := min(budget/4, budget-sys.tokens-current.tokens-toolTokens-summaryRoom)
		k, tail := len(fresh), 0
		for j := len(fresh) - 1; j >= 0; j-- {
			if tail += Tokens(fresh[j]); tail > room {
				break
			}
			if fresh[j].Role == "user" {
				k = j
			}
		}
		verbatim := fresh[k:]
		older := fresh[:k]
		from, tokens := len(older), 0 // the newest message is always kept
		for from > 0 {
			t := Tokens(older[from-1])
			if from < len(older) && tokens+t > 3*(budget/2) {
				break
			}
			from, tokens = from-1, tokens+t
		}
		st.Dropped += from
		older = older[from:]
		summary, calls, err := f.summarize(ctx, base, older, budget/2, numCtx)
		st.SummaryCalls = calls
		switch {
		case err != nil:
			events = append(events, warning(fmt.Sprintf("the conversation no longer fits the model's context (%d of %d tokens) and could not be summarised (%v), so its %d oldest messages were left out", before, budget, err, len(older))))
			st.Dropped += len(older)
			history = newPart(append(slices.Clone(history.ms[:off]), verbatim...))
		default:
			st.Summarized += len(older)
			history = newPart(append([]api.Message{summaryMessage(summary)}, verbatim...))
			covers := last - len(verbatim)
			f.kept = Summary{Text: summary, Covers: covers, Digest: Digest(rest[:covers])}
			if f.Memory != nil {
				if err := f.Memory.KeepSummary(ctx, f.kept); err != nil {
					events = append(events, warning(fmt.Sprintf("the summary of the earlier conversation could not be kept for the next request, which will summarise again: %v", err)))
				}
			}
		}
	}
	// Drop what is left of the history, oldest first, but the summary: a
	// few sentences that stand for the whole earlier conversation are
	// worth more than the last bytes of the current turns' outputs (unless
	// the summary is longer than a quarter of the budget).
	lead := 0
	if len(history.ms) > 0 && history.ms[0].Role == "system" && Tokens(history.ms[0]) <= budget/4 {
		lead = 1
	}
	drop := lead
	// A tool result whose call went goes too: shown a result with no call,
	// the model cannot tell what produced it.
	for ; drop < len(history.ms) && (over() > 0 || drop > lead && history.ms[drop].Role == "tool"); drop++ {
		history.tokens -= Tokens(history.ms[drop])
	}
	if drop > lead {
		st.Dropped += drop - lead
		history.ms = append(history.ms[:lead:lead], history.ms[drop:]...)
	}
	// 4. Cut content: tool outputs in the current turns, then anything but
	// the newest user message, then the summary, then that message and the
	// system prompt.
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
	// Tool outputs first: cutting a call's arguments saves little and
	// leaves the model an output it cannot place.
	for _, outputs := range []bool{true, false} {
		for j := 1; j < len(current.ms) && !fits(); j++ { // the newest user message (0) is a last resort, below
			if (current.ms[j].Role == "tool") == outputs {
				cut(current, j)
			}
		}
	}
	if !fits() && len(history.ms) > 0 {
		st.Dropped += len(history.ms)
		history = newPart(nil)
	}
	// The current turns' calls and results, cut as far as they go, can
	// still be too many for a small context: the oldest turns go whole (a
	// call without its result, or a result without its call, would leave
	// the model guessing), then the prompt and the request are cut, then
	// the newest turn goes too.
	dropTurns := func(keep int) {
		for !fits() {
			var starts []int
			for j := 1; j < len(current.ms); j++ {
				if current.ms[j].Role != "tool" {
					starts = append(starts, j)
				}
			}
			if len(starts) <= keep {
				return
			}
			end := len(current.ms)
			if len(starts) > 1 {
				end = starts[1]
			}
			for _, m := range current.ms[starts[0]:end] {
				current.tokens -= Tokens(m)
			}
			st.Dropped += end - starts[0]
			current.ms = append(current.ms[:starts[0]:starts[0]], current.ms[end:]...)
		}
	}
	dropTurns(1)
	for j := range sys.ms {
		cut(sys, j)
	}
	if len(current.ms) > 0 {
		cut(current, 0)
	}
	dropTurns(0)
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
	size := fmt.Sprintf("%d chars", len(m.Content))
	if n := len(m.Images); n > 0 {
		size += ", " + plural.N(n, "image", "images")
	}
	if handle != "" {
		return fmt.Sprintf("[output of %s omitted to save context (%s); call tool.output.read with handle %s to see it]", m.ToolName, size, handle)
	}
	return fmt.Sprintf("[output of %s omitted to save context (%s); call %s again if you need it]", m.ToolName, size, m.ToolName)
}

// cutContent shortens a message by about over tokens, cutting from the
// middle so the start and end stay; when its whole content is not enough,
// the arguments of its tool calls go too. It reports whether it changed
// anything.
func cutContent(m *api.Message, over int) bool {
	n := len(m.Content)
	marker := "\n[… %d chars cut to fit the context …]\n"
	if drop := min(n, tokens.Bytes(m.Content, over+tokens.Count(marker)+4)); n > 0 && drop < n-8 {
		// Cut between characters: half a one becomes U+FFFD on its way.
		head := textcut.Before(m.Content, (n-drop)/2)
		from := textcut.After(m.Content, (n-drop)/2+drop) // where the tail starts
		m.Content = m.Content[:head] + fmt.Sprintf(marker, from-head) + m.Content[from:]
		return true
	}
	changed := false
	if n > 0 {
		m.Content = fmt.Sprintf("[%d chars cut to fit the context]", n)
		changed = true
	}
	for i := range m.ToolCalls {
		if m.ToolCalls[i].Function.Arguments.Len() > 0 {
			m.ToolCalls[i].Function.Arguments = api.NewToolCallFunctionArguments()
			changed = true
		}
	}
	return changed
}

func clone(ms []api.Message) []api.Message {
	out := make([]api.Message, len(ms))
	for i, m := range ms {
		out[i] = m
		out[i].ToolCalls = append([]api.ToolCall(nil), m.ToolCalls...)
	}
	return out
}

// summaryFor returns the summary in force for history, reading the
// session's once; ev is a warning when it could not be read.
func (f *Fitter) summaryFor(ctx context.Context, history []api.Message) (s Summary, ok bool, ev *agent.Event) {
	if !f.loaded && f.Memory != nil {
		f.loaded = true
		kept, found, err := f.Memory.Summary(ctx)
		switch {
		case err != nil && ctx.Err() == nil: // a stopped run needs no warning
			e := warning(fmt.Sprintf("the summary of the earlier conversation could not be read, so it is summarised again: %v", err))
			ev = &e
		case found && f.kept.Text == "":
			f.kept = kept
		}
	}
	s = f.kept
	if s.Text == "" || s.Covers <= 0 || s.Covers > len(history) || s.Digest != Digest(history[:s.Covers]) {
		return Summary{}, false, ev
	}
	return s, true, ev
}

func summaryMessage(text string) api.Message {
	return api.Message{Role: "system", Content: "Summary of the earlier conversation:\n" + text}
}

func warning(msg string) agent.Event {
	return agent.Event{Type: agent.TypeError, Time: time.Now().UTC(), Data: agent.Error{Kind: agent.KindWarning, Message: msg}}
}

// minSummaryChunk is the smallest chunk a part of the conversation is
// split into when Ollama refuses a summary request as too long.
const minSummaryChunk = 256

// summarize asks the model to summarise history onto summary (which may
// be empty) in chunks of at most chunk tokens; it returns the new summary
// and how many model calls it took. Each request sets num_ctx to the
// run's, so Ollama does not reload the model for another size, and asks
// Ollama to refuse a prompt it counts longer than that rather than cut
// its oldest part (the summary so far) unseen: a chunk refused is
// summarised again in halves, down to minSummaryChunk, and then sent for
// Ollama to cut, as is one refused in other words (ollamaerr.Refused).
func (f *Fitter) summarize(ctx context.Context, summary string, history []api.Message, chunk, numCtx int) (string, int, error) {
	if f.Model == nil {
		return "", 0, fmt.Errorf("no model to summarise with")
	}
	calls, i, cutOK := 0, 0, false
	for i < len(history) {
		var b strings.Builder
		if summary != "" {
			fmt.Fprintf(&b, "Summary so far:\n%s\n\n", summary)
		}
		b.WriteString("Conversation:\n")
		used := tokens.Of(b.String()) // of b, kept as lines are added (each ends one)
		start := i
		for i < len(history) {
			line := fmt.Sprintf("%s: %s\n", roleName(history[i]), history[i].Content)
			lf := tokens.Of(line)
			if used.Tokens()+lf.Tokens() > chunk && i > start {
				break
			}
			if lf.Tokens() > chunk {
				line = line[:textcut.Before(line, tokens.Bytes(line, chunk)-16)] + "…\n"
				lf = tokens.Of(line)
			}
			b.WriteString(line)
			used = used.Add(lf)
			i++
		}
		calls++
		text, err := f.ask(ctx, b.String(), numCtx, cutOK)
		switch {
		case err == nil:
			summary = text
		case cutOK:
			return "", calls, err
		case ollamaerr.TooLong(err) && chunk > minSummaryChunk:
			chunk, i = max(minSummaryChunk, chunk/2), start
		case ollamaerr.TooLong(err) || ollamaerr.Refused(err):
			cutOK, i = true, start
		default:
			return "", calls, err
		}
	}
	return summary, calls, nil
}

func roleName(m api.Message) string {
	if m.Role == "tool" {
		return "tool " + m.ToolName
	}
	return m.Role
}

// summaryTokens is the most a summary may run to.
const summaryTokens = 1024

// ask asks the model for one summary of text; cutOK lets Ollama cut a
// prompt that does not fit num_ctx instead of refusing it.
func (f *Fitter) ask(ctx context.Context, text string, numCtx int, cutOK bool) (string, error) {
	stream := false
	// num_predict bounds the summary (8 short sentences are ~200 tokens): a
	// model repeating itself would otherwise run on, unseen, for as long as
	// Ollama lets it, since the answer comes whole.
	req := &api.ChatRequest{Model: f.ModelName, Stream: &stream, Options: map[string]any{"num_ctx": numCtx, "num_predict": summaryTokens}, Messages: []api.Message{
		{Role: "system", Content: "Summarise the conversation below in at most 8 short sentences for your own later use. Keep file names, facts, decisions and open questions. Plain text only."},
		{Role: "user", Content: text},
	}}
	if !cutOK {
		refuse := false
		req.Truncate = &refuse
	}
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
