// Package agent is Shrimp's loop: one user request in, a stream of events
// out. It asks the model, runs the tools the model calls (after the approval
// gate), feeds the results back and repeats until the model answers.
//
// The loop only yields events; it does not store, display or learn. The
// session runner stamps and persists what it yields and publishes it on the
// bus, where the window, the store, the token tracker and the learner
// subscribe.
//
// # Stream contract
//
// [Agent.Run] returns an iter.Seq2[Event, error]:
//   - events come in causal order on the caller's goroutine;
//   - the first event is agent:run-started and the last is agent:run-ended,
//     whose data says how the run ended (responded, error, cancelled);
//   - a non-nil error is yielded at most once, right after agent:run-ended,
//     and is final;
//   - stopping the range (yield returns false) cancels the model call and
//     any running tool, and Run returns without further events;
//   - the loop never panics out: a panicking tool becomes an error tool
//     result, and the run goes on;
//   - a cancelled run ends promptly: a tool that does not return within
//     [StopGrace] of the cancellation is left behind.
//
// # Guards
//
// A run stops with agent:error when the model took Agent.MaxTurns turns,
// called the same tool with the same arguments three times in a row
// (unless the last of them gave something new: a status polled),
// went round the same circle of up to four calls three times, each call
// giving what it gave before (circles.go; when what they gave was left
// out to fit the context each time, the error says the context is too
// small), or made three malformed calls in a row (unknown tool, invalid
// arguments, unparseable call). A single
// bad call goes back to the model as a tool result that lists the tools
// it can use; a call that gives what the same call gave earlier in the
// run goes back with its result and a note saying so; a call a reply
// holds twice runs once.
//
// # Replies that are no answer
//
// A reply with neither text nor a tool call (a reasoning model that only
// thought) is asked once a run to answer; a reply that only says what the
// model will do next and calls no tool (promise.go) is asked once a run
// to do it or answer.
//
// # Checks at the answer
//
// When the model answers, the Agent.Finisher (the user's pre-run-end
// hooks) may send it back to work: the answer is yielded as
// agent:response, then agent:sent-back with what the model is told, and
// the loop goes on as if the user had said it. A run is sent back at most
// [MaxSentBack] times, within the same turn limit.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/internal/jsonplain"
	"github.com/shrimp-harness/shrimp/internal/ollamaerr"
	"github.com/shrimp-harness/shrimp/internal/plural"
	"github.com/shrimp-harness/shrimp/internal/textcut"
	"github.com/shrimp-harness/shrimp/internal/tokens"
)

// Model is the chat client the loop consumes. *api.Client satisfies it, and
// so does Shrimp's adapter (backend/model), which adds tolerant tool-call
// parsing and errors that say what to do.
type Model interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
}

// Tools is the registry the loop calls tools through.
type Tools interface {
	// Specs returns the tool definitions offered to the model.
	Specs() api.Tools
	// Check validates a call before it is approved and run; its error is
	// shown to the model.
	Check(name string, args json.RawMessage) error
	// Run runs a checked call and returns its output.
	Run(ctx context.Context, name string, args json.RawMessage) (string, error)
}

// Mender is implemented by Tools that know how models get calls slightly
// wrong: a tool's name misspelt (fs_read for fs.read), a number or a list
// written as a string ("limit": "20"). A call is mended before anything
// sees it, so the question, the rules, the history and the model's next
// turn all show the call that runs.
type Mender interface {
	Mend(call *api.ToolCall)
}

// Preparer is implemented by Tools that may need a moment before the
// first model call of a request (MCP servers still starting, whose tools
// should be offered from the first turn). Prepare waits, bounded and
// until ctx ends, saying with say what it waits for and how it ended;
// the run goes on whatever it says. It runs after the request's own
// events, before recall.
type Preparer interface {
	Prepare(ctx context.Context, say func(Event) bool)
}

// Loader is implemented by Models that can tell, before a request,
// whether Ollama will first load the model: it is not in memory (never
// loaded, or unloaded after its keep-alive), or it is in memory for
// another context size, which Ollama loads it again for. A load takes
// seconds to minutes with nothing streamed, and the run says so rather
// than seem stuck. loaded is the context size it is in memory with (0:
// not in memory); a Loader that cannot tell says false.
type Loader interface {
	Loading(ctx context.Context, model string, numCtx int) (loaded int, must bool)
}

// Decision is the approval gate's answer for one tool call.
type Decision struct {
	Allow  bool
	Reason string // why it was denied, shown to the model
	// Standing says the call was allowed by an answer the user gave
	// before (a stored rule), not for this call nor by the approval mode:
	// such an answer does not cover writing files that run commands later
	// (Standing, for the tool).
	Standing bool
	// Seen says the user was shown this very call (its arguments, and the
	// diff of a write) and allowed it (Seen, for the tool).
	Seen bool
}

// Approver is asked before each tool call. An error means deny: the gate
// fails closed.
type Approver interface {
	Approve(ctx context.Context, call ToolCall) (Decision, error)
}

// Recaller is consulted once per request, before the first model call.
// It returns a hint for the model (empty for none) and events to yield
// about it (memory:procedure-recalled).
type Recaller interface {
	Recall(ctx context.Context, request string) (hint string, events []Event, err error)
}

