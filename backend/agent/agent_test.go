package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/prompt"
)

// scripted is a hand-written fake model: it answers each call with the next
// list of chunks.
type scripted struct {
	turns [][]api.ChatResponse
	reqs  []*api.ChatRequest
}

func (s *scripted) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	s.reqs = append(s.reqs, req)
	if len(s.turns) == 0 {
		return errors.New("script exhausted")
	}
	turn := s.turns[0]
	s.turns = s.turns[1:]
	for _, c := range turn {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

func text(parts ...string) []api.ChatResponse {
	var out []api.ChatResponse
	for _, p := range parts {
		out = append(out, api.ChatResponse{Message: api.Message{Role: "assistant", Content: p}})
	}
	return append(out, api.ChatResponse{Done: true, Metrics: api.Metrics{PromptEvalCount: 10, EvalCount: len(parts)}})
}

func call(name, args string) []api.ChatResponse {
	a := api.NewToolCallFunctionArguments()
	_ = a.UnmarshalJSON([]byte(args))
	return []api.ChatResponse{
		{Message: api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{ID: "c1", Function: api.ToolCallFunction{Name: name, Arguments: a}}}}},
		{Done: true, Metrics: api.Metrics{PromptEvalCount: 5, EvalCount: 1}},
	}
}

// tools is a fake registry with a few behaviours.
type tools struct{}

func (tools) Specs() api.Tools {
	return api.Tools{{Type: "function", Function: api.ToolFunction{Name: "echo"}}}
}
func (tools) Check(name string, _ json.RawMessage) error {
	switch name {
	case "echo", "boom", "big", "fail":
		return nil
	}
	return errors.New("unknown tool; available tools: echo")
}
func (tools) Run(_ context.Context, name string, args json.RawMessage) (string, error) {
	switch name {
	case "boom":
		panic("kaboom")
	case "big":
		return strings.Repeat("é", 19998) + "END\n", nil // 40,000 bytes
	case "fail":
		return "partial", errors.New("it failed")
	}
	return string(args), nil
}

func collect(t *testing.T, a *agent.Agent) ([]agent.Event, error) {
	t.Helper()
	var evs []agent.Event
	var last error
	for e, err := range a.Run(context.Background(), agent.Request{Model: "m", Text: "go"}) {
		if err != nil {
			last = err
			continue
		}
		evs = append(evs, e)
	}
	if evs[0].Type != agent.TypeRunStarted || evs[len(evs)-1].Type != agent.TypeRunEnded {
		t.Fatalf("stream %v does not start and end right", evs)
	}
	return evs, last
}

