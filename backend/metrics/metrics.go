// Package metrics measures every run, so that what procedural memory saves
// can be seen: a bus subscriber follows each run's events and, when it
// ends, stores one row (store.RunMetric) and publishes
// metrics:run-recorded with the same numbers.
//
// Its contract: a run is the events of one session from agent:run-started
// to agent:run-ended; the measures are the model turns, tool calls,
// malformed and denied calls, tokens in and out, the time to the first
// tool call and the wall time, how the run ended, the procedures recalled
// (with their scores) and the one it followed: a recalled procedure whose
// chain of tools the run repeated exactly, in order. Events are read from
// their JSON form, so the subscriber sees the same thing whether an event
// comes from the loop or from the store.
package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/procedures/chain"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// TypeRecorded is published when a run's measures are stored; its data
// is a [Run].
const TypeRecorded agent.Type = "metrics:run-recorded"

// Recall is one procedure a run was handed, with its score.
type Recall struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
}

// Run is one run's measures: `sessions export` carries it as `metrics`.
type Run struct {
	Session     string    `json:"session"`
	RunSeq      int64     `json:"run_seq"`
	Request     string    `json:"request"`
	Model       string    `json:"model"`
	Started     time.Time `json:"started"`
	Turns       int       `json:"turns"`
	ToolCalls   int       `json:"tool_calls"`
	Malformed   int       `json:"malformed_calls"`
	Denied      int       `json:"denied_calls"`
	Repeated    int       `json:"repeated_calls"`  // calls that gave what the same call had given earlier in the run
	Refetched   int       `json:"refetched_calls"` // calls made again because their result was left out to fit the context
	TokensIn    int       `json:"tokens_in"`
	TokensOut   int       `json:"tokens_out"`
	WallMS      int64     `json:"wall_ms"`
	FirstToolMS int64     `json:"first_tool_ms"` // -1 when no tool was called
	Recalled    []string  `json:"recalled"`      // procedure ids
	Scores      []Recall  `json:"recall_scores"`
	Followed    *string   `json:"followed"` // the recalled procedure the run repeated, or null
	Chain       []string  `json:"chain"`
	Status      string    `json:"status"`
}

// Sink stores a run's row.
type Sink interface {
	Save(ctx context.Context, m store.RunMetric) error
}

// Recorder is the subscriber. Emit publishes metrics:run-recorded for a
// session (nil: not published).
type Recorder struct {
	Sink Sink
	Emit func(ctx context.Context, session string, t agent.Type, data any) error

	mu   sync.Mutex
	open map[string]*pending
}

// pending is a run under way.
type pending struct {
	run    Run
	chains map[string][]string // recalled procedure id → its chain
	// sampled are the tokens the run's model was used for beside the
	// loop (an MCP server's sampling, a prompt hook's question), which
	// the loop's own count leaves out.
	sampledIn, sampledOut int
}

// typeSampled and typeJudged are the events of a use of the run's model
// beside the loop: an MCP server's (the app's TypeToolSampled), a prompt
// hook's (TypeHookJudged). Their data say the tokens the same way.
const (
	typeSampled agent.Type = "tool:sampled"
	typeJudged  agent.Type = "hook:judged"
)

// Wants reports the event types the recorder reads (its bus filter).
func Wants(t agent.Type) bool {
	switch t {
	case agent.TypeRunStarted, agent.TypeToolCall, agent.TypeToolResult, agent.TypeRunEnded, "memory:procedure-recalled", typeSampled, typeJudged:
		return true
	}
	return false
}