// Context fits the conversation into the model's context window before
// each model call; it may compact, and returns events saying so. numCtx
// is the window the call asks Ollama for (a call the fitting makes, a
// summary, asks for it too: Ollama loads a model again for another size),
// room the part of it the prompt's estimate may fill (numCtx, or less once
// estimates fell short of the model's own count).
type Context interface {
	Fit(ctx context.Context, msgs []api.Message, tools api.Tools, numCtx, room int) ([]api.Message, []Event, error)
}

// Outputs keeps tool outputs too large to show the model whole, and
// returns a handle the model can page through (tool.output.read).
type Outputs interface {
	Keep(ctx context.Context, tool, output string) (handle string, err error)
}

// Finisher is asked when the model answers, before the run ends: the
// user's checks (pre-run-end hooks: the tests must pass, the file must
// be formatted) may send the model back to work. more is what it is told
// then ("" lets the run end); notes are said to the user as warnings (a
// check that failed, which lets the run end).
type Finisher interface {
	Finish(ctx context.Context, f Finishing) (more string, notes []string)
}

// Finishing is what the Finisher is told of the run it checks.
type Finishing struct {
	Answer    string // the model's answer
	SentBack  int    // times this run was sent back already
	ToolCalls int    // tool calls the run made so far (a check of changes has nothing to check without any)
}

// MaxSentBack is how many times the Finisher may send one run back to
// work (Claude Code's cap for its Stop hooks): a check that is never
// satisfied cannot keep the model going until the turn limit.
const MaxSentBack = 8

// Request is one user request.
type Request struct {
	Model   string         // the Ollama model name
	Text    string         // what the user asked
	Images  []attach.Image // attached to the request, for a model that can see
	History []api.Message  // earlier turns of the session, oldest first
	System  string         // the system prompt ("" for none)
	Options map[string]any // Ollama options (num_ctx is always set)
	// Think is the request's `think` (model.Think's Value): nil leaves
	// it to the model (Ollama turns thinking on for models that think).
	Think *api.ThinkValue
	// Blind says the model cannot see: the images of earlier turns (the
	// session began with another model) are sent as a note saying so.
	Blind bool
	// Events say how the request was prepared (the instruction files
	// read); they are yielded before the first model call.
	Events []Event
}

// Agent is the loop's configuration. Zero values have the documented
// defaults; Model and Tools are required.
type Agent struct {
	Model    Model
	Tools    Tools
	Approver Approver // nil allows every call
	Recaller Recaller // nil recalls nothing
	Context  Context  // nil sends the whole conversation
	Outputs  Outputs  // nil cuts long outputs without a way back
	Finisher Finisher // nil ends a run at the model's answer

	MaxTurns      int           // model calls per request (default DefaultMaxTurns)
	MaxOutput     int           // tool output bytes kept (default 16 KiB)
	NumCtx        int           // context size sent as options.num_ctx (default DefaultNumCtx)
	MaxReply      int           // streamed pieces (about tokens) one reply may hold (default: the turn's num_ctx)
	MaxCalls      int           // tool calls run from one reply (default 20)
	FlushInterval time.Duration // how often streamed text is yielded (default 50 ms)
	FlushSize     int           // or once this many bytes are buffered (default 256)
	// Shortfall carries what this model's runs learned about the prompt
	// estimate between runs (nil: each run starts afresh).
	Shortfall *Shortfall
}

// Shortfall is how far prompt estimates fell short of what a model's
// tokenizer counted (1 or less: never), shared by that model's runs so a
// run starts fitted as tight as the last one ended. Safe for concurrent
// use; the zero value is ready.
type Shortfall struct {
	mu     sync.Mutex
	factor float64
}

// Factor returns the shortfall seen so far (at least 1).
func (s *Shortfall) Factor() float64 {
	if s == nil {
		return 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(1, s.factor)
}

// raise records a shortfall, up to 3.
func (s *Shortfall) raise(f float64) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.factor = max(s.factor, min(3, f))
}

// RaiseTurns says where the user raises the turn limit.
const RaiseTurns = "Settings → Turns per request, shrimp chat --max-turns N, or SHRIMP_MAX_TURNS"

// DefaultMaxTurns is the turn limit when Agent.MaxTurns is 0: enough for
// a chore of a dozen calls with room to recover from mistakes, and a
// bound on a small model that never answers.
const DefaultMaxTurns = 25

func (a *Agent) maxTurns() int  { return cmpOr(a.MaxTurns, DefaultMaxTurns) }
func (a *Agent) maxOutput() int { return cmpOr(a.MaxOutput, 16<<10) }
func (a *Agent) maxCalls() int  { return cmpOr(a.MaxCalls, 20) }
func (a *Agent) numCtx() int    { return cmpOr(a.NumCtx, DefaultNumCtx) }

// DefaultNumCtx is the context size sent when none is configured.
const DefaultNumCtx = 8192

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// errStopped is returned from callbacks when the consumer stopped the range.
var errStopped = errors.New("agent: consumer stopped")

// errRunaway stops a reply that outgrew Agent.MaxReply.
var errRunaway = errors.New("agent: reply too long")