func find[T any](evs []agent.Event) []T {
	var out []T
	for _, e := range evs {
		if d, ok := e.Data.(T); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		turns    [][]api.ChatResponse
		status   string
		check    func(t *testing.T, evs []agent.Event)
		maxTurns int
	}{
		{"answer", [][]api.ChatResponse{text("Hi", " there")}, agent.StatusResponded, func(t *testing.T, evs []agent.Event) {
			if r := find[agent.Response](evs); r[0].Text != "Hi there" {
				t.Fatalf("response %q", r[0].Text)
			}
		}, 0},
		{"panicking tool", [][]api.ChatResponse{call("boom", `{}`), text("ok")}, agent.StatusResponded, func(t *testing.T, evs []agent.Event) {
			if r := find[agent.ToolResult](evs); !strings.Contains(r[0].Error, "crashed: kaboom") {
				t.Fatalf("result %+v", r[0])
			}
		}, 0},
		{"tool error keeps output", [][]api.ChatResponse{call("fail", `{}`), text("ok")}, agent.StatusResponded, func(t *testing.T, evs []agent.Event) {
			if r := find[agent.ToolResult](evs); r[0].Error != "it failed" || r[0].Output != "partial" {
				t.Fatalf("result %+v", r[0])
			}
		}, 0},
		{"output cut", [][]api.ChatResponse{call("big", `{}`), text("ok")}, agent.StatusResponded, func(t *testing.T, evs []agent.Event) {
			r := find[agent.ToolResult](evs)[0]
			// The start and the end are shown, in whole characters, with
			// the bytes between counted exactly.
			if r.Truncated < 40000-16384 || r.Truncated > 40000-16384+1 || !strings.Contains(r.Output, "more bytes not shown") ||
				!strings.HasPrefix(r.Output, "é") || !strings.Contains(r.Output, "ééEND\n") || !utf8.ValidString(r.Output) {
				t.Fatalf("truncated %d, tail %q", r.Truncated, r.Output[len(r.Output)-60:])
			}
			head, _, _ := strings.Cut(r.Output, "\n[…")
			_, tail, _ := strings.Cut(r.Output, "follows …]\n")
			tail, _, _ = strings.Cut(tail, "\n[bytes ") // how to read on, when the output was kept
			if len(head)+r.Truncated+len(tail) != 40000 || len(head)+len(tail) > 16384 {
				t.Fatalf("shown %d + %d bytes, cut %d", len(head), len(tail), r.Truncated)
			}
		}, 0},
		{"call kept as written", [][]api.ChatResponse{call("echo", `{"z":"make && ls > out <in","a":1}`), text("ok")}, agent.StatusResponded, func(t *testing.T, evs []agent.Event) {
			// Ollama's arguments escape & < > for HTML; the call the user
			// is asked about and sees has them as the model wrote them,
			// its keys in the model's order.
			if c := find[agent.ToolCall](evs); string(c[0].Arguments) != `{"z":"make && ls > out <in","a":1}` {
				t.Fatalf("arguments %s", c[0].Arguments)
			}
		}, 0},
		{"turn limit", [][]api.ChatResponse{call("echo", `{"a":1}`), call("echo", `{"a":2}`), call("echo", `{"a":3}`)}, agent.StatusError, func(t *testing.T, evs []agent.Event) {
			if e := find[agent.Error](evs); !strings.Contains(e[0].Message, "after 2 model turns") {
				t.Fatalf("error %+v", e)
			}
		}, 2},
		{"no done chunk", [][]api.ChatResponse{{{Message: api.Message{Content: "Hel"}}}}, agent.StatusError, func(t *testing.T, evs []agent.Event) {
			if e := find[agent.Error](evs); !strings.Contains(e[0].Message, "ended before its final chunk") {
				t.Fatalf("error %+v", e)
			}
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &agent.Agent{Model: &scripted{turns: tt.turns}, Tools: tools{}, MaxTurns: tt.maxTurns}
			evs, _ := collect(t, a)
			if got := find[agent.RunEnded](evs)[0].Status; got != tt.status {
				t.Fatalf("status %s, want %s", got, tt.status)
			}
			tt.check(t, evs)
		})
	}
}

// thought is a turn with thinking and no answer or tool call, as
// gpt-oss and qwen3 sometimes end one.
func thought(done string) []api.ChatResponse {
	return []api.ChatResponse{
		{Message: api.Message{Role: "assistant", Thinking: "The user wants a summary. I should answer."}},
		{Message: api.Message{Role: "assistant", Content: "\n\n"}},
		{Done: true, DoneReason: done, Metrics: api.Metrics{PromptEvalCount: 10, EvalCount: 12}},
	}
}

// TestEmptyReplies: a turn that ends with thinking alone is asked once
// more to answer; a second one ends the run with what there is, and a
// reply cut at the output limit is not asked again (it would be cut
// again).
func TestEmptyReplies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		turns    [][]api.ChatResponse
		calls    int
		answer   string
		warnings []string
	}{
		{"answers when asked", [][]api.ChatResponse{thought("stop"), text("Here it is.")}, 2, "Here it is.", []string{"asked once more"}},
		{"after a tool call", [][]api.ChatResponse{call("echo", `{"text":"x"}`), thought("stop"), text("Done.")}, 3, "Done.", []string{"asked once more"}},
		{"empty twice", [][]api.ChatResponse{thought("stop"), thought("stop")}, 2, "\n\n", []string{"asked once more", "without an answer again"}},
		{"cut", [][]api.ChatResponse{thought("length")}, 1, "\n\n", []string{"output limit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &scripted{turns: tc.turns}
			evs, err := collect(t, &agent.Agent{Model: m, Tools: tools{}})
			if err != nil {
				t.Fatal(err)
			}
			var warnings []string
			for _, e := range find[agent.Error](evs) {
				warnings = append(warnings, e.Message)
			}
			r := find[agent.Response](evs)
			if len(m.reqs) != tc.calls || len(r) != 1 || r[0].Text != tc.answer || len(warnings) != len(tc.warnings) {
				t.Fatalf("%d calls, responses %+v, warnings %q", len(m.reqs), r, warnings)
			}
			for i, w := range tc.warnings {
				if !strings.Contains(warnings[i], w) {
					t.Fatalf("warning %d: %q, want %q", i, warnings[i], w)
				}
			}
			if end := find[agent.RunEnded](evs); end[len(end)-1].Status != agent.StatusResponded {
				t.Fatalf("ended %+v", end)
			}
			if tc.calls > 1 {
				// The model was asked, as the user, after its empty turn.
				msgs := m.reqs[len(m.reqs)-1].Messages
				if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.Contains(last.Content, "no answer for me") {
					t.Fatalf("last message %+v", last)
				}
			}
		})
	}
}

