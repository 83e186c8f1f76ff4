package usage

import (
	"context"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

type sink map[string][3]int64

func (s sink) AddUsage(_ context.Context, id string, prompt, completion int, evalMS int64) error {
	v := s[id]
	s[id] = [3]int64{v[0] + int64(prompt), v[1] + int64(completion), v[2] + evalMS}
	return nil
}

// sampled is the test's stand-in for an event reporting tokens beside a
// run's own (app's tool:sampled).
type sampled struct {
	model string
	u     agent.Usage
}

func TestTracker(t *testing.T) {
	store := sink{}
	var published []Updated
	tr := &Tracker{Sink: store,
		Emit: func(_ context.Context, _ string, _ agent.Type, data any) error {
			published = append(published, data.(Updated))
			return nil
		},
		Extra: func(e agent.Event) (string, agent.Usage, bool) {
			s, ok := e.Data.(sampled)
			return s.model, s.u, ok
		},
	}
	ended := func(session, status, model string, prompt, completion int, evalMS int64) agent.Event {
		return agent.Event{Session: session, Type: agent.TypeRunEnded, Data: agent.RunEnded{Status: status, Model: model,
			Usage: agent.Usage{PromptTokens: prompt, CompletionTokens: completion, EvalMS: evalMS}}}
	}
	for _, e := range []agent.Event{
		ended("s1", agent.StatusResponded, "qwen3", 100, 20, 1000),
		ended("s1", agent.StatusInterrupted, "qwen3", 999, 999, 999), // never reported: not counted
		ended("", agent.StatusResponded, "qwen3", 999, 999, 999),     // no session
		{Session: "s1", Type: "tool:sampled", Data: sampled{"qwen3", agent.Usage{PromptTokens: 50, CompletionTokens: 30, EvalMS: 500}}},
		{Session: "s1", Type: "agent:token", Data: agent.Delta{Text: "x"}},
		ended("s2", agent.StatusError, "llama3.2", 10, 0, 0),
	} {
		if err := tr.Handle(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	if got := store["s1"]; got != [3]int64{150, 50, 1500} {
		t.Fatalf("s1 stored %v", got)
	}
	if got := store["s2"]; got != [3]int64{10, 0, 0} {
		t.Fatalf("s2 stored %v", got)
	}
	if len(published) != 3 {
		t.Fatalf("published %d updates", len(published))
	}
	if last := published[1]; last.Session.PromptTokens != 150 || last.Session.CompletionTokens != 50 || last.ByModel.TokensPerSecond != 50.0/1.5 || last.Run.PromptTokens != 50 {
		t.Fatalf("after the sampling: %+v", last)
	}
}