// Run runs one request; see the package doc for the stream contract.
func (a *Agent) Run(ctx context.Context, req Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		r := &run{agent: a, req: req, yield: yield, ended: RunEnded{Model: req.Model}}
		r.loop(ctx)
	}
}

// run is the state of one request.
type run struct {
	agent   *Agent
	req     Request
	yield   func(Event, error) bool
	stopped bool // the consumer stopped the range
	ended   RunEnded

	turnTokens int // completion tokens of the last model turn, from Ollama
	sentBack   int // times the Finisher sent the model back to work

	lastCall  uint64            // the previous call's tool and arguments (callKeyOf), for the repeat guard
	inReply   map[uint64]string // the calls of the reply being run (callKeyOf), by the first one's id
	repeats   int
	ran       []ranCall       // the calls that ran, for the circle guard (circles.go)
	shown     map[uint64]bool // the results the model was last sent (shownHash)
	sent      map[uint64]bool // the results the model was ever sent in the run
	estimated int             // the estimated prompt tokens of the last model call (sentTokens)
	numCtx    int             // the context size the last model call was sent
	malformed int
	empty     int  // replies with neither an answer nor a tool call
	promised  bool // a reply said what the model would do and called no tool (promise.go)
	claimed   bool // a reply said a file was acted on that no call touched (claims.go)
	offered   bool // the last model call offered tools
	cut       bool // the last reply stopped at the output limit

	// under is how far the prompt estimate fell short of what Ollama
	// counted in this run (1: never): this model's tokenizer makes more of
	// this conversation than internal/tokens expects, so its prompts are
	// fitted to a context that much smaller (and so are its later runs',
	// through Agent.Shortfall). Only a shortfall counts: Ollama counts
	// fewer tokens than were sent when it reuses its cache.
	under float64

	// longest is the most tokens a reply of this run ran to: a reply
	// longer than the room kept for it makes Ollama shift its context
	// window mid-reply, so later prompts keep that much room (shifted
	// says the user was told).
	longest int
	shifted bool
}

// emit yields one event; it reports false once the consumer has stopped.
func (r *run) emit(t Type, data any) bool {
	if r.stopped {
		return false
	}
	if !r.yield(Event{Type: t, Time: time.Now().UTC(), Data: data}, nil) {
		r.stopped = true
	}
	return !r.stopped
}

func (r *run) loop(ctx context.Context) {
	if !r.emit(TypeRunStarted, RunStarted{Model: r.req.Model, Text: r.req.Text, Images: r.req.Images, Options: r.req.Options}) {
		return
	}
	msgs := r.prompt(ctx)
	if r.stopped {
		return
	}
	for r.ended.Turns < r.agent.maxTurns() {
		if ctx.Err() != nil {
			r.fail(ctx, ctx.Err())
			return
		}
		r.ended.Turns++
		reply, err := r.callModel(ctx, msgs)
		if r.stopped {
			return
		}
		if err != nil {
			r.fail(ctx, err)
			return
		}
		if n, most := len(reply.ToolCalls), r.agent.maxCalls(); n > most {
			// A model caught in a loop can ask for thousands of calls in one
			// reply; what it is shown of its reply is what was run.
			reply.ToolCalls = reply.ToolCalls[:most]
			r.emit(TypeError, Error{Kind: KindWarning, Message: fmt.Sprintf("the model asked for %d tool calls in one reply; the first %d were run and the rest dropped (the model can ask for them again)", n, most)})
		}
		if m, ok := r.agent.Tools.(Mender); ok {
			for i := range reply.ToolCalls {
				m.Mend(&reply.ToolCalls[i])
			}
		}
		msgs = append(msgs, reply)
		if len(reply.ToolCalls) == 0 && strings.TrimSpace(reply.Content) == "" && !r.cut {
			// Reasoning models sometimes end a turn with thinking alone and
			// no answer (gpt-oss's final channel never opened; qwen3 with
			// thinking and tools, ollama #10976): asked once to answer,
			// they mostly do.
			if r.empty++; r.empty == 1 && r.ended.Turns < r.agent.maxTurns() {
				why := ""
				if strings.TrimSpace(reply.Thinking) != "" {
					why = " (it only thought)"
				}
				r.emit(TypeError, Error{Kind: KindWarning, Message: "the model ended its turn without an answer or a tool call" + why + ", so it was asked once more to answer"})
				msgs = append(msgs, api.Message{Role: "user", Content: emptyNudge})
				continue
			}
			r.emit(TypeError, Error{Kind: KindWarning, Message: "the model ended its turn without an answer again; what it thought is in the timeline: ask again, more plainly, or try another model"})
		}
		if len(reply.ToolCalls) == 0 && r.offered && !r.promised && !r.cut && r.ended.Turns < r.agent.maxTurns() && promises(reply.Content) {
			// Said what it would do and stopped (promise.go): asked once
			// a run to do it, or answer.
			r.promised = true
			r.emit(TypeError, Error{Kind: KindWarning, Message: "the model said what it would do next but called no tool, so it was asked to go on"})
			msgs = append(msgs, api.Message{Role: "user", Content: promiseNudge})
			continue
		}
		if len(reply.ToolCalls) == 0 && r.offered && !r.claimed && !r.cut && r.ended.Turns < r.agent.maxTurns() {
			// Said it did what no call did (claims.go): asked once a run
			// to do it, or to say it was not done.
			if name, verb := unbackedClaim(reply.Content, r.req.Text, msgs); name != "" {
				r.claimed = true
				r.emit(TypeError, Error{Kind: KindWarning, Message: fmt.Sprintf("the model's answer says %q of %s, but no tool call touched it, so it was asked to do it or say it was not done", verb, name)})
				msgs = append(msgs, api.Message{Role: "user", Content: fmt.Sprintf(claimNudge, verb, name, name)})
				continue
			}
		}
		if len(reply.ToolCalls) == 0 {
			if !r.emit(TypeResponse, Response{Text: reply.Content, Tokens: r.turnTokens}) {
				return
			}
			if more := r.finish(ctx, reply.Content); more != "" {
				msgs = append(msgs, api.Message{Role: "user", Content: more})
				r.empty = 0
				continue
			}
			switch {
			case r.stopped:
			case ctx.Err() != nil: // stopped while the checks ran
				r.fail(ctx, ctx.Err())
			default:
				r.end(StatusResponded, nil)
			}
			return
		}
		clear(r.inReply)
		for _, tc := range reply.ToolCalls {
			res, stop := r.callTool(ctx, tc)
			if r.stopped {
				return
			}
			if stop != nil {
				r.fail(ctx, stop)
				return
			}
			msgs = append(msgs, api.Message{Role: "tool", Content: toolContent(res), ToolName: res.Name, ToolCallID: res.ID, Images: attach.Datas(res.Images)})
		}
	}
	r.fail(ctx, fmt.Errorf("stopped after %d model turns without an answer; ask again more specifically, or raise the turn limit (%s)", r.agent.maxTurns(), RaiseTurns))
}