func TestTruncationIsDetected(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		promptEval int
		numCtx     int
		want       bool
	}{
		{"fits", "short", 30, 2048, false},
		{"sent more than num_ctx and fewer were read", strings.Repeat("x", 40000), 2048, 2048, true},
		{"sent more but all read (a bigger real context)", strings.Repeat("x", 40000), 10100, 2048, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := []api.ChatResponse{{Message: api.Message{Content: "ok"}}, {Done: true, Metrics: api.Metrics{PromptEvalCount: tt.promptEval, EvalCount: 1}}}
			a := &agent.Agent{Model: &scripted{turns: [][]api.ChatResponse{turn}}, Tools: tools{}, NumCtx: tt.numCtx}
			var warned bool
			for e := range a.Run(context.Background(), agent.Request{Model: "m", Text: tt.text}) {
				if d, ok := e.Data.(agent.Error); ok && d.Kind == agent.KindWarning && strings.Contains(d.Message, "cut by Ollama") {
					warned = true
				}
			}
			if warned != tt.want {
				t.Fatalf("warned %v, want %v", warned, tt.want)
			}
		})
	}
}

// TestLongReplies: a reply that outgrows the limit (by default the turn's
// num_ctx: a small model repeating itself, which Ollama lets run on) is
// stopped with an error saying what to do; one Ollama ended at its output
// limit (done_reason "length") is kept, with a warning that it may be cut.
func TestLongReplies(t *testing.T) {
	repeat := func(n int, done *api.ChatResponse) []api.ChatResponse {
		var out []api.ChatResponse
		for range n {
			out = append(out, api.ChatResponse{Message: api.Message{Role: "assistant", Content: "and again "}})
		}
		if done != nil {
			out = append(out, *done)
		}
		return out
	}
	tests := []struct {
		name     string
		agent    agent.Agent
		turn     []api.ChatResponse
		status   string
		errText  string // in the run's error ("" for none)
		warnText string // in a warning ("" for none)
	}{
		{"within num_ctx", agent.Agent{NumCtx: 64}, repeat(64, &api.ChatResponse{Done: true}), agent.StatusResponded, "", ""},
		{"past num_ctx, never done", agent.Agent{NumCtx: 64}, repeat(10_000, nil), agent.StatusError, "more than 64 pieces in one reply", ""},
		{"past MaxReply", agent.Agent{NumCtx: 8192, MaxReply: 100}, repeat(101, &api.ChatResponse{Done: true}), agent.StatusError, "try a larger model", ""},
		{"thinking counts too", agent.Agent{NumCtx: 8192, MaxReply: 10}, append([]api.ChatResponse{{Message: api.Message{Thinking: "hmm"}}}, repeat(10, &api.ChatResponse{Done: true})...), agent.StatusError, "more than 10 pieces", ""},
		{"ended at num_predict", agent.Agent{NumCtx: 8192}, repeat(3, &api.ChatResponse{Done: true, DoneReason: "length"}), agent.StatusResponded, "", "output limit (num_predict)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := &scripted{turns: [][]api.ChatResponse{tt.turn}}
			a := tt.agent
			a.Model, a.Tools = model, tools{}
			evs, _ := collect(t, &a)
			ended := find[agent.RunEnded](evs)
			if len(ended) != 1 || ended[0].Status != tt.status {
				t.Fatalf("run ended %+v, want status %q", ended, tt.status)
			}
			var errs, warns []string
			for _, e := range find[agent.Error](evs) {
				if e.Kind == agent.KindWarning {
					warns = append(warns, e.Message)
				} else {
					errs = append(errs, e.Message)
				}
			}
			if got := strings.Join(errs, "|"); tt.errText == "" && got != "" || !strings.Contains(got, tt.errText) {
				t.Errorf("errors %q, want one with %q", got, tt.errText)
			}
			if got := strings.Join(warns, "|"); tt.warnText == "" && got != "" || !strings.Contains(got, tt.warnText) {
				t.Errorf("warnings %q, want one with %q", got, tt.warnText)
			}
			if len(model.turns) != 0 {
				t.Errorf("%d model turns left", len(model.turns))
			}
		})
	}
}

