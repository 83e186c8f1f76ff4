package prompt

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/internal/chatcheck"
	"github.com/shrimp-harness/shrimp/internal/tokens"
)

// summarizer is a hand-written fake model that summarises by counting.
type summarizer struct {
	calls      int
	fail       bool
	numPredict any    // the last request's options.num_predict
	numCtx     any    // the last request's options.num_ctx
	text       string // when set, every summary (a model that summarises at length)
}

func (s *summarizer) Chat(_ context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	s.calls++
	s.numPredict, s.numCtx = req.Options["num_predict"], req.Options["num_ctx"]
	if s.fail {
		return errors.New("model crashed")
	}
	text := s.text
	if text == "" {
		text = fmt.Sprintf("summary %d of %d chars", s.calls, len(req.Messages[1].Content))
	}
	return fn(api.ChatResponse{Message: api.Message{Content: text}, Done: true})
}

// memory is a session's summary store in memory.
type memory struct {
	kept             Summary
	found            bool
	readErr, saveErr error
	saves            int
}

func (m *memory) Summary(context.Context) (Summary, bool, error) {
	return m.kept, m.found, m.readErr
}

func (m *memory) KeepSummary(_ context.Context, s Summary) error {
	if m.saveErr != nil {
		return m.saveErr
	}
	m.kept, m.found = s, true
	m.saves++
	return nil
}

// historyOf is what Fit takes for the history: the messages between the
// leading system messages and the last user message.
func historyOf(msgs []api.Message) []api.Message {
	i := 0
	for i < len(msgs) && msgs[i].Role == "system" {
		i++
	}
	last := len(msgs) - 1
	for last > i && msgs[last].Role != "user" {
		last--
	}
	return msgs[i:last]
}

func conversation(r *rand.Rand, turns int) []api.Message {
	msgs := []api.Message{{Role: "system", Content: strings.Repeat("s", r.IntN(2000))}}
	calls := 0
	// toolTurns adds up to three model turns of one to three tool calls
	// each, with their results.
	toolTurns := func() {
		for range r.IntN(4) {
			turn := api.Message{Role: "assistant", Content: strings.Repeat("t", r.IntN(300))}
			var results []api.Message
			for range 1 + r.IntN(3) {
				calls++
				id := fmt.Sprintf("call_%d", calls)
				args := api.NewToolCallFunctionArguments()
				args.Set("path", strings.Repeat("p", r.IntN(200)))
				turn.ToolCalls = append(turn.ToolCalls, api.ToolCall{ID: id, Function: api.ToolCallFunction{Name: "fs.read", Arguments: args}})
				results = append(results, api.Message{Role: "tool", ToolName: "fs.read", ToolCallID: id, Content: strings.Repeat("oé中😀", r.IntN(4000))})
			}
			msgs = append(append(msgs, turn), results...)
		}
	}
	for i := range turns {
		msgs = append(msgs, api.Message{Role: "user", Content: fmt.Sprintf("request %d %s", i, strings.Repeat("u", r.IntN(3000)))})
		toolTurns()
		msgs = append(msgs, api.Message{Role: "assistant", Content: strings.Repeat("a", r.IntN(2000))})
	}
	// The current request ends the conversation, with the turns it has
	// taken so far.
	msgs = append(msgs, api.Message{Role: "user", Content: "the newest request " + strings.Repeat("n", r.IntN(20000))})
	toolTurns()
	return msgs
}