// finish asks the Finisher whether the answer ends the run: it returns
// what the model is told when it does not (announced by an
// agent:sent-back event), "" when it does. A run sent back MaxSentBack
// times, or at its last turn, ends whatever the checks say, with a
// warning saying what they said.
func (r *run) finish(ctx context.Context, answer string) string {
	f := r.agent.Finisher
	if f == nil || ctx.Err() != nil {
		return ""
	}
	more, notes := safeFinish(ctx, f, Finishing{Answer: answer, SentBack: r.sentBack, ToolCalls: r.ended.ToolCalls})
	if ctx.Err() != nil {
		return "" // what the checks say of being stopped is not news
	}
	for _, n := range notes {
		if !r.emit(TypeError, Error{Kind: KindWarning, Message: n}) {
			return ""
		}
	}
	if more = strings.TrimSpace(more); more == "" {
		return ""
	}
	said := strings.Join(strings.Fields(more), " ")
	if len(said) > 400 {
		said = said[:textcut.Before(said, 400)] + "…"
	}
	switch {
	case r.sentBack >= MaxSentBack:
		r.emit(TypeError, Error{Kind: KindWarning, Message: fmt.Sprintf("the checks run when the model answers still say the request is not done, after sending it back %d times, the most one request may be; the run ends here (ask again, or see to it yourself): %s", MaxSentBack, said)})
		return ""
	case r.ended.Turns >= r.agent.maxTurns():
		r.emit(TypeError, Error{Kind: KindWarning, Message: fmt.Sprintf("the checks run when the model answers say the request is not done, but the model has used its %d turns, so it was not sent back (ask again, or raise the turn limit: %s): %s", r.agent.maxTurns(), RaiseTurns, said)})
		return ""
	}
	r.sentBack++
	if !r.emit(TypeSentBack, SentBack{Text: more, Time: r.sentBack}) {
		return ""
	}
	return more
}

func safeFinish(ctx context.Context, f Finisher, fin Finishing) (more string, notes []string) {
	defer func() {
		if p := recover(); p != nil {
			more, notes = "", []string{fmt.Sprintf("the checks run when the model answers crashed (%v), so the run ends without them", p)}
		}
	}()
	return f.Finish(ctx, fin)
}

// prompt builds the first messages: system prompt with the recalled hint,
// history, then the request.
func (r *run) prompt(ctx context.Context) []api.Message {
	system := r.req.System
	for _, e := range r.req.Events {
		if r.stopped || !r.yieldEvent(e) {
			return nil
		}
	}
	if p, ok := r.agent.Tools.(Preparer); ok {
		p.Prepare(ctx, func(e Event) bool { return !r.stopped && r.yieldEvent(e) })
		if r.stopped {
			return nil
		}
	}
	if rc := r.agent.Recaller; rc != nil {
		hint, events, err := safeRecall(ctx, rc, r.req.Text)
		if err != nil {
			r.emit(TypeError, Error{Kind: KindWarning, Message: "procedural memory could not be searched, going on without it: " + err.Error()})
		}
		for _, e := range events {
			if r.stopped || !r.yieldEvent(e) {
				return nil
			}
		}
		if hint != "" {
			system = strings.TrimSpace(system + "\n\n" + hint)
		}
	}
	var msgs []api.Message
	if system != "" {
		msgs = append(msgs, api.Message{Role: "system", Content: system})
	}
	hist := r.req.History
	if r.req.Blind {
		hist = withoutImages(hist)
	}
	msgs = append(msgs, hist...)
	return append(msgs, api.Message{Role: "user", Content: r.req.Text, Images: attach.Datas(r.req.Images)})
}

