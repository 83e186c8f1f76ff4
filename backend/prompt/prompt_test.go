package prompt

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// summarizer is a hand-written fake model that summarises by counting.
type summarizer struct {
	calls      int
	fail       bool
	numPredict any // the last request's options.num_predict
}

func (s *summarizer) Chat(_ context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	s.calls++
	s.numPredict = req.Options["num_predict"]
	if s.fail {
		return errors.New("model crashed")
	}
	return fn(api.ChatResponse{Message: api.Message{Content: fmt.Sprintf("summary %d of %d chars", s.calls, len(req.Messages[1].Content))}, Done: true})
}

func conversation(r *rand.Rand, turns int) []api.Message {
	msgs := []api.Message{{Role: "system", Content: strings.Repeat("s", r.IntN(2000))}}
	for i := range turns {
		msgs = append(msgs, api.Message{Role: "user", Content: fmt.Sprintf("request %d %s", i, strings.Repeat("u", r.IntN(3000)))})
		for range r.IntN(4) {
			args := api.NewToolCallFunctionArguments()
			args.Set("path", strings.Repeat("p", r.IntN(200)))
			msgs = append(msgs, api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{ID: "c", Function: api.ToolCallFunction{Name: "fs.read", Arguments: args}}}})
			msgs = append(msgs, api.Message{Role: "tool", ToolName: "fs.read", Content: strings.Repeat("o", r.IntN(40000))})
		}
		msgs = append(msgs, api.Message{Role: "assistant", Content: strings.Repeat("a", r.IntN(2000))})
	}
	// The current request ends the conversation.
	return append(msgs, api.Message{Role: "user", Content: "the newest request " + strings.Repeat("n", r.IntN(20000))})
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
		tools := api.Tools{{Type: "function", Function: api.ToolFunction{Name: "fs.read", Description: strings.Repeat("d", r.IntN(800))}}}
		out, events, err := f.Fit(context.Background(), msgs, tools, numCtx)
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
	}
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
			out, events, _ := f.Fit(context.Background(), clone(base), nil, tt.numCtx)
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

// TestLongSessionSummaryIsBounded: the next request of a long session
// summarises only the newest history (one and a half budgets, at most four
// summary calls) and leaves the rest out, counted; the newest request is
// kept whole.
func TestLongSessionSummaryIsBounded(t *testing.T) {
	for _, exchanges := range []int{10, 100, 1000} {
		t.Run(fmt.Sprint(exchanges), func(t *testing.T) {
			msgs := []api.Message{{Role: "system", Content: "be brief"}}
			for i := range exchanges {
				msgs = append(msgs,
					api.Message{Role: "user", Content: fmt.Sprintf("request %d %s", i, strings.Repeat("u", 400))},
					api.Message{Role: "assistant", Content: fmt.Sprintf("answer %d %s", i, strings.Repeat("a", 400))})
			}
			msgs = append(msgs, api.Message{Role: "user", Content: "the newest request"})
			m := &summarizer{}
			f := &Fitter{Model: m, Reserve: 64}
			out, events, err := f.Fit(context.Background(), msgs, nil, 1024) // budget 960 tokens, each message ~100
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
			if st.Summarized+st.Dropped != 2*exchanges {
				t.Errorf("summarised %d and dropped %d of %d history messages", st.Summarized, st.Dropped, 2*exchanges)
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
	_, _, _ = f.Fit(context.Background(), msgs, nil, 600)
	calls := m.calls
	_, _, _ = f.Fit(context.Background(), append(msgs, api.Message{Role: "assistant", Content: "ok"}), nil, 600)
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
				if _, _, err := f.Fit(context.Background(), msgs, nil, 8192); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