// TestManyCallsInOneReply: of a reply asking for more tool calls than
// MaxCalls, the first MaxCalls run, the rest are dropped with a warning,
// and the model is shown the reply as run; a stream of calls without end
// counts against MaxReply like text.
func TestManyCallsInOneReply(t *testing.T) {
	calls := func(n int) []api.ChatResponse {
		var tcs []api.ToolCall
		for i := range n {
			a := api.NewToolCallFunctionArguments()
			a.Set("i", i)
			tcs = append(tcs, api.ToolCall{ID: fmt.Sprint("c", i), Function: api.ToolCallFunction{Name: "echo", Arguments: a}})
		}
		return []api.ChatResponse{{Message: api.Message{Role: "assistant", ToolCalls: tcs}}, {Done: true}}
	}
	model := &scripted{turns: [][]api.ChatResponse{calls(25), text("done")}}
	a := &agent.Agent{Model: model, Tools: tools{}, MaxCalls: 20}
	evs, _ := collect(t, a)
	if ended := find[agent.RunEnded](evs); len(ended) != 1 || ended[0].Status != agent.StatusResponded {
		t.Fatalf("run ended %+v", ended)
	}
	if n := len(find[agent.ToolCall](evs)); n != 20 {
		t.Errorf("%d calls run, want 20", n)
	}
	warned := false
	for _, e := range find[agent.Error](evs) {
		warned = warned || e.Kind == agent.KindWarning && strings.Contains(e.Message, "asked for 25 tool calls in one reply; the first 20 were run")
	}
	if !warned {
		t.Errorf("no warning about the dropped calls: %+v", find[agent.Error](evs))
	}
	second := model.reqs[1].Messages
	var shown, results int
	for _, m := range second {
		shown += len(m.ToolCalls)
		if m.Role == "tool" {
			results++
		}
	}
	if shown != 20 || results != 20 {
		t.Errorf("the model was shown %d calls and %d results, want 20 and 20", shown, results)
	}

	// Calls streamed one chunk each, without end, stop at MaxReply.
	var endless []api.ChatResponse
	for range 50 {
		endless = append(endless, calls(1)[0])
	}
	a = &agent.Agent{Model: &scripted{turns: [][]api.ChatResponse{endless}}, Tools: tools{}, MaxReply: 30}
	evs, _ = collect(t, a)
	if ended := find[agent.RunEnded](evs); len(ended) != 1 || ended[0].Status != agent.StatusError || !strings.Contains(ended[0].Error, "more than 30 pieces") {
		t.Fatalf("run ended %+v, want an error about the reply's length", ended)
	}
}

func TestStoppingTheRangeCancels(t *testing.T) {
	m := &scripted{turns: [][]api.ChatResponse{text("a", "b", "c")}}
	a := &agent.Agent{Model: m, Tools: tools{}, FlushSize: 1}
	n := 0
	for e := range a.Run(context.Background(), agent.Request{Model: "m", Text: "go"}) {
		n++
		if e.Type == agent.TypeToken {
			break
		}
	}
	if n != 2 {
		t.Fatalf("got %d events after stopping", n)
	}
}

func TestTokensAreBatched(t *testing.T) {
	parts := make([]string, 100)
	for i := range parts {
		parts[i] = "x"
	}
	a := &agent.Agent{Model: &scripted{turns: [][]api.ChatResponse{text(parts...)}}, Tools: tools{}, FlushSize: 30}
	evs, _ := collect(t, a)
	toks := find[agent.Delta](evs)
	if len(toks) < 2 || len(toks) > 10 {
		t.Fatalf("%d token events for 100 chunks", len(toks))
	}
}

// BenchmarkLoopTurn is the harness's own time per model turn with a
// zero-latency model: one tool call then an answer (two turns per op).
func BenchmarkLoopTurn(b *testing.B) {
	b.ReportAllocs()
	per := make([]time.Duration, 0, b.N)
	for range b.N {
		a := &agent.Agent{Model: &scripted{turns: [][]api.ChatResponse{call("echo", `{"a":1}`), text("done")}}, Tools: tools{}}
		start := time.Now()
		for range a.Run(context.Background(), agent.Request{Model: "m", Text: "go"}) {
		}
		per = append(per, time.Since(start)/2)
	}
	slices.Sort(per)
	b.ReportMetric(float64(per[len(per)/2].Nanoseconds()), "p50-ns/turn")
	b.ReportMetric(float64(per[len(per)*99/100].Nanoseconds()), "p99-ns/turn")
}