// withoutImages returns msgs with each image replaced by a note in its
// message's text, for a model that cannot see: Ollama would drop them and
// leave their "[img-0]" tags, and the model would answer about pictures
// it never saw.
func withoutImages(msgs []api.Message) []api.Message {
	if !slices.ContainsFunc(msgs, func(m api.Message) bool { return len(m.Images) > 0 }) {
		return msgs
	}
	out := slices.Clone(msgs)
	for i, m := range out {
		if n := len(m.Images); n > 0 {
			out[i].Images = nil
			out[i].Content = fmt.Sprintf("[%s attached here, which this model cannot see]\n%s", plural.N(n, "image", "images"), m.Content)
		}
	}
	return out
}

func (r *run) yieldEvent(e Event) bool {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if !r.yield(e, nil) {
		r.stopped = true
	}
	return !r.stopped
}

func safeRecall(ctx context.Context, rc Recaller, text string) (hint string, events []Event, err error) {
	defer func() {
		if p := recover(); p != nil {
			hint, events, err = "", nil, fmt.Errorf("recall panicked: %v", p)
		}
	}()
	return rc.Recall(ctx, text)
}

// fitRounds is how many times a prompt Ollama refuses as longer than the
// context window is compacted further and sent again.
const fitRounds = 3

// callModel streams one model turn, yielding batched thinking and text,
// and returns the assembled assistant message. A prompt Ollama counts
// longer than the context window (ollamaerr.TooLong) is fitted again
// into a smaller room, fitRounds times at most, each time told; one that
// still does not fit is sent for Ollama to cut to the window, as it did
// before Shrimp asked it not to, the user told what the model does not
// see.
func (r *run) callModel(ctx context.Context, msgs []api.Message) (api.Message, error) {
	cut, last := false, 0
	for round := 0; ; round++ {
		reply, err := r.callModelOnce(ctx, msgs, cut)
		if !cut && !ollamaerr.TooLong(err) && ollamaerr.Refused(err) {
			cut = true // not said: nothing says the prompt was too long
			continue
		}
		if !ollamaerr.TooLong(err) || cut {
			return reply, err
		}
		var warning string
		shrank := round == 0 || r.estimated < last
		last = r.estimated
		if r.agent.Context == nil || round == fitRounds || !shrank {
			// Compacting further would send the same prompt again (what
			// does not fit is what cannot be compacted: the instructions,
			// the tools, the request itself).
			cut = true
			warning = fmt.Sprintf("the prompt does not fit the context window (num_ctx %d), even compacted as far as Shrimp can: Ollama cuts it to the window, so the model does not see its oldest part (the instructions and the tools' definitions, when they are what does not fit); raise the context size for this model (Settings), start a new session, or attach less", r.numCtx)
		} else {
			r.under = min(3, max(r.under, r.agent.Shortfall.Factor(), 1)*1.5)
			r.agent.Shortfall.raise(r.under)
			warning = fmt.Sprintf("Ollama counted more tokens in the prompt than fit the context window (num_ctx %d) and refused it rather than drop its oldest part unseen: Shrimp compacted the conversation further and asked again", r.numCtx)
		}
		if !r.emit(TypeError, Error{Kind: KindWarning, Message: warning}) {
			return reply, errStopped
		}
	}
}

