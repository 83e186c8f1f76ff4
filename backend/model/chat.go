package model

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/pyliteral"
	"github.com/shrimp-harness/shrimp/internal/toolname"
)

// Chat streams one chat request, like api.Client.Chat, with five things
// added: text in the request that Ollama would read as the model's
// control tokens is sent as text, and taken back out of what the model
// writes (special.go); a <think> block at the start of the content is
// moved to the thinking (think.go; and a model seen to leave the
// opening tag out has what comes before the closing one read as
// thinking), and a content written in gpt-oss's harmony is read as its
// thinking, answer and calls (harmony.go); tool calls the model wrote
// into its text are turned into real tool calls (the text that held
// them is not shown); a stream that ends without its final chunk is an
// [ErrStreamCut]; and errors say what to do.
//
// A server that sends nothing for the idle timeout (before the first chunk
// or between two) ends the request with an [ErrStalled] that names the
// host and what to check. A request without a keep_alive of its own is
// sent the client's ([Client.SetKeepAlive]).
func (c *Client) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	if keep := c.KeepAlive(); keep != 0 && req.KeepAlive == nil {
		r := *req
		r.KeepAlive = &api.Duration{Duration: keep}
		req = &r
	}
	var aliases toolname.Aliases
	if a := c.aliases.Load(); a != nil {
		aliases = *a
	}
	req, token := escapeSpecial(req, c.templateTokens(ctx, req.Model))
	if token != "" {
		notify(ctx, fmt.Sprintf("Text the model reads (a file, a page, a command's output, a message) holds %q, which Ollama would read as one of the model's control tokens: Shrimp sent it as plain text, so it cannot open or end a turn of the conversation", token))
	}
	s := newTextCalls(req.Tools, aliases)
	noTools := c.Host() + " " + req.Model
	if _, known := c.noTools.Load(noTools); known && len(req.Tools) > 0 {
		notify(ctx, promptedNotice(req.Model))
		req = prompted(req)
	}
	th := &thinkTags{}
	modelKey := c.Host() + " " + req.Model
	if close := c.headlessClose(ctx, modelKey); close != "" {
		th.startInside(close)
	}
	hm := &harmony{known: s.known}
	u := &unescapers{}
	done, sent := false, false
	idle := c.IdleTimeout()
	outer := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(idle, func() { cancel(errIdle) })
	defer timer.Stop()
	call := func() error {
		return c.API().Chat(ctx, req, func(resp api.ChatResponse) error {
			timer.Reset(idle)
			sent = true
			if resp.Done {
				c.learnLoad(req, resp)
			}
			return c.chunk(s, hm, th, u, &done, resp, fn)
		})
	}
	err := call()
	// Ollama refuses a request when its queue of requests is full (503,
	// "server busy, please try again": OLLAMA_MAX_QUEUE, 512 unless set,
	// so other programs are using it). It is asked again busyRounds
	// times, waiting twice as long each time, the user told why.
	wait := cmp.Or(c.busyFirst, busyFirstWait)
	for round := 0; round < busyRounds && !sent && busy(err); round, wait = round+1, wait*2 {
		notify(outer, fmt.Sprintf("Ollama at %s is busy: its queue of requests is full (other programs are using it); Shrimp asks again, for up to a minute", c.Shown()))
		timer.Stop()
		select {
		case <-time.After(wait):
		case <-outer.Done():
			return outer.Err()
		}
		timer.Reset(idle)
		err = call()
	}
	// A model without thinking or without tool calling in its template is
	// asked again without what it lacks (in either order Ollama refuses
	// them).
retry:
	for range 2 {
		var se api.StatusError
		if err == nil || sent || !errors.As(err, &se) {
			break
		}
		switch {
		case req.Think != nil && strings.Contains(se.ErrorMessage, "does not support thinking"):
			// Thinking is a nicety: ask again without it.
			req.Think = nil
		case len(req.Tools) > 0 && strings.Contains(se.ErrorMessage, "does not support tools"):
			// The tools go in the prompt, the calls come back as text
			// (prompted.go).
			c.noTools.Store(noTools, true)
			notify(ctx, promptedNotice(req.Model))
			req = prompted(req)
		default:
			break retry
		}
		err = call()
	}
	if th.takenBack {
		c.learnHeadless(outer, modelKey, "") // Ollama reads its blocks now
	}
	if th.lone != "" {
		if c.learnHeadless(outer, modelKey, th.lone) {
			notify(outer, fmt.Sprintf("%s wrote its thinking without the tag that opens it, only %s after it (its template opens the block in the prompt, or was made without it): from its next answer on, Shrimp reads what comes before %s as its thinking, and a call written there is not made", req.Model, th.lone, th.lone))
		}
	}
	switch {
	case err != nil && outer.Err() == nil && errors.Is(context.Cause(ctx), errIdle):
		what := "sent nothing"
		if sent {
			what = "stopped sending mid-answer"
		}
		return fmt.Errorf("%w: Ollama at %s %s for %v; check that it is running and not stuck (`ollama ps`, its log), or give slow model loads longer with --idle-timeout or SHRIMP_IDLE_TIMEOUT", ErrStalled, c.Shown(), what, idle)
	case err != nil && ctx.Err() != nil:
		return outer.Err()
	case err != nil && !done && isCut(err):
		return fmt.Errorf("%w: the connection to Ollama at %s broke mid-answer (%v); check that Ollama is still running, then ask again", ErrStreamCut, c.Shown(), err)
	case err != nil:
		return c.explain(err, req.Model)
	case !done:
		return fmt.Errorf("%w: Ollama at %s stopped sending before the answer was complete; check that it is still running, then ask again", ErrStreamCut, c.Shown())
	}
	return nil
}