// BenchmarkLoopTurnLongSession is BenchmarkLoopTurn in a session whose
// history holds 200 tool results of 8 KiB each (a long day's session, as
// the fitter keeps it): what the loop's own guards cost per turn when
// the prompt is long.
func BenchmarkLoopTurnLongSession(b *testing.B) {
	var history []api.Message
	for i := range 200 {
		id := fmt.Sprint("old", i)
		history = append(history,
			api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{ID: id, Function: api.ToolCallFunction{Name: "echo"}}}},
			api.Message{Role: "tool", ToolCallID: id, ToolName: "echo", Content: strings.Repeat(fmt.Sprint(i, " a line of output\n"), 8192/20)})
	}
	b.ReportAllocs()
	per := make([]time.Duration, 0, b.N)
	for range b.N {
		a := &agent.Agent{Model: &scripted{turns: [][]api.ChatResponse{call("echo", `{"a":1}`), text("done")}}, Tools: tools{}}
		start := time.Now()
		for range a.Run(context.Background(), agent.Request{Model: "m", Text: "go", History: history}) {
		}
		per = append(per, time.Since(start)/2)
	}
	slices.Sort(per)
	b.ReportMetric(float64(per[len(per)/2].Nanoseconds()), "p50-ns/turn")
	b.ReportMetric(float64(per[len(per)*99/100].Nanoseconds()), "p99-ns/turn")
}

// stuck is a registry whose only tool ignores cancellation and never
// returns (a read on a FIFO with no writer, a call to a hung server).
type stuck struct{ started chan struct{} }

func (stuck) Specs() api.Tools                    { return nil }
func (stuck) Check(string, json.RawMessage) error { return nil }
func (s stuck) Run(context.Context, string, json.RawMessage) (string, error) {
	close(s.started)
	select {}
}

// TestCancelledRunLeavesAStuckTool: stopping a run whose tool ignores the
// cancellation still ends it, as cancelled, with agent:run-ended last.
func TestCancelledRunLeavesAStuckTool(t *testing.T) {
	tl := stuck{started: make(chan struct{})}
	a := &agent.Agent{Model: &scripted{turns: [][]api.ChatResponse{call("hang", `{}`)}}, Tools: tl}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-tl.started; cancel() }()
	done := make(chan []agent.Event)
	go func() {
		var evs []agent.Event
		for e, err := range a.Run(ctx, agent.Request{Model: "m", Text: "go"}) {
			if err == nil {
				evs = append(evs, e)
			}
		}
		done <- evs
	}()
	select {
	case evs := <-done:
		ended := find[agent.RunEnded](evs)
		if len(ended) != 1 || ended[0].Status != agent.StatusCancelled || evs[len(evs)-1].Type != agent.TypeRunEnded {
			t.Fatalf("run ended %+v", ended)
		}
		if r := find[agent.ToolResult](evs); len(r) != 1 || !strings.Contains(r[0].Error, "did not stop") {
			t.Fatalf("tool result %+v", r)
		}
	case <-time.After(time.Minute):
		t.Fatal("a tool that ignores cancellation held the run open")
	}
}

// ctxRecorder is a Context that records the room each fit was given, and
// the windows it was told the call asks for.
type ctxRecorder struct{ got, windows []int }

func (c *ctxRecorder) Fit(_ context.Context, msgs []api.Message, _ api.Tools, numCtx, room int) ([]api.Message, []agent.Event, error) {
	c.got = append(c.got, room)
	c.windows = append(c.windows, numCtx)
	return msgs, nil, nil
}