// callModelOnce is one model turn's request (callModel); cutOK lets
// Ollama cut a prompt that does not fit instead of refusing it.
func (r *run) callModelOnce(ctx context.Context, msgs []api.Message, cutOK bool) (api.Message, error) {
	opts := map[string]any{}
	for k, v := range r.req.Options {
		opts[k] = v
	}
	if _, ok := opts["num_ctx"]; !ok {
		opts["num_ctx"] = r.agent.numCtx()
	}
	numCtx, _ := opts["num_ctx"].(int)
	r.numCtx = numCtx
	tools := r.agent.Tools.Specs()
	r.offered = len(tools) > 0
	// Said before fitting: a summary the fitting asks the model for waits
	// on the load as well.
	announced := false
	if l, ok := r.agent.Model.(Loader); ok {
		if loaded, must := l.Loading(ctx, r.req.Model, numCtx); must {
			if !r.emit(TypeModelLoading, ModelLoading{Model: r.req.Model, Loaded: loaded, NumCtx: numCtx}) {
				return api.Message{}, errStopped
			}
			announced = true
		}
	}
	if c := r.agent.Context; c != nil {
		// The fitter keeps an eighth of the room for the reply
		// (prompt.Fitter); a model that writes longer ones (a thinking
		// model's thinking) gets room for them: the room is made such
		// that its seven eighths and the longest reply (Ollama's count)
		// fill the context, down to half of it. Then it is made as much
		// smaller as the model's tokenizer counts more than the estimate.
		room := numCtx
		if r.longest > numCtx/8 {
			room = max(numCtx/2, (numCtx-r.longest)*8/7)
		}
		if under := max(r.under, r.agent.Shortfall.Factor()); under > 1 {
			room = int(float64(room) / under)
		}
		fitted, events, err := c.Fit(ctx, msgs, tools, numCtx, room)
		for _, e := range events {
			if !r.yieldEvent(e) {
				return api.Message{}, errStopped
			}
		}
		if err == nil {
			msgs = fitted
		}
	}
	r.inView(msgs)
	stream := true
	chatReq := &api.ChatRequest{Model: r.req.Model, Messages: msgs, Tools: tools, Stream: &stream, Options: opts}
	if !cutOK {
		refuse := false // a prompt that does not fit is refused, not cut unseen (callModel)
		chatReq.Truncate = &refuse
	}
	sent := sentTokens(chatReq)
	r.estimated = sent
	chatReq.Think = r.req.Think
	// A small model can repeat itself without end, and Ollama lets it run
	// on, shifting its context window as it fills: a reply longer than the
	// whole window no longer sees the request, so it is stopped there
	// (returning from the callback closes the request, which stops Ollama).
	limit := r.agent.MaxReply
	if limit == 0 {
		limit, _ = opts["num_ctx"].(int)
	}
	var (
		loadTime time.Duration // Ollama's, from the last chunk
		reply    = api.Message{Role: "assistant"}
		text     = newBuffer(r, TypeToken, r.agent.FlushInterval, r.agent.FlushSize)
		thinking = newBuffer(r, TypeThinking, r.agent.FlushInterval, r.agent.FlushSize)
		done     bool
		pieces   int
		cut      bool // Ollama ended the reply at its output limit
	)
	err := r.agent.Model.Chat(ctx, chatReq, func(resp api.ChatResponse) error {
		if resp.Message.Thinking != "" || resp.Message.Content != "" || len(resp.Message.ToolCalls) > 0 {
			if pieces += max(1, len(resp.Message.ToolCalls)); limit > 0 && pieces > limit {
				return errRunaway
			}
		}
		if resp.Message.Thinking != "" {
			reply.Thinking += resp.Message.Thinking
			if !thinking.add(resp.Message.Thinking) {
				return errStopped
			}
		}
		if resp.Message.Content != "" {
			if !thinking.flush() {
				return errStopped
			}
			reply.Content += resp.Message.Content
			if !text.add(resp.Message.Content) {
				return errStopped
			}
		}
		reply.ToolCalls = append(reply.ToolCalls, resp.Message.ToolCalls...)
		if resp.Done {
			done, cut = true, resp.DoneReason == "length"
			r.turnTokens = resp.EvalCount
			r.account(resp, sent)
			loadTime = resp.LoadDuration
		}
		return nil
	})
	if !thinking.flush() || !text.flush() || errors.Is(err, errStopped) {
		r.stopped = true
		return reply, errStopped
	}
	if errors.Is(err, errRunaway) {
		return reply, fmt.Errorf("the model wrote more than %d pieces in one reply without finishing, more than its context window holds, so the reply was stopped: small models sometimes repeat themselves without end; ask again, rephrase the request, raise the context size for this model (Settings) if it needs a longer answer, or try a larger model", limit)
	}
	if err != nil {
		return reply, err
	}
	if done && (announced || loadTime >= time.Second) {
		secs := math.Round(loadTime.Seconds()*10) / 10
		if !r.emit(TypeModelLoaded, ModelLoaded{Model: r.req.Model, Seconds: secs}) {
			return reply, errStopped
		}
	}
	if r.cut = cut; cut {
		r.emit(TypeError, Error{Kind: KindWarning, Message: "the model's reply stopped at its output limit (num_predict), so it may be cut short; ask for a shorter answer, or raise num_predict in the model's Modelfile"})
	}
	if !done {
		return reply, errors.New("the model's response stream ended before its final chunk; check that Ollama is still running, then ask again")
	}
	return reply, nil
}

// emptyNudge is what a model that ended its turn with neither an answer
// nor a tool call is told.
const emptyNudge = "Your last turn had no answer for me and no tool call. Answer my request now, or call a tool."

// sentTokens estimates a request's prompt: its message contents, tool-call
// JSON and tool definitions (internal/tokens).
func sentTokens(req *api.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += tokens.Count(m.Content)
		for _, tc := range m.ToolCalls {
			n += tokens.JSON(tc)
		}
	}
	if len(req.Tools) > 0 {
		n += tokens.JSON(req.Tools)
	}
	return n
}