// busyFirstWait is the first wait before asking a busy Ollama again, and
// busyRounds how many times it is asked again (1+2+…+32 s: about a
// minute in all).
const (
	busyFirstWait = time.Second
	busyRounds    = 6
)

// busy reports whether err is Ollama refusing a request because its queue
// is full (v0.24.0's server/sched.go ErrMaxQueue, answered with 503).
func busy(err error) bool {
	var se api.StatusError
	return errors.As(err, &se) && se.StatusCode == http.StatusServiceUnavailable && strings.Contains(se.ErrorMessage, "server busy")
}

// promptedNotice tells the user a model's tools went into its prompt.
func promptedNotice(model string) string {
	return fmt.Sprintf("%s has no tool calling in its Ollama template, so Shrimp describes the tools in its prompt and reads its calls from its text: this works less reliably than a model made for tools (qwen3, llama3.1, mistral-nemo)", model)
}

// errIdle is the cancellation cause when the idle timeout fires.
var errIdle = errors.New("idle timeout")

// chunk passes one streamed chunk on: a harmony content (harmony.go),
// thinking tags and text calls taken out of its content, escapeSpecial's
// joiners out of what is shown and called. The text-call reader sees the
// joiners: a call the model copied from what it read (a file holding
// "<tool_call>{…}") is not one it made.
func (c *Client) chunk(s *textCalls, hm *harmony, th *thinkTags, u *unescapers, done *bool, resp api.ChatResponse, fn api.ChatResponseFunc) error {
	if len(resp.Message.ToolCalls) > 0 {
		s.enabled = false // the model uses native calls; leave its text alone
	}
	if resp.Message.Thinking != "" {
		th.notHeadless() // Ollama reads this model's thinking itself
	}
	thinking, content, calls := hm.split(resp.Message.Content)
	if resp.Done {
		t, a, cs := hm.finish()
		thinking, content, calls = thinking+t, content+a, append(calls, cs...)
	}
	resp.Message.ToolCalls = append(resp.Message.ToolCalls, calls...)
	if !hm.on() {
		t, a := th.split(content)
		if resp.Done {
			t2, a2 := th.finish()
			t, a = t+t2, a+a2
		}
		thinking, content = thinking+t, a
	}
	resp.Message.Thinking = u.thinking.piece(resp.Message.Thinking + thinking)
	content = s.feed(content)
	if resp.Done {
		*done = true
		text, calls := s.finish()
		content += text
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, calls...)
	}
	resp.Message.Content = u.content.piece(content)
	resp.Message.ToolCalls, _ = mapArgs(resp.Message.ToolCalls, unescapeText)
	return fn(resp)
}

func isCut(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "unexpected EOF") || strings.Contains(msg, "connection reset") || strings.Contains(msg, "broken pipe")
}

// textCalls holds back text that may be a tool call written as text: from
// a call marker on, or the whole message while it may still be one call
// (it started with "{", "[" or a fence). Held text that turns out not to
// be a call is shown.
type textCalls struct {
	enabled bool
	known   func(string) bool // registered tool names
	atStart bool              // nothing but whitespace shown so far
	holding bool
	whole   bool // holding because the whole message may be a call
	// checkedAt is the held length when it was last judged whole.
	checkedAt int
	pending   string // a possible marker start, not shown yet
	held      strings.Builder
	shown     codeState // what was shown so far, as far as code quoting goes
}

func newTextCalls(tools api.Tools, aliases toolname.Aliases) *textCalls {
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		names = append(names, t.Function.Name)
	}
	// A call is known by any spelling the agent resolves (fs_read for
	// fs.read, Bash for shell.run when it is offered); the agent renames
	// it before it is run.
	idx := toolname.New(names, aliases)
	return &textCalls{enabled: len(tools) > 0, atStart: true, known: func(n string) bool { _, ok := idx.Resolve(n); return ok }}
}