// TestShortEstimateShrinksTheFit: when Ollama counts more prompt tokens
// than were estimated (a tokenizer that makes more of this text), the
// run's next prompts, and the model's next runs', are fitted to a context
// smaller by that much; a count below the estimate (a cached prompt)
// changes nothing.
func TestShortEstimateShrinksTheFit(t *testing.T) {
	for _, tt := range []struct {
		name   string
		counts []int // Ollama's prompt_eval_count per turn; 0: twice the estimate
		want   func(first, second int) bool
	}{
		{"counted more", []int{0, 5}, func(a, b int) bool { return b < a*6/10 && b > a*4/10 }},
		{"counted less", []int{1, 5}, func(a, b int) bool { return b == a }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			turn1 := call("echo", `{"text":"`+strings.Repeat("word ", 200)+`"}`)
			turn2 := text("done")
			fit := &ctxRecorder{}
			m := &scripted{turns: [][]api.ChatResponse{turn1, turn2}}
			sf := &agent.Shortfall{}
			a := &agent.Agent{Model: m, Tools: tools{}, NumCtx: 8192, Context: fit, Shortfall: sf}
			// The first turn's count: twice what Shrimp estimates, or 1.
			first := true
			a.Model = modelFunc(func(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
				return m.Chat(ctx, req, func(resp api.ChatResponse) error {
					if resp.Done && first {
						first = false
						est := prompt.Estimate(req.Messages, req.Tools)
						if resp.PromptEvalCount = tt.counts[0]; resp.PromptEvalCount == 0 {
							resp.PromptEvalCount = 2 * est
						}
					}
					return fn(resp)
				})
			})
			collect(t, a)
			if len(fit.got) != 2 || !tt.want(fit.got[0], fit.got[1]) {
				t.Fatalf("fitted to %v", fit.got)
			}
			// The model's next run starts where this one ended.
			m.turns = [][]api.ChatResponse{text("again")}
			collect(t, a)
			if len(fit.got) != 3 || fit.got[2] != fit.got[1] {
				t.Fatalf("the next run fitted to %v", fit.got)
			}
			// The window asked of Ollama stays the run's: a summary the
			// fitting asks for at another size would have Ollama load the
			// model again, twice.
			if fmt.Sprint(fit.windows) != "[8192 8192 8192]" {
				t.Errorf("windows told to the fitting: %v", fit.windows)
			}
		})
	}
}

// modelFunc is a Model from a function.
type modelFunc func(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error

func (f modelFunc) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	return f(ctx, req, fn)
}

// compactor is a Context that says it compacted (a warning), as a fitting
// that summarised would, after its summary call.
type compactor struct{}

func (compactor) Fit(_ context.Context, msgs []api.Message, _ api.Tools, _, _ int) ([]api.Message, []agent.Event, error) {
	return msgs, []agent.Event{{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: "summarised"}}}, nil
}

// loading is a scripted model that says Ollama must load it before its
// first turn.
type loading struct {
	scripted
	asked []int // num_ctx of each Loading question
}

func (l *loading) Loading(_ context.Context, model string, numCtx int) (int, bool) {
	l.asked = append(l.asked, numCtx)
	return 0, len(l.asked) == 1
}

// TestModelLoading: a model call that will wait for Ollama to load the
// model is announced before it, with the context size asked for, and its
// load time said after it; a load nobody announced is said when it took a
// second or more (the turn's wait explained), not when it was brief.
func TestModelLoading(t *testing.T) {
	first := call("echo", `{"text":"x"}`)
	first[len(first)-1].LoadDuration = 2345 * time.Millisecond
	second := text("done")
	second[len(second)-1].LoadDuration = 1500 * time.Millisecond // unloaded while the tool ran
	m := &loading{scripted: scripted{turns: [][]api.ChatResponse{first, second}}}
	evs, err := collect(t, &agent.Agent{Model: m, Tools: tools{}, NumCtx: 8192})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []agent.Type
	for _, e := range evs {
		kinds = append(kinds, e.Type)
	}
	if kinds[1] != agent.TypeModelLoading || kinds[2] != agent.TypeToolCall && kinds[2] != agent.TypeModelLoaded {
		t.Fatalf("events %v: want the load announced before the first call", kinds)
	}
	if got := find[agent.ModelLoading](evs); len(got) != 1 || got[0] != (agent.ModelLoading{Model: "m", NumCtx: 8192}) {
		t.Errorf("announced: %+v", got)
	}
	if got := find[agent.ModelLoaded](evs); len(got) != 2 || got[0].Seconds != 2.3 || got[1].Seconds != 1.5 {
		t.Errorf("loaded: %+v", got)
	}
	if len(m.asked) != 2 || m.asked[0] != 8192 {
		t.Errorf("asked before each turn with num_ctx: %v", m.asked)
	}

	// The announcement comes before the context's fitting, whose summary
	// call waits on the load as well.
	m = &loading{scripted: scripted{turns: [][]api.ChatResponse{text("done")}}}
	evs, err = collect(t, &agent.Agent{Model: m, Tools: tools{}, NumCtx: 8192, Context: compactor{}})
	if err != nil {
		t.Fatal(err)
	}
	at := func(want agent.Type) int {
		return slices.IndexFunc(evs, func(e agent.Event) bool { return e.Type == want })
	}
	if loadingAt, fitAt := at(agent.TypeModelLoading), at(agent.TypeError); loadingAt < 0 || fitAt < 0 || loadingAt > fitAt {
		t.Errorf("loading said at %d, the fitting's event at %d: want the load first", loadingAt, fitAt)
	}

	// Brief unannounced loads are not said.
	quick := text("hi")
	quick[len(quick)-1].LoadDuration = 300 * time.Millisecond
	plain := &scripted{turns: [][]api.ChatResponse{quick}}
	evs, _ = collect(t, &agent.Agent{Model: plain, Tools: tools{}})
	if got := find[agent.ModelLoaded](evs); len(got) != 0 {
		t.Errorf("a 0.3 s load said: %+v", got)
	}
}