// TestFitProperty: whatever the conversation, the fitted prompt is within
// the budget and the newest user message is there.
func TestFitProperty(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		msgs := conversation(r, r.IntN(12))
		numCtx := 512 + r.IntN(16000)
		model := &summarizer{fail: r.IntN(3) == 0}
		var m agent.Model = model
		if r.IntN(4) == 0 {
			m = nil
		}
		f := &Fitter{Model: m}
		// A session's kept summary: none, one for this history (covering
		// some of it, up to a long one) or one for another history.
		if hist := historyOf(msgs); r.IntN(2) == 0 && len(hist) > 0 {
			n := 1 + r.IntN(len(hist))
			kept := Summary{Text: strings.Repeat("k", r.IntN(6000)+1), Covers: n, Digest: Digest(hist[:n])}
			if r.IntN(3) == 0 {
				kept.Digest = Digest(hist[:n-1])
			}
			f.Memory = &memory{kept: kept, found: true}
		}
		tools := api.Tools{{Type: "function", Function: api.ToolFunction{Name: "fs.read", Description: strings.Repeat("d", r.IntN(800))}}}
		out, events, err := f.Fit(context.Background(), msgs, tools, numCtx, numCtx)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if got, budget := Estimate(out, tools), f.Budget(numCtx); got > budget {
			t.Fatalf("seed %d: %d tokens over a budget of %d", seed, got, budget)
		}
		var lastUser *api.Message
		for i := range out {
			if out[i].Role == "user" {
				lastUser = &out[i]
			}
		}
		if lastUser == nil || !strings.HasPrefix(lastUser.Content, "the newest request") && !strings.Contains(lastUser.Content, "cut to fit") {
			t.Fatalf("seed %d: newest user message missing", seed)
		}
		if Estimate(msgs, tools) > f.Budget(numCtx) && len(events) == 0 {
			t.Fatalf("seed %d: compacted without an event", seed)
		}
		if err := chatcheck.WellFormed(out); err != nil {
			t.Fatalf("seed %d: the fitted prompt: %v", seed, err)
		}
		for i, m := range out {
			if !utf8.ValidString(m.Content) {
				t.Fatalf("seed %d: message %d cut inside a character", seed, i)
			}
		}
	}
}

// TestDroppedHistoryKeepsCallsWithResults: history dropped oldest first
// (with no summary, a short one or one longer than was planned for,
// beside requests of every size, at every context size from tiny to
// roomy) never leaves a tool result whose call went, nor a call whose
// results went.
func TestDroppedHistoryKeepsCallsWithResults(t *testing.T) {
	args := api.NewToolCallFunctionArguments()
	args.Set("path", "notes.txt")
	msgs := []api.Message{
		{Role: "system", Content: "You are Shrimp."},
		{Role: "user", Content: "the first request " + strings.Repeat("f", 8000)},
		{Role: "assistant", Content: "the first answer"},
		{Role: "user", Content: strings.Repeat("an old request ", 4)},
		{Role: "assistant", ToolCalls: []api.ToolCall{{ID: "a", Function: api.ToolCallFunction{Name: "fs.read", Arguments: args}}, {ID: "b", Function: api.ToolCallFunction{Name: "fs.read", Arguments: args}}}},
		{Role: "tool", ToolName: "fs.read", ToolCallID: "a", Content: strings.Repeat("x", 120)},
		{Role: "tool", ToolName: "fs.read", ToolCallID: "b", Content: strings.Repeat("y", 120)},
		{Role: "assistant", Content: strings.Repeat("an old answer ", 4)},
		{Role: "user", Content: strings.Repeat("the newest request ", 10)},
	}
	checked := 0
	for _, summary := range []string{"", "short", strings.Repeat("a long summary ", 200)} {
		for size := 0; size <= 12000; size += 250 {
			msgs[len(msgs)-1].Content = "the newest request " + strings.Repeat("n", size)
			for numCtx := 100; numCtx <= 4000; numCtx += 7 {
				f := &Fitter{Reserve: 16}
				if summary != "" { // else no model: the history is dropped, not summarised
					f.Model = &summarizer{text: summary}
				}
				out, _, _ := f.Fit(context.Background(), msgs, nil, numCtx, numCtx)
				if err := chatcheck.WellFormed(out); err != nil {
					t.Fatalf("a summary of %d chars, a request of %d chars, num_ctx %d: %v", len(summary), size, numCtx, err)
				}
				checked++
			}
		}
	}
	t.Logf("%d fits checked", checked)
}