// feed takes a content chunk and returns the part to show now.
func (s *textCalls) feed(t string) string {
	if !s.enabled {
		out := s.pending + t
		s.pending = ""
		return out
	}
	if s.holding {
		s.held.WriteString(t)
		if !s.whole {
			return ""
		}
		// Judged again each time the held text doubled, so a long answer
		// costs linear time, not a decode per chunk.
		n := s.held.Len()
		if n < 2*s.checkedAt {
			return ""
		}
		s.checkedAt = n
		if mayBeWhole(s.held.String()) {
			return ""
		}
		// Not a call after all: show it, and go on looking for markers.
		t = s.held.String()
		s.held.Reset()
		s.holding, s.whole, s.atStart = false, false, false
	}
	all := s.pending + t
	s.pending = ""
	// Markers are judged with what was shown before, so one quoted as code
	// in an earlier chunk stays an example.
	i, _ := firstMarkerAfter(all, s.shown)
	if s.atStart {
		if j := strings.IndexFunc(all, func(r rune) bool { return !unicode.IsSpace(r) }); j >= 0 && strings.ContainsRune("{[`", rune(all[j])) && (i < 0 || j < i) {
			i, s.whole = j, true
		}
	}
	if i >= 0 {
		s.holding = true
		s.held.WriteString(all[i:])
		s.checkedAt = len(all) - i
		s.shown = s.shown.advance(all[:i])
		if s.whole && !mayBeWhole(all[i:]) {
			return all[:i] + s.feed("")
		}
		return all[:i]
	}
	show, keep := holdBack(all)
	s.pending = keep
	if strings.TrimSpace(show) != "" {
		s.atStart = false
	}
	s.shown = s.shown.advance(show)
	return show
}

// mayBeWhole reports whether held text (which started with "{", "[" or a
// fence) may still turn out to be a whole-message call.
func mayBeWhole(held string) bool {
	// A marker inside the value is part of a string (a call whose text
	// mentions tool calls): what decides is whether the value ends with
	// the message.
	t := strings.TrimSpace(held)
	if len(t) < 3 && strings.HasPrefix("```", t) {
		return true
	}
	if rest, ok := strings.CutPrefix(t, "```"); ok {
		line, body, complete := strings.Cut(rest, "\n")
		if complete {
			switch strings.TrimSpace(line) {
			case "", "json", "JSON", "tool_call":
			default:
				return false
			}
			// A JSON body is read as JSON: its strings may hold fences.
			if v := strings.TrimLeftFunc(body, unicode.IsSpace); strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
				dec := json.NewDecoder(strings.NewReader(v))
				var raw json.RawMessage
				err := dec.Decode(&raw)
				var se *json.SyntaxError
				switch {
				case err == nil:
					after := strings.TrimSpace(v[dec.InputOffset():])
					return strings.HasPrefix("```", after) || after == "```"
				case !errors.As(err, &se):
					return true // the value goes on
				}
			}
			if _, after, closed := strings.Cut(body, "```"); closed && strings.TrimSpace(after) != "" {
				return false
			}
		}
		return true
	}
	dec := json.NewDecoder(strings.NewReader(t))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		return !errors.As(err, &se) || looksPythonic(t)
	}
	return strings.TrimSpace(t[dec.InputOffset():]) == ""
}

// looksPythonic reports whether text starts like [name( — a Python-style
// call list.
func looksPythonic(t string) bool {
	p := &pyParser{pyliteral.Reader{S: t}}
	if !p.Eat('[') {
		return false
	}
	p.Space()
	if p.Ident() == "" {
		return false
	}
	p.Space()
	return p.I == len(p.S) || p.Eat('(')
}

// finish returns what was held back: as tool calls when it parses as
// such, as a malformed call when it tried to be one, else as text.
func (s *textCalls) finish() (string, []api.ToolCall) {
	if !s.holding {
		out := s.pending
		s.pending = ""
		return out, nil
	}
	held := s.held.String()
	s.held.Reset()
	s.holding, s.whole = false, false
	// A thinking block's closing tag here has no opening (thinkTags took
	// any block opened at the start): what comes before it was the
	// model's thinking, shown as it is, and a call written there was only
	// considered; calls are read after it.
	shown, read := "", held
	if i, tag := lastOf(held, closeTags); i >= 0 && !strings.Contains(held[:i], openOf(tag)) {
		shown, read = held[:i+len(tag)], held[i+len(tag):]
	}
	calls, attempted := ParseToolCalls(read, s.known)
	switch {
	case len(calls) > 0:
		return shown, calls
	case attempted:
		return shown, []api.ToolCall{malformedCall(read)}
	default:
		return held, nil
	}
}

// malformedCall is the call the adapter reports for an attempted but
// unreadable tool call: no name, the raw text as its only argument. The
// registry answers it with the list of tools.
func malformedCall(text string) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	if len(text) > 500 {
		text = text[:500]
	}
	args.Set("raw", text)
	return api.ToolCall{Function: api.ToolCallFunction{Name: "", Arguments: args}}
}

// holdBack splits s into what may be shown now and a suffix that could be
// the start of a marker, so "<tool_" at the end of a chunk is not shown
// before the next chunk says whether it is a tool call.
func holdBack(s string) (show, keep string) {
	for k := min(len(s), longestMarker-1); k > 0; k-- {
		suffix := s[len(s)-k:]
		if !opensMarker[suffix[0]] {
			continue
		}
		for _, m := range markers {
			if strings.HasPrefix(m.open, suffix) {
				return s[:len(s)-k], suffix
			}
		}
	}
	return s, ""
}
