// Package usage keeps token accounting: a bus subscriber that adds each
// finished run's token counts to its session (in the store) and to running
// totals per session and per model, and publishes usage:updated.
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

	mu        sync.Mutex
	bySession map[string]*Totals
	byModel   map[string]*Totals
}

// Handle is the bus handler.
func (t *Tracker) Handle(ctx context.Context, e agent.Event) error {
	ended, ok := e.Data.(agent.RunEnded)
	// An interrupted run's end is recorded after its process died, with
	// nothing counted: what it used was never reported.
	if !ok || e.Type != agent.TypeRunEnded || e.Session == "" || ended.Status == agent.StatusInterrupted {
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
	m := t.byModel[ended.Model]
	if m == nil {
		m = &Totals{}
		t.byModel[ended.Model] = m
	}
	s.add(ended.Usage)
	m.add(ended.Usage)
	up := Updated{Model: ended.Model, Run: ended.Usage, Session: *s, ByModel: *m}
	t.mu.Unlock()
	if t.Sink != nil {
		if err := t.Sink.AddUsage(ctx, e.Session, ended.Usage.PromptTokens, ended.Usage.CompletionTokens, ended.Usage.EvalMS); err != nil {
			return err
		}
	}
	if t.Emit != nil {
		return t.Emit(ctx, e.Session, TypeUpdated, up)
	}
	return nil
}
