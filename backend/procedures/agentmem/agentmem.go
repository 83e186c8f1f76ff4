// Package agentmem puts procedural memory in the agent loop: the recall
// hint the model gets before a request (Recaller, an agent.Recaller), the
// tool it calls to forget a procedure that misled it, the bus subscriber
// that learns procedures from finished runs (Learner), the recalls runs or
// the user declined (Declines), and the events they publish.
//
// Its contract: a run is learned only when it ended with an answer after
// procedures.MinChain or more tool calls, none of them denied (the forget
// tool's own calls are not part of the chain, nor calls that did not run
// because they named no tool that exists or arguments the tool refuses),
// by procedures.Memory.Learn (which learns nothing for a request taken
// for a forgotten procedure's task); a recalled procedure such a run (of any length) called none of
// the tools of, and did not call the forget tool on, is not offered for
// the request's wording again until the user restores it; the forget
// tool gives a procedure at most one demerit per run; each event carries
// a Summary of the procedure, never its examples.
package agentmem

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/procedures/chain"
	"github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/internal/jsoncut"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// Event types of procedural memory.
const (
	TypeLearned   agent.Type = "memory:procedure-learned"
	TypeUpdated   agent.Type = "memory:procedure-updated"
	TypeRecalled  agent.Type = "memory:procedure-recalled"
	TypeForgotten agent.Type = "memory:procedure-forgotten"
)

// hintRequest is how many characters of a procedure's request its hint
// quotes.
const hintRequest = 300

// ForgetToolName is the tool the model calls to demerit a procedure.
const ForgetToolName = "memory.procedures.forget"

// Summary is how a procedure appears in events.
type Summary struct {
	ID       string   `json:"id"`
	Trigger  string   `json:"trigger"`
	Tools    []string `json:"tools"`
	Chain    string   `json:"chain"`
	Uses     int      `json:"uses"`
	Demerits int      `json:"demerits"`
	Score    float64  `json:"score,omitempty"`
}

// Describe is p as events and the window name a procedure.
func Describe(p procedures.Procedure) Summary { return summary(p, 0) }

func summary(p procedures.Procedure, score float64) Summary {
	return Summary{ID: p.ID, Trigger: p.Trigger, Tools: p.Tools, Chain: chain.String(p.Tools), Uses: p.Uses, Demerits: p.Demerits, Score: score}
}

// Recalled is the data of [TypeRecalled].
type Recalled struct {
	Procedures []Summary `json:"procedures"`
}

// Forgotten is the data of [TypeForgotten].
type Forgotten struct {
	Procedure Summary `json:"procedure"`
	Reason    string  `json:"reason,omitempty"`
	ByUser    bool    `json:"by_user"`
	Dropped   bool    `json:"dropped"` // it no longer comes back in recall
}

// Recaller implements agent.Recaller over a Memory for one run.
type Recaller struct {
	Memory   *procedures.Memory
	Has      func(tool string) bool // the tools registered for the run
	Limit    int                    // default 3
	Declines *Declines              // recalls not offered again; may be nil
}

// Recall returns the hint for the model and a memory:procedure-recalled
// event, or nothing when no procedure is confident enough.
func (r *Recaller) Recall(ctx context.Context, request string) (string, []agent.Event, error) {
	limit := r.Limit
	if limit <= 0 {
		limit = 3
	}
	hits, err := r.Memory.Recall(ctx, request, r.Has, limit)
	if err != nil {
		return "", nil, err
	}
	if len(hits) > 0 {
		r.Declines.Fresh(ctx)
	}
	hits = slices.DeleteFunc(hits, func(h procedures.Hit) bool { return r.Declines.Has(h.Procedure.ID, request) })
	if len(hits) == 0 {
		return "", nil, nil
	}
	var b strings.Builder
	b.WriteString("Procedural memory: procedures stored from earlier requests that may fit this one.\n")
	data := Recalled{}
	for _, h := range hits {
		// The request on one line, cut: enough to tell the task, not the
		// material a long one wrapped (instruction.Of keeps up to 2 KB).
		fmt.Fprintf(&b, "- The earlier request %q (procedure %s) was handled by calling: %s\n", textcut.Line(h.Procedure.Trigger, hintRequest), h.Procedure.ID, chain.String(h.Procedure.Tools))
		data.Procedures = append(data.Procedures, summary(h.Procedure, h.Score))
	}
	// A recall for another task is recall's mistake, not the procedure's:
	// a new chore recalls a neighbouring procedure about half the time in a
	// store of fifty (docs/recall.md), and demerits for that would drop
	// good procedures. Only a wrong method earns one.
	b.WriteString("Use a method only if this request is the same task. If it is a different task, ignore it. If it is the same task but the method is wrong or out of date, call " + ForgetToolName + " with its id.")
	return b.String(), []agent.Event{{Type: TypeRecalled, Data: data}}, nil
}

// ForgetArgs are the forget tool's arguments.
type ForgetArgs struct {
	ID     string `json:"id" jsonschema_description:"the id of the recalled procedure whose method is wrong"`
	Reason string `json:"reason,omitempty" jsonschema_description:"what is wrong with its method"`
}