// account adds a final chunk's counts to the run's usage, notes a prompt
// estimate that fell short, and warns when the prompt no longer fit the
// context window.
func (r *run) account(resp api.ChatResponse, sent int) {
	if sent > 0 && resp.PromptEvalCount > sent {
		r.under = max(r.under, min(3, float64(resp.PromptEvalCount)/float64(sent)))
		r.agent.Shortfall.raise(r.under)
	}
	u := &r.ended.Usage
	u.Calls++
	u.PromptTokens += resp.PromptEvalCount
	u.CompletionTokens += resp.EvalCount
	u.EvalMS += resp.EvalDuration.Milliseconds()
	u.PromptMS += resp.PromptEvalDuration.Milliseconds()
	numCtx := r.agent.numCtx()
	if v, ok := r.req.Options["num_ctx"].(int); ok {
		numCtx = v
	}
	u.LastPrompt, u.NumCtx = resp.PromptEvalCount, numCtx
	// Ollama keeps only the last num_ctx tokens of a prompt that does not
	// fit: more was sent than the context holds, it read no more than the
	// context holds, and clearly fewer than were sent (the estimate leans
	// high on purpose, internal/tokens).
	r.longest = max(r.longest, resp.EvalCount)
	switch {
	case resp.PromptEvalCount > 0 && sent > numCtx && resp.PromptEvalCount <= numCtx && resp.PromptEvalCount < sent*3/4:
		r.emit(TypeError, Error{Kind: KindWarning, Message: fmt.Sprintf(
			"the prompt was cut by Ollama: about %d tokens were sent, the model read %d (num_ctx %d), so it did not see the oldest part; start a new session or raise num_ctx for this model",
			sent, resp.PromptEvalCount, numCtx)})
	case resp.PromptEvalCount > 0 && resp.PromptEvalCount+resp.EvalCount > numCtx && !r.shifted:
		// Ollama shifts a full context window mid-reply (keeping its
		// first num_keep tokens, 4 unless set, and dropping half of the
		// rest) and says nothing. Known for sure only when it counted the
		// whole prompt (it counts fewer when it reuses its cache).
		r.shifted = true
		r.emit(TypeError, Error{Kind: KindWarning, Message: fmt.Sprintf(
			"the model's reply outgrew the context window (%d tokens of prompt and %d of reply, num_ctx %d): Ollama dropped the oldest part of the conversation mid-reply, its instructions and tools' definitions included, so the model may have lost track of them; Shrimp keeps more room for its replies from now on in this request; raise the context size for this model (Settings) if its replies are long",
			resp.PromptEvalCount, resp.EvalCount, numCtx)})
	}
}

// callTool checks, approves and runs one call. A non-nil stop error ends
// the run (a guard tripped).
func (r *run) callTool(ctx context.Context, tc api.ToolCall) (res ToolResult, stop error) {
	// Ollama writes & < > as \u0026 \u003c \u003e: the call is kept, shown
	// and asked about as the model wrote it ("a && b > c").
	args := json.RawMessage(jsonplain.Unescaped([]byte(tc.Function.Arguments.String())))
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	call := ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args, TurnTokens: r.turnTokens}
	r.turnTokens = 0 // counted once, on the turn's first call
	if call.ID == "" {
		call.ID = fmt.Sprintf("call_%d_%d", r.ended.Turns, r.ended.ToolCalls)
	}
	r.ended.ToolCalls++
	res = ToolResult{ID: call.ID, Name: call.Name}
	if !r.emit(TypeToolCall, call) {
		return res, nil
	}

	key := callKeyOf(call.Name, args)
	if err := r.agent.Tools.Check(call.Name, args); err != nil {
		r.didNotRun()
		r.malformed++
		r.ended.Malformed++
		res.Error, res.Malformed = err.Error(), true
		r.emit(TypeToolResult, res)
		if r.malformed >= 3 {
			return res, fmt.Errorf("the model made three malformed tool calls in a row (last: %v), so the run was stopped; try a model with better tool support", err)
		}
		return res, nil
	}
	r.malformed = 0

	// A reply that holds the same call more than once (Gemma 4 has been
	// seen to repeat one in a reply nine times: lmstudio-bug-tracker
	// #1756) has it run once: a command or a write done twice is done
	// twice. The model is told, and may call it again after reading its
	// result.
	if first, twice := r.inReply[key]; twice {
		res.Error, res.Repeated = fmt.Sprintf("not run: the same call as %s just before it in this reply (the same tool, the same arguments), which ran; a reply's calls run once each: to run it again, call it again after reading that result", first), true
		r.ended.Repeated++
		r.emit(TypeToolResult, res)
		return res, nil
	}
	if r.inReply == nil {
		r.inReply = map[uint64]string{}
	}
	r.inReply[key] = call.ID

	if key == r.lastCall {
		r.repeats++
	} else {
		r.lastCall, r.repeats = key, 1
	}
	// A call whose result changed the last time (a status polled while
	// a build runs) may go on; one that did not run, or gave what it
	// gave before, is not run a third time.
	if r.repeats >= 3 && !r.changed(key) {
		res.Error = "not run: same call three times in a row"
		r.emit(TypeToolResult, res)
		return res, fmt.Errorf("the model called %s with the same arguments three times in a row, so the run was stopped; rephrase the request or try another model", call.Name)
	}

	standing, seen := false, false
	if ap := r.agent.Approver; ap != nil {
		d, err := safeApprove(ctx, ap, call)
		standing, seen = d.Standing, d.Seen
		if err != nil || !d.Allow {
			reason := d.Reason
			if err != nil {
				reason = "the approval could not be obtained: " + err.Error()
			}
			if reason == "" {
				reason = "the user did not allow it"
			}
			r.didNotRun()
			r.ended.Denied++
			res.Denied = true
			res.Error = "denied: " + reason
			r.emit(TypeToolResult, res)
			return res, nil
		}
	}

	start := time.Now()
	cctx := WithSeen(WithStanding(context.WithValue(ctx, callKey{}, call.ID), standing), seen)
	var shown attach.Shown
	if !r.req.Blind {
		cctx = attach.WithShown(cctx, &shown) // a picture fs.read reads, for a model that can see
	}
	out, err := safeRun(cctx, r.agent.Tools, call.Name, args)
	res.DurationMS = time.Since(start).Milliseconds()
	var ending *EndRun // the call is recorded, then the run ends
	if errors.As(err, &ending) {
		err = ending.Err
	}
	if imgs := shown.Close(); err == nil {
		res.Images = imgs // a failed call shows nothing
	} else {
		res.Error = err.Error()
	}
	if limit := r.agent.maxOutput(); len(out) > limit {
		// The start and the end are shown (a failed build says why in its
		// last lines), the middle is kept to be read on.
		head := out[:textcut.Before(out, limit*2/5)]
		from := textcut.After(out, len(out)-(limit-len(head)))
		cut := from - len(head)
		// How to read on goes last: a prompt cut to fit keeps a message's
		// ends.
		mark := fmt.Sprintf("\n[… %d more bytes not shown here; the output's end follows …]\n", cut)
		end := ""
		if o := r.agent.Outputs; o != nil {
			if h, err := o.Keep(ctx, call.Name, out); err == nil {
				end = fmt.Sprintf("\n[bytes %d–%d of %d were not shown: call tool.output.read with handle %s and offset %d to read them]", len(head), from, len(out), h, len(head))
				res.Handle = h
			}
		}
		out = head + mark + out[from:] + end
		res.Truncated = cut
	}
	res.Output = out
	circling := r.repeated(key, &res)
	r.emit(TypeToolResult, res)
	if ending != nil {
		return res, errors.New(ending.Reason)
	}
	return res, circling
}