func TestFitSteps(t *testing.T) {
	big := strings.Repeat("x", 8000)
	base := []api.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "old request"},
		{Role: "tool", ToolName: "fs.read", Content: big + " handle out-1 and more"},
		{Role: "assistant", Content: strings.Repeat("y", 4000)},
		{Role: "user", Content: "new request"},
	}
	tests := []struct {
		name       string
		numCtx     int
		model      *summarizer
		wantStub   bool
		wantSumm   bool
		wantWarn   bool
		wantEvents int
	}{
		{"fits", 8192, &summarizer{}, false, false, false, 0},
		{"stubbing is enough", 2048, &summarizer{}, true, false, false, 1},
		{"summary needed", 320, &summarizer{}, true, true, false, 1},
		{"summary fails: dropped with a warning", 320, &summarizer{fail: true}, true, false, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &Fitter{Model: tt.model, Reserve: 64}
			out, events, _ := f.Fit(context.Background(), clone(base), nil, tt.numCtx, tt.numCtx)
			if len(events) != tt.wantEvents {
				t.Fatalf("events %+v", events)
			}
			text := fmt.Sprint(out)
			if strings.Contains(text, "tool.output.read with handle out-1") != tt.wantStub && !tt.wantSumm && !tt.wantWarn {
				t.Fatalf("stub %v in %s", tt.wantStub, text)
			}
			if strings.Contains(text, "Summary of the earlier conversation") != tt.wantSumm {
				t.Fatalf("summary %v in %s", tt.wantSumm, text)
			}
			warned := false
			for _, e := range events {
				if d, ok := e.Data.(agent.Error); ok && d.Kind == agent.KindWarning {
					warned = true
				}
			}
			if warned != tt.wantWarn {
				t.Fatalf("warning %v: %+v", tt.wantWarn, events)
			}
			if out[len(out)-1].Content != "new request" {
				t.Fatalf("newest request changed: %q", out[len(out)-1].Content)
			}
		})
	}
}

// TestStubbedPictures: a picture an earlier call showed (fs.read of an
// image: a short result, 768 tokens of image) is stubbed when the prompt
// does not fit, its image dropped with its text; the request's own
// images stay.
func TestStubbedPictures(t *testing.T) {
	pic := []api.ImageData{[]byte("png")}
	msgs := []api.Message{
		{Role: "user", Content: "look at a.png", Images: pic},
		{Role: "tool", ToolName: "fs.read", Content: "[the image a.png is attached]", Images: pic},
		{Role: "assistant", Content: "a cat"},
		{Role: "user", Content: "and this one?", Images: pic},
	}
	f := &Fitter{Model: &summarizer{}, Reserve: 64}
	out, _, _ := f.Fit(context.Background(), clone(msgs), nil, 2200, 2200)
	var tool, last api.Message
	for _, m := range out {
		if m.Role == "tool" {
			tool = m
		}
	}
	last = out[len(out)-1]
	if len(tool.Images) != 0 || !strings.Contains(tool.Content, "omitted to save context (29 chars, 1 image); call fs.read again") {
		t.Fatalf("the shown picture: %q with %d images", tool.Content, len(tool.Images))
	}
	if last.Content != "and this one?" || len(last.Images) != 1 {
		t.Fatalf("the request: %q with %d images", last.Content, len(last.Images))
	}
}