// Handle follows one event.
func (r *Recorder) Handle(ctx context.Context, e agent.Event) error {
	if e.Session == "" || !Wants(e.Type) {
		return nil
	}
	if e.Type == agent.TypeToolResult && !noStep(e.Data) {
		return nil // most results: nothing to note, and no output to copy
	}
	raw, err := json.Marshal(e.Data)
	if err != nil {
		return fmt.Errorf("metrics: read %s: %w", e.Type, err)
	}
	r.mu.Lock()
	if r.open == nil {
		r.open = map[string]*pending{}
	}
	p := r.open[e.Session]
	switch e.Type {
	case agent.TypeRunStarted:
		var d agent.RunStarted
		_ = json.Unmarshal(raw, &d)
		r.open[e.Session] = &pending{
			run:    Run{Session: e.Session, RunSeq: e.Seq, Request: d.Text, Model: d.Model, Started: e.Time, FirstToolMS: -1, Recalled: []string{}, Scores: []Recall{}, Chain: []string{}},
			chains: map[string][]string{},
		}
	case "memory:procedure-recalled":
		var d struct {
			Procedures []struct {
				ID    string   `json:"id"`
				Tools []string `json:"tools"`
				Score float64  `json:"score"`
			} `json:"procedures"`
		}
		if p != nil && json.Unmarshal(raw, &d) == nil {
			for _, pr := range d.Procedures {
				p.run.Recalled = append(p.run.Recalled, pr.ID)
				p.run.Scores = append(p.run.Scores, Recall{ID: pr.ID, Score: pr.Score})
				p.chains[pr.ID] = pr.Tools
			}
		}
	case agent.TypeToolCall:
		var d agent.ToolCall
		if p != nil && json.Unmarshal(raw, &d) == nil {
			if p.run.FirstToolMS < 0 {
				p.run.FirstToolMS = e.Time.Sub(p.run.Started).Milliseconds()
			}
			p.run.Chain = append(p.run.Chain, d.Name)
		}
	case typeSampled, typeJudged:
		var d struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
		}
		if p != nil && json.Unmarshal(raw, &d) == nil {
			p.sampledIn += d.Prompt
			p.sampledOut += d.Completion
		}
	case agent.TypeToolResult:
		// A call that did not run (malformed) or repeated a result is no
		// step of the chain, as the learner leaves it out of the procedure.
		if p != nil && len(p.run.Chain) > 0 {
			p.run.Chain = p.run.Chain[:len(p.run.Chain)-1]
		}
	case agent.TypeRunEnded:
		delete(r.open, e.Session)
		if p == nil {
			r.mu.Unlock()
			return nil // started before this subscriber did
		}
		var d agent.RunEnded
		_ = json.Unmarshal(raw, &d)
		p.run.Turns, p.run.ToolCalls, p.run.Malformed, p.run.Denied, p.run.Repeated, p.run.Refetched = d.Turns, d.ToolCalls, d.Malformed, d.Denied, d.Repeated, d.Refetched
		p.run.TokensIn, p.run.TokensOut = d.Usage.PromptTokens+p.sampledIn, d.Usage.CompletionTokens+p.sampledOut
		p.run.WallMS = e.Time.Sub(p.run.Started).Milliseconds()
		p.run.Status = d.Status
		if p.run.Model == "" {
			p.run.Model = d.Model
		}
		p.run.Followed = followed(p.run.Chain, p.run.Recalled, p.chains)
		r.mu.Unlock()
		return r.record(ctx, p.run)
	}
	r.mu.Unlock()
	return nil
}

// noStep reports whether a tool result's data is of a call that is no
// step of the run's chain (agent.ToolResult.Step), as the learner leaves
// it out of a procedure; data read back from the store comes as JSON.
func noStep(data any) bool {
	d, ok := data.(agent.ToolResult)
	if !ok {
		raw, err := json.Marshal(data)
		if err != nil || json.Unmarshal(raw, &d) != nil {
			return false
		}
	}
	return !d.Step()
}

// followed is the first recalled procedure whose chain the run repeated
// (the same tools in the same order, however often a step repeated:
// chain.Same; calls to the memory tools aside).
func followed(run, recalled []string, chains map[string][]string) *string {
	var done []string
	for _, t := range run {
		if t != "memory.procedures.forget" {
			done = append(done, t)
		}
	}
	for _, id := range recalled {
		if c := chains[id]; len(c) > 0 && chain.Same(c, done) {
			return &id
		}
	}
	return nil
}

func (r *Recorder) record(ctx context.Context, run Run) error {
	if r.Sink != nil {
		if err := r.Sink.Save(context.WithoutCancel(ctx), Row(run)); err != nil {
			return err
		}
	}
	if r.Emit != nil {
		return r.Emit(context.WithoutCancel(ctx), run.Session, TypeRecorded, run)
	}
	return nil
}

// Row is a run as stored.
func Row(run Run) store.RunMetric {
	rec, _ := json.Marshal(run.Scores)
	chain, _ := json.Marshal(run.Chain)
	m := store.RunMetric{SessionID: run.Session, RunSeq: run.RunSeq, Request: run.Request, Model: run.Model, StartedAt: run.Started,
		Turns: run.Turns, ToolCalls: run.ToolCalls, Malformed: run.Malformed, Denied: run.Denied, Repeated: run.Repeated, Refetched: run.Refetched, TokensIn: run.TokensIn, TokensOut: run.TokensOut,
		WallMS: run.WallMS, FirstToolMS: run.FirstToolMS, Recalled: string(rec), Chain: string(chain), Status: run.Status}
	if run.Followed != nil {
		m.Followed = *run.Followed
	}
	return m
}

// FromRows is stored runs, in their order (never nil).
func FromRows(rows []store.RunMetric) []Run {
	out := make([]Run, 0, len(rows))
	for _, r := range rows {
		out = append(out, FromRow(r))
	}
	return out
}

// FromRow is a stored run.
func FromRow(m store.RunMetric) Run {
	run := Run{Session: m.SessionID, RunSeq: m.RunSeq, Request: m.Request, Model: m.Model, Started: m.StartedAt,
		Turns: m.Turns, ToolCalls: m.ToolCalls, Malformed: m.Malformed, Denied: m.Denied, Repeated: m.Repeated, Refetched: m.Refetched, TokensIn: m.TokensIn, TokensOut: m.TokensOut,
		WallMS: m.WallMS, FirstToolMS: m.FirstToolMS, Status: m.Status, Recalled: []string{}, Scores: []Recall{}, Chain: []string{}}
	_ = json.Unmarshal([]byte(m.Recalled), &run.Scores)
	_ = json.Unmarshal([]byte(m.Chain), &run.Chain)
	for _, s := range run.Scores {
		run.Recalled = append(run.Recalled, s.ID)
	}
	if m.Followed != "" {
		f := m.Followed
		run.Followed = &f
	}
	return run
}