// ForgetTool returns memory.procedures.forget over m for one run: one
// demerit per procedure per run, so neither a careless model calling it
// over and over nor a page telling it to can drop a procedure in one run
// (that takes ForgetThreshold runs, or the user); emit publishes
// memory:procedure-forgotten.
func ForgetTool(m *procedures.Memory, emit func(ctx context.Context, t agent.Type, data any) error) tool.Tool {
	var mu sync.Mutex
	noted := map[string]bool{}
	return tool.Define(ForgetToolName, "Tell Shrimp that a recalled procedure's method is wrong or out of date for its task, so it is recalled less (and no more after a few times). A procedure recalled for a different task is not wrong: ignore it instead.", false,
		func(ctx context.Context, in ForgetArgs) (string, error) {
			mu.Lock()
			again := noted[in.ID]
			noted[in.ID] = true
			mu.Unlock()
			if again {
				return fmt.Sprintf("procedure %s already got its demerit in this request; nothing more is needed", in.ID), nil
			}
			p, err := m.Forget(ctx, in.ID, false)
			if err != nil {
				mu.Lock()
				delete(noted, in.ID)
				mu.Unlock()
				return "", err
			}
			dropped := !p.Recallable()
			if emit != nil {
				_ = emit(ctx, TypeForgotten, Forgotten{Procedure: summary(p, 0), Reason: in.Reason, Dropped: dropped})
			}
			if dropped {
				return fmt.Sprintf("procedure %s will no longer be recalled", p.ID), nil
			}
			return fmt.Sprintf("noted: procedure %s got a demerit (%d)", p.ID, p.Demerits), nil
		})
}

// Learner is the bus subscriber that learns procedures from finished runs
// and, with Declines set, records the recalls a run did not use: a run
// that ended with an answer, no call denied, and called none of a recalled
// procedure's tools (memory tools aside) declines it, unless the model
// called the forget tool on it.
type Learner struct {
	Memory   *procedures.Memory
	Declines *Declines // may be nil
	Emit     func(ctx context.Context, session string, t agent.Type, data any) error

	mu   sync.Mutex
	runs map[string]*runNotes // by session
}

type runNotes struct {
	request  string
	steps    []step
	denied   bool
	recalled []Summary
	forgot   []string // ids the model called the forget tool on
}

// step is one call of the run's chain.
type step struct {
	id, tool string
	args     json.RawMessage // bounded (jsoncut): kept as the procedure's example
}

// chain returns the steps' tools, in call order.
func (r *runNotes) chain() []string {
	return lo.Map(r.steps, func(s step, _ int) string { return s.tool })
}

// Handle follows each session's run and learns when it ended with an
// answer after procedures.MinChain or more tool calls, none denied.
func (l *Learner) Handle(ctx context.Context, e agent.Event) error {
	if e.Session == "" {
		return nil
	}
	l.mu.Lock()
	if l.runs == nil {
		l.runs = map[string]*runNotes{}
	}
	r := l.runs[e.Session]
	var done *runNotes
	switch d := e.Data.(type) {
	case agent.RunStarted:
		l.runs[e.Session] = &runNotes{request: d.Text}
	case agent.ToolCall:
		switch {
		case r == nil:
		case d.Name == ForgetToolName:
			var args ForgetArgs
			if json.Unmarshal(d.Arguments, &args) == nil {
				r.forgot = append(r.forgot, args.ID)
			}
		default:
			r.steps = append(r.steps, step{id: d.ID, tool: d.Name, args: jsoncut.Bound(d.Arguments)})
		}
	case agent.ToolResult:
		if r != nil && d.Denied {
			r.denied = true
		}
		// A call that never ran (a tool the model made up, arguments the
		// tool refuses) is no step of the method: a made-up tool in the
		// chain left the procedure stale from the start, never recalled.
		// Nor is a call that gave what it had given before (a model going
		// round in circles): it told the model nothing, and a procedure
		// learned with it would hand the next run the same detour.
		if r != nil && !d.Step() {
			if n := len(r.steps); n > 0 && r.steps[n-1].id == d.ID {
				r.steps = r.steps[:n-1]
			}
		}
	case Recalled:
		if r != nil {
			r.recalled = append(r.recalled, d.Procedures...)
		}
	case agent.RunEnded:
		delete(l.runs, e.Session)
		if r != nil && d.Status == agent.StatusResponded && !r.denied {
			done = r
		}
	}
	l.mu.Unlock()
	if done == nil {
		return nil
	}
	if err := l.decline(ctx, e.Session, done); err != nil {
		return err
	}
	if len(done.steps) < procedures.MinChain {
		return nil
	}
	examples := lo.Map(done.steps, func(s step, _ int) json.RawMessage { return s.args })
	res, err := l.Memory.Learn(ctx, done.request, done.chain(), examples, e.Session)
	if err != nil {
		return fmt.Errorf("learn procedure: %w", err)
	}
	if l.Emit == nil || res.Suppressed {
		return nil
	}
	t := TypeLearned
	if res.Merged {
		t = TypeUpdated
	}
	return l.Emit(ctx, e.Session, t, summary(res.Procedure, 0))
}

// decline records each procedure recalled for the run that it called none
// of the tools of. One the model called the forget tool on is left to its
// demerits: the model judged it the request's task with a wrong method,
// and it must be recalled again to be demerited again.
func (l *Learner) decline(ctx context.Context, session string, r *runNotes) error {
	if l.Declines == nil {
		return nil
	}
	chain := r.chain()
	for _, p := range r.recalled {
		if slices.Contains(r.forgot, p.ID) || slices.ContainsFunc(p.Tools, func(t string) bool { return slices.Contains(chain, t) }) {
			continue
		}
		added, err := l.Declines.Add(ctx, p.ID, r.request, session)
		if err != nil {
			return err
		}
		if added && l.Emit != nil {
			if err := l.Emit(ctx, session, TypeDeclined, Declined{Procedure: p, Request: r.request}); err != nil {
				return err
			}
		}
	}
	return nil
}