// TestLongRequestKeepsItsTurns: a request that carries more material than
// the context holds (a log piped to `shrimp chat`) is cut before the calls
// it led to go: shown without them, the model makes them again. The
// request keeps its start (the instruction) and end, and every call its
// result.
func TestLongRequestKeepsItsTurns(t *testing.T) {
	request := "summarise this log\n" + strings.Repeat("2026-12-04 21:47:10 INFO worker 7 took job 42 and finished it\n", 40000)
	args := api.NewToolCallFunctionArguments()
	args.Set("path", "notes.txt")
	msgs := []api.Message{{Role: "system"}, {Role: "user", Content: request}}
	for i := range 3 {
		name := []string{"fs.list", "fs.read", "fs.write"}[i]
		msgs = append(msgs,
			api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: name, Arguments: args}}}},
			api.Message{Role: "tool", ToolName: name, Content: strings.Repeat("a line of output\n", 20)})
	}
	for _, numCtx := range []int{2048, 4096, 8192} {
		f := &Fitter{Reserve: 256}
		budget := f.Budget(numCtx)
		// The tool definitions take 45% of the budget, as twenty-odd
		// built-in and MCP tools do of a 4,096-token context, and the
		// system prompt a tenth.
		msgs[0].Content = strings.Repeat("Be brief and careful. ", budget/50)
		var tools api.Tools
		for Estimate(nil, tools) < budget*45/100 {
			tools = append(tools, api.Tool{Type: "function", Function: api.ToolFunction{Name: fmt.Sprintf("tool%d", len(tools)), Description: strings.Repeat("says what the tool does ", 10)}})
		}
		out, _, _ := f.Fit(context.Background(), clone(msgs), tools, numCtx, numCtx)
		if got := Estimate(out, tools); got > budget {
			t.Fatalf("num_ctx %d: %d tokens over a budget of %d", numCtx, got, budget)
		}
		if out[0].Content != msgs[0].Content {
			t.Errorf("num_ctx %d: the system prompt was cut: %q", numCtx, out[0].Content)
		}
		calls, results := 0, 0
		for _, m := range out {
			calls += len(m.ToolCalls)
			if m.Role == "tool" {
				results++
			}
		}
		if calls != 3 || results != 3 {
			t.Errorf("num_ctx %d: %d calls and %d results kept of 3 each: %.300v", numCtx, calls, results, out)
		}
		if u := out[1]; u.Role != "user" || !strings.HasPrefix(u.Content, "summarise this log") || !strings.Contains(u.Content, "cut to fit") {
			t.Errorf("num_ctx %d: the request, %d tokens of a budget of %d: %.80q", numCtx, Tokens(u), budget, u.Content)
		}
	}
}

// TestLongSessionSummaryIsBounded: the next request of a long session
// keeps its newest exchange as it was, summarises the newest history
// before it (one and a half budgets, at most four summary calls) and
// leaves the rest out, counted; the newest request is kept whole.
func TestLongSessionSummaryIsBounded(t *testing.T) {
	for _, exchanges := range []int{10, 100, 1000} {
		t.Run(fmt.Sprint(exchanges), func(t *testing.T) {
			msgs := []api.Message{{Role: "system", Content: "be brief"}}
			for i := range exchanges {
				msgs = append(msgs,
					api.Message{Role: "user", Content: fmt.Sprintf("request %d %s", i, strings.Repeat("u", 400))},
					api.Message{Role: "assistant", Content: fmt.Sprintf("answer %d %s", i, strings.Repeat("a", 350))})
			}
			msgs = append(msgs, api.Message{Role: "user", Content: "the newest request"})
			m := &summarizer{}
			f := &Fitter{Model: m, Reserve: 64}
			out, events, err := f.Fit(context.Background(), msgs, nil, 1024, 1024) // budget 960 tokens, each message ~100
			if err != nil {
				t.Fatal(err)
			}
			if m.calls < 1 || m.calls > 4 {
				t.Errorf("%d summary calls, want 1 to 4", m.calls)
			}
			if m.numPredict != summaryTokens {
				t.Errorf("summary requests ask for num_predict %v, want %d", m.numPredict, summaryTokens)
			}
			var st Compacted
			for _, e := range events {
				if d, ok := e.Data.(Compacted); ok {
					st = d
				}
			}
			verbatim := 0 // history messages sent as they were
			for _, m := range out[:len(out)-1] {
				if m.Role != "system" {
					verbatim++
				}
			}
			if verbatim == 0 || st.Summarized+st.Dropped+verbatim != 2*exchanges {
				t.Errorf("summarised %d, dropped %d and kept %d of %d history messages", st.Summarized, st.Dropped, verbatim, 2*exchanges)
			}
			if exchanges >= 100 && st.Dropped == 0 {
				t.Errorf("nothing left out of a history of %d exchanges", exchanges)
			}
			if out[len(out)-1].Content != "the newest request" || !strings.Contains(fmt.Sprint(out), "Summary of the earlier conversation") {
				t.Fatalf("fitted %v", out)
			}
			if st.After > st.Budget {
				t.Errorf("%d tokens after fitting, budget %d", st.After, st.Budget)
			}
		})
	}
}

