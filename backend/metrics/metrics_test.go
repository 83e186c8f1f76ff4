package metrics

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/store"
)

type memSink struct {
	mu   sync.Mutex
	rows []store.RunMetric
}

func (m *memSink) Save(_ context.Context, r store.RunMetric) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows = append(m.rows, r)
	return nil
}

type recalled struct {
	Procedures []summary `json:"procedures"`
}
type summary struct {
	ID    string   `json:"id"`
	Tools []string `json:"tools"`
	Score float64  `json:"score"`
}

func TestRecorder(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ev := func(session string, seq int64, ms int, typ agent.Type, data any) agent.Event {
		return agent.Event{Session: session, Seq: seq, Time: at(ms), Type: typ, Data: data}
	}
	call := func(name string) agent.ToolCall { return agent.ToolCall{ID: name, Name: name} }
	chain := []string{"fs.list", "fs.read", "fs.write"}
	cases := []struct {
		name     string
		events   []agent.Event
		followed string
		check    func(t *testing.T, r Run)
	}{
		{"followed a recalled procedure", []agent.Event{
			ev("s", 1, 0, agent.TypeRunStarted, agent.RunStarted{Model: "m", Text: "tidy notes"}),
			ev("s", 2, 5, "memory:procedure-recalled", recalled{[]summary{{"p-a", []string{"shell.run"}, 2.5}, {"p-b", chain, 1.5}}}),
			ev("s", 3, 400, agent.TypeToolCall, call("fs.list")),
			ev("s", 4, 500, agent.TypeToolCall, call("fs.read")),
			ev("s", 5, 550, agent.TypeToolCall, call("memory.procedures.forget")),
			ev("s", 6, 600, agent.TypeToolCall, call("fs.write")),
			ev("s", 7, 900, agent.TypeRunEnded, agent.RunEnded{Status: "responded", Turns: 4, ToolCalls: 4, Malformed: 1, Denied: 1, Repeated: 2, Usage: agent.Usage{PromptTokens: 1200, CompletionTokens: 80}}),
		}, "p-b", func(t *testing.T, r Run) {
			if r.Turns != 4 || r.ToolCalls != 4 || r.Malformed != 1 || r.Denied != 1 || r.Repeated != 2 || r.TokensIn != 1200 || r.TokensOut != 80 ||
				r.WallMS != 900 || r.FirstToolMS != 400 || len(r.Recalled) != 2 || r.Scores[1].Score != 1.5 || r.Request != "tidy notes" || r.Status != "responded" {
				t.Errorf("measures: %+v", r)
			}
		}},
		// A made-up tool's call did not run: no step of the chain, so the
		// run still followed the procedure. (The raw form is how a stored
		// event comes back.)
		{"a call that did not run is not the chain", []agent.Event{
			ev("s", 1, 0, agent.TypeRunStarted, agent.RunStarted{Text: "tidy notes"}),
			ev("s", 2, 5, "memory:procedure-recalled", recalled{[]summary{{"p-b", chain, 1}}}),
			ev("s", 3, 10, agent.TypeToolCall, call("fs.readfile")),
			ev("s", 4, 11, agent.TypeToolResult, map[string]any{"id": "fs.readfile", "name": "fs.readfile", "error": "unknown tool", "malformed": true}),
			ev("s", 5, 20, agent.TypeToolCall, call("fs.list")),
			ev("s", 6, 21, agent.TypeToolResult, agent.ToolResult{ID: "fs.list", Name: "fs.list", Output: "a"}),
			ev("s", 7, 30, agent.TypeToolCall, call("fs.read")),
			ev("s", 8, 31, agent.TypeToolResult, agent.ToolResult{ID: "fs.read", Name: "fs.read", Error: "no such file"}),
			ev("s", 9, 40, agent.TypeToolCall, call("fs.write")),
			ev("s", 10, 41, agent.TypeToolResult, agent.ToolResult{ID: "fs.write", Name: "fs.write", Malformed: true}),
			ev("s", 11, 50, agent.TypeToolCall, call("fs.write")),
			ev("s", 12, 60, agent.TypeRunEnded, agent.RunEnded{Status: "responded", ToolCalls: 5, Malformed: 2}),
		}, "p-b", func(t *testing.T, r Run) {
			if len(r.Chain) != 3 || r.ToolCalls != 5 || r.Malformed != 2 {
				t.Errorf("measures: %+v", r)
			}
		}},
		// A model that went round (list, read, list and read again, each
		// the same, the list because the context had left it out) still
		// followed the method: the repeats are no steps.
		{"repeats are not the chain", []agent.Event{
			ev("s", 1, 0, agent.TypeRunStarted, agent.RunStarted{Text: "tidy notes"}),
			ev("s", 2, 5, "memory:procedure-recalled", recalled{[]summary{{"p-b", chain, 1}}}),
			ev("s", 3, 10, agent.TypeToolCall, call("fs.list")),
			ev("s", 4, 20, agent.TypeToolCall, call("fs.read")),
			ev("s", 5, 30, agent.TypeToolCall, call("fs.list")),
			ev("s", 6, 31, agent.TypeToolResult, map[string]any{"id": "fs.list", "name": "fs.list", "output": "a", "refetched": true}),
			ev("s", 7, 40, agent.TypeToolCall, call("fs.read")),
			ev("s", 8, 41, agent.TypeToolResult, agent.ToolResult{ID: "fs.read", Name: "fs.read", Output: "b", Repeated: true}),
			ev("s", 9, 50, agent.TypeToolCall, call("fs.write")),
			ev("s", 10, 60, agent.TypeRunEnded, agent.RunEnded{Status: "responded", ToolCalls: 5, Repeated: 1, Refetched: 1}),
		}, "p-b", func(t *testing.T, r Run) {
			if len(r.Chain) != 3 || r.ToolCalls != 5 || r.Repeated != 1 || r.Refetched != 1 {
				t.Errorf("measures: %+v", r)
			}
		}},
		// The same method over more files (fs.read three times where the
		// procedure read once) follows it: chains compare by shape.
		{"followed over more files", []agent.Event{
			ev("s", 1, 0, agent.TypeRunStarted, agent.RunStarted{Text: "tidy notes"}),
			ev("s", 2, 5, "memory:procedure-recalled", recalled{[]summary{{"p-b", chain, 1}}}),
			ev("s", 3, 10, agent.TypeToolCall, call("fs.list")),
			ev("s", 4, 20, agent.TypeToolCall, call("fs.read")),
			ev("s", 5, 30, agent.TypeToolCall, call("fs.read")),
			ev("s", 6, 40, agent.TypeToolCall, call("fs.read")),
			ev("s", 7, 50, agent.TypeToolCall, call("fs.write")),
			ev("s", 8, 60, agent.TypeRunEnded, agent.RunEnded{Status: "responded", ToolCalls: 5}),
		}, "p-b", func(t *testing.T, r Run) {
			if len(r.Chain) != 5 {
				t.Errorf("chain %q, want the five calls", r.Chain)
			}
		}},
		// An MCP server's use of the run's model (sampling) costs the run's
		// tokens too; the loop's own count leaves it out.
		{"the model lent to a server", []agent.Event{
			ev("s", 1, 0, agent.TypeRunStarted, agent.RunStarted{Text: "summarise the issue"}),
			ev("s", 2, 10, agent.TypeToolCall, call("mcp.github.summarise")),
			ev("s", 3, 20, "tool:sampled", map[string]any{"server": "github", "prompt_tokens": 300, "completion_tokens": 40}),
			ev("s", 4, 30, "tool:sampled", map[string]any{"server": "github", "prompt_tokens": 200, "completion_tokens": 10}),
			ev("other", 5, 31, "tool:sampled", map[string]any{"server": "github", "prompt_tokens": 9999, "completion_tokens": 9999}),
			ev("s", 6, 40, agent.TypeRunEnded, agent.RunEnded{Status: "responded", ToolCalls: 1, Usage: agent.Usage{PromptTokens: 1000, CompletionTokens: 50}}),
		}, "", func(t *testing.T, r Run) {
			if r.TokensIn != 1500 || r.TokensOut != 100 {
				t.Errorf("tokens %d in, %d out; want 1500 and 100 (the loop's and the server's)", r.TokensIn, r.TokensOut)
			}
		}},
		{"recalled but not followed", []agent.Event{
			ev("s", 1, 0, agent.TypeRunStarted, agent.RunStarted{Text: "x"}),
			ev("s", 2, 5, "memory:procedure-recalled", recalled{[]summary{{"p-b", chain, 1}}}),
			ev("s", 3, 10, agent.TypeToolCall, call("fs.list")),
			ev("s", 4, 20, agent.TypeRunEnded, agent.RunEnded{Status: "error", Model: "m2"}),
		}, "", func(t *testing.T, r Run) {
			if r.Model != "m2" || r.Status != "error" || len(r.Chain) != 1 {
				t.Errorf("measures: %+v", r)
			}
		}},
		{"no tools", []agent.Event{
			ev("s", 1, 0, agent.TypeRunStarted, agent.RunStarted{Text: "hi"}),
			ev("s", 2, 30, agent.TypeRunEnded, agent.RunEnded{Status: "responded", Turns: 1}),
		}, "", func(t *testing.T, r Run) {
			if r.FirstToolMS != -1 || r.ToolCalls != 0 || len(r.Recalled) != 0 {
				t.Errorf("measures: %+v", r)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sink := &memSink{}
			var emitted []Run
			r := &Recorder{Sink: sink, Emit: func(_ context.Context, session string, typ agent.Type, data any) error {
				if typ != TypeRecorded || session != "s" {
					t.Errorf("emitted %s for %s", typ, session)
				}
				emitted = append(emitted, data.(Run))
				return nil
			}}
			// A run in another session interleaves and does not mix in.
			other := []agent.Event{ev("o", 1, 0, agent.TypeRunStarted, agent.RunStarted{Text: "other"}), ev("o", 2, 1, agent.TypeToolCall, call("web.fetch"))}
			for i, e := range c.events {
				if i < len(other) {
					if err := r.Handle(context.Background(), other[i]); err != nil {
						t.Fatal(err)
					}
				}
				if err := r.Handle(context.Background(), e); err != nil {
					t.Fatal(err)
				}
			}
			if len(sink.rows) != 1 || len(emitted) != 1 {
				t.Fatalf("%d rows, %d events", len(sink.rows), len(emitted))
			}
			run := emitted[0]
			got := ""
			if run.Followed != nil {
				got = *run.Followed
			}
			if got != c.followed {
				t.Errorf("followed %q, want %q", got, c.followed)
			}
			c.check(t, run)
			back := FromRow(sink.rows[0])
			if back.Turns != run.Turns || back.Repeated != run.Repeated || back.Refetched != run.Refetched || back.WallMS != run.WallMS || len(back.Recalled) != len(run.Recalled) || (back.Followed == nil) != (run.Followed == nil) || len(back.Chain) != len(run.Chain) {
				t.Errorf("round trip: %+v vs %+v", back, run)
			}
		})
	}
	// An end without a start (the subscriber came late) records nothing.
	r := &Recorder{Sink: &memSink{}}
	if err := r.Handle(context.Background(), ev("s", 9, 0, agent.TypeRunEnded, agent.RunEnded{})); err != nil || len(r.Sink.(*memSink).rows) != 0 {
		t.Fatal("a run without its start was recorded")
	}
}

func TestCompare(t *testing.T) {
	id := func(s string) *string { return &s }
	runs := []Run{
		{Turns: 6, ToolCalls: 5, WallMS: 6000, Status: "responded"},
		{Turns: 8, ToolCalls: 7, WallMS: 9000, Malformed: 1, Status: "error"},
		{Turns: 7, ToolCalls: 6, WallMS: 7000, Status: "responded"},
		{Turns: 4, ToolCalls: 3, WallMS: 3000, Status: "responded", Recalled: []string{"p-a"}, Followed: id("p-a")},
		{Turns: 5, ToolCalls: 3, WallMS: 4000, Status: "responded", Recalled: []string{"p-a"}, Followed: id("p-a")},
		{Turns: 9, ToolCalls: 8, WallMS: 9000, Status: "responded", Recalled: []string{"p-b"}},
	}
	c := Compare(runs)
	if c.Without.Runs != 3 || c.Without.Turns != 7 || c.Without.Answered < 0.66 || c.Without.Answered > 0.67 || c.Without.Malformed != 0 {
		t.Errorf("without: %+v", c.Without)
	}
	if c.With.Runs != 3 || c.With.Turns != 5 || c.With.Answered != 1 || c.With.WallMS != 4000 {
		t.Errorf("with: %+v", c.With)
	}
	if c.Saved["p-a"] != 5 || c.Saved["p-b"] != 0 {
		t.Errorf("saved: %v", c.Saved)
	}
	if c := Compare(runs[3:5]); len(c.Saved) != 0 {
		t.Errorf("saved without a baseline: %v", c.Saved)
	}
	learned := Learning([]Run{{Chain: []string{"a"}}, {Chain: []string{"a", "b"}, Turns: 3}}, []string{"a", "b"})
	if learned == nil || learned.Turns != 3 || Learning(nil, []string{"a"}) != nil {
		t.Errorf("learning run: %+v", learned)
	}
}

// FromRows keeps the rows' order and gives an empty list, not nil, for
// none (the window's JSON shows [] rather than null).
func TestFromRows(t *testing.T) {
	if got := FromRows(nil); got == nil || len(got) != 0 {
		t.Errorf("FromRows(nil) = %#v, want an empty list", got)
	}
	got := FromRows([]store.RunMetric{{RunSeq: 2, Followed: "p1"}, {RunSeq: 1}})
	if len(got) != 2 || got[0].RunSeq != 2 || got[1].RunSeq != 1 {
		t.Fatalf("order: %+v", got)
	}
	if got[0].Followed == nil || *got[0].Followed != "p1" || got[1].Followed != nil {
		t.Errorf("followed: %v, %v", got[0].Followed, got[1].Followed)
	}
}