// preparing is tools that wait before the first model call (MCP servers
// starting): it says so, then waits until released or ctx ends.
type preparing struct {
	tools
	release chan struct{}
	asked   chan struct{}
}

func (p preparing) Prepare(ctx context.Context, say func(agent.Event) bool) {
	say(agent.Event{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindWarning, Message: "waiting for a server"}})
	close(p.asked)
	select {
	case <-p.release:
	case <-ctx.Done():
	}
}

// TestPrepare: tools that prepare are waited for after the request's own
// events and before the first model call, whose turn sees it through;
// stopping the run while they wait ends it as cancelled, at once.
func TestPrepare(t *testing.T) {
	t.Run("waited for", func(t *testing.T) {
		p := preparing{release: make(chan struct{}), asked: make(chan struct{})}
		m := &scripted{turns: [][]api.ChatResponse{text("done")}}
		go func() { <-p.asked; close(p.release) }()
		var types []agent.Type
		for e, err := range (&agent.Agent{Model: m, Tools: p}).Run(context.Background(), agent.Request{Model: "m", Text: "go", Events: []agent.Event{{Type: "test:prep"}}}) {
			if err != nil {
				t.Fatal(err)
			}
			types = append(types, e.Type)
		}
		want := []agent.Type{agent.TypeRunStarted, "test:prep", agent.TypeError}
		if len(types) < 3 || !slices.Equal(types[:3], want) || len(m.reqs) != 1 {
			t.Fatalf("events %v after %d model calls, want %v first and one call", types, len(m.reqs), want)
		}
	})
	t.Run("stopped while waiting", func(t *testing.T) {
		p := preparing{release: make(chan struct{}), asked: make(chan struct{})} // never released
		m := &scripted{turns: [][]api.ChatResponse{text("done")}}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-p.asked; cancel() }()
		var ended agent.RunEnded
		for e := range (&agent.Agent{Model: m, Tools: p}).Run(ctx, agent.Request{Model: "m", Text: "go"}) {
			if d, ok := e.Data.(agent.RunEnded); ok {
				ended = d
			}
		}
		if ended.Status != agent.StatusCancelled || len(m.reqs) != 0 {
			t.Fatalf("ended %q after %d model calls, want cancelled before any", ended.Status, len(m.reqs))
		}
	})
}

// finisher sends the model back while it has things to say, one a time.
type finisher struct {
	says    []string
	notes   []string
	panics  bool
	answers []string
	counts  []int
	calls   []int
}

func (f *finisher) Finish(_ context.Context, fin agent.Finishing) (string, []string) {
	if f.panics {
		panic("the check blew up")
	}
	f.answers, f.counts, f.calls = append(f.answers, fin.Answer), append(f.counts, fin.SentBack), append(f.calls, fin.ToolCalls)
	if len(f.says) == 0 {
		return "", f.notes
	}
	more := f.says[0]
	f.says = f.says[1:]
	return more, nil
}