func safeApprove(ctx context.Context, ap Approver, call ToolCall) (d Decision, err error) {
	defer func() {
		if p := recover(); p != nil {
			d, err = Decision{}, fmt.Errorf("approval gate panicked: %v", p)
		}
	}()
	return ap.Approve(ctx, call)
}

// callKey carries the ID of the call a tool runs for.
type callKey struct{}

// CallID is the ID of the call a tool's Run was given ctx for ("" when it
// runs outside a call): what hooks and logs name the call by.
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callKey{}).(string)
	return id
}

// standingKey carries whether a call was allowed by a standing answer.
type standingKey struct{}

// WithStanding returns ctx saying whether its call was allowed by a
// standing answer (Decision.Standing), as the loop gives a tool's Run.
func WithStanding(ctx context.Context, standing bool) context.Context {
	return context.WithValue(ctx, standingKey{}, standing)
}

// Standing reports whether the call a tool's Run was given ctx for was
// allowed by a standing answer (Decision.Standing): not asked about.
func Standing(ctx context.Context) bool {
	s, _ := ctx.Value(standingKey{}).(bool)
	return s
}

// seenKey carries whether the user was shown a call and allowed it.
type seenKey struct{}

// WithSeen returns ctx saying whether the user was shown its call and
// allowed it (Decision.Seen), as the loop gives a tool's Run.
func WithSeen(ctx context.Context, seen bool) context.Context {
	return context.WithValue(ctx, seenKey{}, seen)
}

// Seen reports whether the user was shown the call a tool's Run was
// given ctx for, and allowed it: not allowed by a stored rule or the
// approval mode without a look.
func Seen(ctx context.Context) bool {
	s, _ := ctx.Value(seenKey{}).(bool)
	return s
}

// StopGrace is how long a tool may take to return after its run was
// cancelled; past it the loop goes on without it, so a tool that ignores
// cancellation cannot hold a run (or the process) open.
const StopGrace = time.Second

// safeRun runs a tool on its own goroutine, recovering its panic, and
// returns at most StopGrace after ctx ends whether or not the tool did.
func safeRun(ctx context.Context, tools Tools, name string, args json.RawMessage) (string, error) {
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{"", fmt.Errorf("tool %s crashed: %v", name, p)}
			}
		}()
		out, err := tools.Run(ctx, name, args)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
	}
	t := time.NewTimer(StopGrace)
	defer t.Stop()
	select {
	case r := <-done:
		return r.out, r.err
	case <-t.C:
		return "", fmt.Errorf("cancelled: %s did not stop within %v and was left behind", name, StopGrace)
	}
}

// toolContent is what the model reads for a result.
func toolContent(res ToolResult) string {
	if res.Error == "" {
		return res.Output
	}
	if res.Output == "" {
		return "error: " + res.Error
	}
	return "error: " + res.Error + "\n" + res.Output
}

// fail ends the run with an error event.
func (r *run) fail(ctx context.Context, err error) {
	if r.stopped || errors.Is(err, errStopped) {
		return
	}
	if ctx.Err() != nil {
		r.end(StatusCancelled, ctx.Err())
		return
	}
	r.emit(TypeError, Error{Kind: KindError, Message: err.Error()})
	r.end(StatusError, err)
}

func (r *run) end(status string, err error) {
	r.ended.Status = status
	if err != nil {
		r.ended.Error = err.Error()
	}
	if !r.emit(TypeRunEnded, r.ended) {
		return
	}
	if err != nil {
		r.yield(Event{}, err)
	}
}