func TestSummaryIsReusedWithinARun(t *testing.T) {
	m := &summarizer{}
	f := &Fitter{Model: m, Reserve: 64}
	msgs := []api.Message{{Role: "user", Content: strings.Repeat("a", 4000)}, {Role: "assistant", Content: strings.Repeat("b", 4000)}, {Role: "user", Content: "now"}}
	_, _, _ = f.Fit(context.Background(), msgs, nil, 600, 600)
	calls := m.calls
	_, _, _ = f.Fit(context.Background(), append(msgs, api.Message{Role: "assistant", Content: "ok"}), nil, 600, 600)
	if calls == 0 || m.calls != calls {
		t.Fatalf("summarised %d then %d times", calls, m.calls)
	}
}

// BenchmarkFitLongSession fits the next request of a session of n earlier
// exchanges (a request, a tool call, its 100–150-character output, an
// answer) into 8,192 tokens without a model to summarise with: the cost of
// every model call of a run in a long-lived session.
func BenchmarkFitLongSession(b *testing.B) {
	for _, n := range []int{250, 1000, 4000} {
		msgs := []api.Message{{Role: "system", Content: "You are Shrimp."}}
		for i := range n {
			args := api.NewToolCallFunctionArguments()
			args.Set("path", fmt.Sprintf("notes/%d.txt", i))
			msgs = append(msgs,
				api.Message{Role: "user", Content: "read the next note please"},
				api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{Name: "fs.read", Arguments: args}}}},
				api.Message{Role: "tool", ToolName: "fs.read", Content: strings.Repeat("x", 100+i%50)},
				api.Message{Role: "assistant", Content: "Done."})
		}
		msgs = append(msgs, api.Message{Role: "user", Content: "and now the last one"})
		b.Run(fmt.Sprintf("exchanges=%d", n), func(b *testing.B) {
			for b.Loop() {
				f := &Fitter{}
				if _, _, err := f.Fit(context.Background(), msgs, nil, 8192, 8192); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSummaryIsKeptAcrossRuns: a session of 200 requests, each fitted by a
// new Fitter (one per run) sharing the session's Memory. With it, a
// request sends the kept summary and the messages after it, and only
// summarises when those no longer fit: a summary call every few requests.
// Without it, every request once the history outgrew the context
// summarised again.
func TestSummaryIsKeptAcrossRuns(t *testing.T) {
	const requests = 200
	run := func(mem Memory, numCtx int) (calls int, last []api.Message) {
		m := &summarizer{}
		var history []api.Message
		for i := range requests {
			msgs := append([]api.Message{{Role: "system", Content: "be brief"}}, history...)
			msgs = append(msgs, api.Message{Role: "user", Content: fmt.Sprintf("request %d %s", i, strings.Repeat("u", 350))})
			f := &Fitter{Model: m, Reserve: 64, Memory: mem}
			out, _, err := f.Fit(context.Background(), msgs, nil, numCtx, numCtx) // each message ~100 tokens
			if err != nil {
				t.Fatal(err)
			}
			if n := Estimate(out, nil); n > f.Budget(numCtx) {
				t.Fatalf("request %d: %d tokens over the budget", i, n)
			}
			if !strings.HasPrefix(out[len(out)-1].Content, fmt.Sprintf("request %d ", i)) {
				t.Fatalf("request %d: the newest request is missing: %v", i, out[len(out)-1])
			}
			if i > numCtx/100 && !strings.Contains(fmt.Sprint(out), "Summary of the earlier conversation") {
				t.Fatalf("request %d: no summary of the earlier conversation", i)
			}
			// The run's answer joins the history.
			history = append(msgs[1:], api.Message{Role: "assistant", Content: fmt.Sprintf("answer %d %s", i, strings.Repeat("a", 350))})
			last = out
		}
		return m.calls, last
	}
	for _, tt := range []struct{ numCtx, most int }{{1024, requests / 2}, {4096, requests / 5}} {
		t.Run(fmt.Sprint(tt.numCtx), func(t *testing.T) {
			without, _ := run(nil, tt.numCtx)
			mem := &memory{}
			with, last := run(mem, tt.numCtx)
			t.Logf("summary calls for %d requests: %d without a kept summary, %d with one (%d kept)", requests, without, with, mem.saves)
			if without < requests*3/4 {
				t.Fatalf("without a kept summary: %d calls; the test no longer makes every request summarise", without)
			}
			if with > tt.most {
				t.Errorf("%d summary calls with a kept summary, want at most %d", with, tt.most)
			}
			if mem.saves == 0 || mem.kept.Covers < 2*(requests-tt.numCtx/100) {
				t.Errorf("kept summary covers %d messages after %d saves", mem.kept.Covers, mem.saves)
			}
			// The newest exchange is sent as it was, not only summarised.
			if !strings.Contains(fmt.Sprint(last), fmt.Sprintf("answer %d ", requests-2)) {
				t.Errorf("the previous answer is missing from the last request: %v", last)
			}
		})
	}
}

// TestKeptSummaryChecks: a kept summary is used only for the history it
// was made from; one that cannot be read or kept costs a warning and a
// new summary, never the run.
func TestKeptSummaryChecks(t *testing.T) {
	msgs := []api.Message{{Role: "system", Content: "be brief"}}
	for i := range 20 {
		msgs = append(msgs,
			api.Message{Role: "user", Content: fmt.Sprintf("request %d %s", i, strings.Repeat("u", 400))},
			api.Message{Role: "assistant", Content: fmt.Sprintf("answer %d %s", i, strings.Repeat("a", 350))})
	}
	msgs = append(msgs, api.Message{Role: "user", Content: "the newest request"})
	hist := historyOf(msgs)
	other := clone(hist)
	other[0].Content = "another session's first request"
	// A new summary, and the newest exchange as it was.
	const fresh = "conversation:\nsummary "
	tests := []struct {
		name      string
		mem       *memory
		wantCalls bool   // the model was asked for a summary
		wantWarn  string // part of a warning
		wantText  string // part of the fitted prompt
	}{
		{"kept summary of all of it", &memory{found: true, kept: Summary{Text: "KEPT", Covers: 40, Digest: Digest(hist)}}, false, "", "KEPT"},
		{"kept summary of most of it", &memory{found: true, kept: Summary{Text: "KEPT", Covers: 36, Digest: Digest(hist[:36])}}, false, "", "answer 19"},
		{"summary of another history", &memory{found: true, kept: Summary{Text: "KEPT", Covers: 40, Digest: Digest(other)}}, true, "", fresh},
		{"summary longer than the history", &memory{found: true, kept: Summary{Text: "KEPT", Covers: 41, Digest: Digest(hist)}}, true, "", fresh},
		{"no summary kept", &memory{}, true, "", fresh},
		{"unreadable", &memory{readErr: errors.New("disk I/O error")}, true, "could not be read, so it is summarised again: disk I/O error", fresh},
		{"cannot be kept", &memory{saveErr: errors.New("database is locked")}, true, "could not be kept for the next request, which will summarise again: database is locked", fresh},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &summarizer{}
			f := &Fitter{Model: m, Reserve: 64, Memory: tt.mem}
			out, events, err := f.Fit(context.Background(), clone(msgs), nil, 1024, 1024)
			if err != nil {
				t.Fatal(err)
			}
			if (m.calls > 0) != tt.wantCalls {
				t.Errorf("%d summary calls", m.calls)
			}
			warn := ""
			for _, e := range events {
				if d, ok := e.Data.(agent.Error); ok && d.Kind == agent.KindWarning {
					warn += d.Message
				}
			}
			if (tt.wantWarn == "") != (warn == "") || !strings.Contains(warn, tt.wantWarn) {
				t.Errorf("warnings %q, want %q", warn, tt.wantWarn)
			}
			if text := fmt.Sprint(out); !strings.Contains(text, tt.wantText) || out[len(out)-1].Content != "the newest request" {
				t.Errorf("fitted prompt lacks %q: %s", tt.wantText, text)
			}
			if tt.wantCalls && !strings.Contains(fmt.Sprint(out), "answer 19 ") {
				t.Errorf("the newest exchange was summarised too: %v", out)
			}
			if tt.wantCalls && tt.mem.saveErr == nil && (tt.mem.kept.Covers != 38 || tt.mem.kept.Digest != Digest(hist[:38])) {
				t.Errorf("kept %+v, want a summary of the 38 messages before the newest exchange", tt.mem.kept)
			}
		})
	}
}

// exchanges is a conversation of n requests and answers (request i and
// answer i, each with its filler), then the newest request.
func exchanges(n int, request, answer string) []api.Message {
	var msgs []api.Message
	for i := range n {
		msgs = append(msgs, api.Message{Role: "user", Content: fmt.Sprintf("request %d ", i) + request},
			api.Message{Role: "assistant", Content: fmt.Sprintf("answer %d ", i) + answer})
	}
	return append(msgs, api.Message{Role: "user", Content: "the newest request"})
}

// TestSummaryAsksForTheRunsWindow: fitted into less room than the window
// (estimates fell short of the model's count), the prompt keeps to the
// room, and the summary call asks Ollama for the run's window, not the
// room: another size would have Ollama load the model again for the
// summary, and again for the run's next call.
func TestSummaryAsksForTheRunsWindow(t *testing.T) {
	msgs := exchanges(30, strings.Repeat("w", 400), strings.Repeat("a", 400))
	m := &summarizer{}
	f := &Fitter{Model: m}
	out, _, err := f.Fit(context.Background(), msgs, nil, 8192, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if m.calls == 0 || m.numCtx != 8192 {
		t.Fatalf("%d summary calls, num_ctx %v; want the run's 8192", m.calls, m.numCtx)
	}
	if got, budget := Estimate(out, nil), f.Budget(2048); got > budget {
		t.Errorf("%d tokens fitted into a room of %d", got, budget)
	}
}

// TestSummaryOutlastsCurrentOutputs: when the current turns alone fill the
// context, the summary of the earlier conversation stays and the current
// tool output is cut; the call's arguments are left alone.
func TestSummaryOutlastsCurrentOutputs(t *testing.T) {
	args := api.NewToolCallFunctionArguments()
	args.Set("path", "big.txt")
	msgs := []api.Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "old request " + strings.Repeat("u", 2000)},
		{Role: "assistant", Content: "old answer " + strings.Repeat("a", 2000)},
		{Role: "user", Content: "read big.txt"},
		{Role: "assistant", ToolCalls: []api.ToolCall{{ID: "1", Function: api.ToolCallFunction{Name: "fs.read", Arguments: args}}}},
		{Role: "tool", ToolName: "fs.read", ToolCallID: "1", Content: strings.Repeat("line\n", 2000)},
	}
	f := &Fitter{Model: &summarizer{}, Reserve: 64}
	out, events, _ := f.Fit(context.Background(), msgs, nil, 1024, 1024)
	text := fmt.Sprint(out)
	if !strings.Contains(text, "Summary of the earlier conversation") || !strings.Contains(text, "cut to fit the context") {
		t.Fatalf("want the summary and a cut output: %s", text)
	}
	if got, _ := out[len(out)-2].ToolCalls[0].Function.Arguments.Get("path"); got != "big.txt" {
		t.Errorf("the call's arguments were cut: %v", out[len(out)-2].ToolCalls)
	}
	if n := Estimate(out, nil); n > f.Budget(1024) {
		t.Errorf("%d tokens over the budget", n)
	}
	var st Compacted
	for _, e := range events {
		if d, ok := e.Data.(Compacted); ok {
			st = d
		}
	}
	if st.Summarized != 2 || st.Dropped != 0 || st.SummaryCalls == 0 {
		t.Errorf("compaction %+v, want 2 summarised, none dropped", st)
	}
}