// TestFinisher: a check at the answer sends the model back with what it
// says, as a user message after the answer; each answer is a response
// event; the run is sent back at most MaxSentBack times and never past
// the turn limit; a check that crashes or only notes lets the run end.
func TestFinisher(t *testing.T) {
	always := slices.Repeat([]string{"the tests fail"}, 20)
	for _, tc := range []struct {
		name      string
		f         *finisher
		turns     [][]api.ChatResponse
		maxTurns  int
		responses int
		sentBack  int
		warning   string
	}{
		{"satisfied", &finisher{}, [][]api.ChatResponse{text("done")}, 0, 1, 0, ""},
		{"sent back once", &finisher{says: []string{"[check] go test fails: TestX"}}, [][]api.ChatResponse{text("done"), call("echo", `{"fix":1}`), text("fixed")}, 0, 2, 1, ""},
		{"note", &finisher{notes: []string{"hook x failed"}}, [][]api.ChatResponse{text("done")}, 0, 1, 0, "hook x failed"},
		{"crash", &finisher{panics: true}, [][]api.ChatResponse{text("done")}, 0, 1, 0, "crashed (the check blew up)"},
		{"cap", &finisher{says: always}, slices.Repeat([][]api.ChatResponse{text("done")}, agent.MaxSentBack+1), 0, agent.MaxSentBack + 1, agent.MaxSentBack, "after sending it back 8 times, the most one request may be; the run ends here (ask again, or see to it yourself): the tests fail"},
		{"turn limit", &finisher{says: always}, slices.Repeat([][]api.ChatResponse{text("done")}, 3), 3, 3, 2, "has used its 3 turns, so it was not sent back (ask again, or raise the turn limit: " + agent.RaiseTurns + "): the tests fail"},
		{"satisfied at the turn limit", &finisher{says: []string{"the tests fail"}}, [][]api.ChatResponse{text("done"), text("fixed")}, 2, 2, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &scripted{turns: tc.turns}
			evs, err := collect(t, &agent.Agent{Model: m, Tools: tools{}, Finisher: tc.f, MaxTurns: tc.maxTurns})
			if err != nil {
				t.Fatal(err)
			}
			if end := find[agent.RunEnded](evs)[0]; end.Status != agent.StatusResponded {
				t.Fatalf("ended %+v", end)
			}
			sent := find[agent.SentBack](evs)
			if n := len(find[agent.Response](evs)); n != tc.responses || len(sent) != tc.sentBack {
				t.Fatalf("%d responses, %d sent back; want %d, %d", n, len(sent), tc.responses, tc.sentBack)
			}
			for i, s := range sent {
				if s.Time != i+1 || s.Text == "" {
					t.Fatalf("sent back %+v", s)
				}
			}
			var warnings []string
			for _, e := range find[agent.Error](evs) {
				warnings = append(warnings, e.Message)
			}
			if tc.warning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tc.warning)) || tc.warning == "" && len(warnings) > 0 {
				t.Fatalf("warnings %q, want %q", warnings, tc.warning)
			}
			if tc.sentBack == 0 {
				return
			}
			// The model read its answer and then what the check said, as
			// the user, before its next turn; the check was told how many
			// times the run was sent back already.
			msgs := m.reqs[1].Messages
			if a, u := msgs[len(msgs)-2], msgs[len(msgs)-1]; a.Role != "assistant" || a.Content != "done" || u.Role != "user" || u.Content != sent[0].Text {
				t.Fatalf("the model read %+v then %+v", a, u)
			}
			if tc.f.counts[0] != 0 || tc.f.counts[1] != 1 || tc.f.answers[len(tc.f.answers)-1] == "" {
				t.Fatalf("the check was told %v, answers %q", tc.f.counts, tc.f.answers)
			}
			if tc.name == "sent back once" && (tc.f.calls[0] != 0 || tc.f.calls[1] != 1) {
				t.Fatalf("the check was told of %v tool calls, want [0 1]", tc.f.calls)
			}
		})
	}
}

// stopper is a check the user stops while it runs.
type stopper struct{ cancel context.CancelFunc }

func (s stopper) Finish(ctx context.Context, _ agent.Finishing) (string, []string) {
	s.cancel()
	<-ctx.Done()
	return "", []string{"hook a1 failed: " + ctx.Err().Error()}
}

// TestStoppedWhileChecking: a run stopped while its checks run ends
// cancelled, as a stopped run does, without the checks' complaint of
// being stopped.
func TestStoppedWhileChecking(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := &agent.Agent{Model: &scripted{turns: [][]api.ChatResponse{text("done")}}, Tools: tools{}, Finisher: stopper{cancel}}
	var evs []agent.Event
	for e, err := range a.Run(ctx, agent.Request{Model: "m", Text: "go"}) {
		if err == nil {
			evs = append(evs, e)
		}
	}
	if end := find[agent.RunEnded](evs); len(end) != 1 || end[0].Status != agent.StatusCancelled {
		t.Fatalf("ended %+v", end)
	}
	if w := find[agent.Error](evs); len(w) > 0 && strings.Contains(w[0].Message, "hook a1") {
		t.Fatalf("warned %+v", w)
	}
	if r := find[agent.Response](evs); len(r) != 1 {
		t.Fatalf("the answer was not kept: %+v", r)
	}
}
