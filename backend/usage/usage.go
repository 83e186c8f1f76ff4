// Package usage keeps token accounting: a bus subscriber that adds each
// finished run's token counts to its session (in the store) and to running
// totals per session and per model, and publishes usage:updated. Tokens a
// session spent outside its runs' own model calls (an MCP server lent the
// model: Tracker.Extra) are added the same way, when they are reported.
package usage

import (
	"context"
	"sync"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// TypeUpdated is published after a run's usage was added.
const TypeUpdated agent.Type = "usage:updated"

// Totals are token counts and speed.
type Totals struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	EvalMS           int64   `json:"eval_ms"`
	TokensPerSecond  float64 `json:"tokens_per_second"` // completion tokens per second of generation
}

func (t *Totals) add(u agent.Usage) {
	t.PromptTokens += u.PromptTokens
	t.CompletionTokens += u.CompletionTokens
	t.EvalMS += u.EvalMS
	if t.EvalMS > 0 {
		t.TokensPerSecond = float64(t.CompletionTokens) / (float64(t.EvalMS) / 1000)
	}
}

// Updated is the data of [TypeUpdated].
type Updated struct {
	Model   string      `json:"model"`
	Run     agent.Usage `json:"run"`
	Session Totals      `json:"session"`
	ByModel Totals      `json:"model_totals"`
}

// Sink stores a session's added tokens.
type Sink interface {
	AddUsage(ctx context.Context, sessionID string, prompt, completion int, evalMS int64) error
}

// Tracker is the subscriber.
type Tracker struct {
	Sink Sink
	Emit func(ctx context.Context, sessionID string, t agent.Type, data any) error
	// Extra reads the tokens an event reports beside the runs' own (a
	// server's sampling), with the model that spent them; ok is false for
	// an event that reports none. Optional.
	Extra func(e agent.Event) (model string, u agent.Usage, ok bool)

	mu        sync.Mutex
	bySession map[string]*Totals
	byModel   map[string]*Totals
}

// Handle is the bus handler.
func (t *Tracker) Handle(ctx context.Context, e agent.Event) error {
	if e.Session == "" {
		return nil
	}
	var model string
	var u agent.Usage
	switch ended, ok := e.Data.(agent.RunEnded); {
	// An interrupted run's end is recorded after its process died, with
	// nothing counted: what it used was never reported.
	case ok && e.Type == agent.TypeRunEnded:
		if ended.Status == agent.StatusInterrupted {
			return nil
		}
		model, u = ended.Model, ended.Usage
	case t.Extra != nil:
		if model, u, ok = t.Extra(e); !ok {
			return nil
		}
	default:
		return nil
	}
	t.mu.Lock()
	if t.bySession == nil {
		t.bySession, t.byModel = map[string]*Totals{}, map[string]*Totals{}
	}
	s := t.bySession[e.Session]
	if s == nil {
		s = &Totals{}
		t.bySession[e.Session] = s
	}
	m := t.byModel[model]
	if m == nil {
		m = &Totals{}
		t.byModel[model] = m
	}
	s.add(u)
	m.add(u)
	up := Updated{Model: model, Run: u, Session: *s, ByModel: *m}
	t.mu.Unlock()
	if t.Sink != nil {
		if err := t.Sink.AddUsage(ctx, e.Session, u.PromptTokens, u.CompletionTokens, u.EvalMS); err != nil {
			return err
		}
	}
	if t.Emit != nil {
		return t.Emit(ctx, e.Session, TypeUpdated, up)
	}
	return nil
}