// countingModel is a fake model whose tokenizer counts factor times
// Shrimp's estimate: it refuses, as Ollama does, a prompt over num_ctx
// sent with truncate false (in v0.24.0's words, or in others when
// wording is set), and cuts one sent without.
type countingModel struct {
	factor  float64
	wording string
	refused int
	cut     int
	seen    []string // the summary requests it answered, not cut
}

func (m *countingModel) Chat(_ context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	text := req.Messages[0].Content + req.Messages[1].Content
	over := float64(tokens.Of(text).Tokens())*m.factor > float64(req.Options["num_ctx"].(int))
	switch {
	case over && req.Truncate != nil && !*req.Truncate:
		m.refused++
		return api.StatusError{StatusCode: 400, Status: "400 Bad Request", ErrorMessage: cmp.Or(m.wording, "the input length exceeds the context length")}
	case over:
		m.cut++
	default:
		m.seen = append(m.seen, req.Messages[1].Content)
	}
	return fn(api.ChatResponse{Message: api.Message{Content: fmt.Sprintf("summary %d", len(m.seen)+m.cut)}, Done: true})
}

// TestSummaryIsNeverCutUnseen: a summary request Ollama counts longer
// than the context window is refused, not cut (truncate false), and the
// part of the conversation it held is summarised again in smaller
// pieces, every message of it seen by the model; one that cannot be made
// small enough, or is refused in other words, is sent for Ollama to cut,
// as before.
func TestSummaryIsNeverCutUnseen(t *testing.T) {
	msgs := exchanges(60, strings.Repeat("w ", 500), strings.Repeat("a ", 500))
	for _, tt := range []struct {
		name       string
		model      *countingModel
		refused    bool // some request was refused
		cut        bool // some request was cut
		everything bool // every summarised message was seen whole
	}{
		{"the estimate holds", &countingModel{factor: 1}, false, false, true},
		{"the tokenizer counts 2.5 times the estimate", &countingModel{factor: 2.5}, true, false, true},
		{"nothing fits", &countingModel{factor: 100}, true, true, false},
		{"refused in other words", &countingModel{factor: 2.5, wording: "prompt too big for this model"}, true, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &Fitter{Model: tt.model}
			out, events, err := f.Fit(context.Background(), msgs, nil, 8192, 8192)
			if err != nil {
				t.Fatal(err)
			}
			m := tt.model
			if (m.refused > 0) != tt.refused || (m.cut > 0) != tt.cut {
				t.Fatalf("%d refused, %d cut; want refused %v, cut %v", m.refused, m.cut, tt.refused, tt.cut)
			}
			if out[0].Role != "system" || !strings.HasPrefix(out[0].Content, "Summary of the earlier conversation:\nsummary") {
				t.Fatalf("no summary in the fitted prompt: %q (events %+v)", out[0].Content, events)
			}
			if !tt.everything {
				return
			}
			// Every message the summary stands for reached the model
			// whole, in a request it answered.
			all := strings.Join(m.seen, "\n")
			var st Compacted
			for _, e := range events {
				if c, ok := e.Data.(Compacted); ok {
					st = c
				}
			}
			if st.Summarized == 0 {
				t.Fatalf("nothing summarised: %+v", events)
			}
			for _, msg := range msgs[st.Dropped : st.Dropped+st.Summarized] {
				if !strings.Contains(all, msg.Content) {
					t.Fatalf("%.20q… never reached the model whole", msg.Content)
				}
			}
		})
	}
}
