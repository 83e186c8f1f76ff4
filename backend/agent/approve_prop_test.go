package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// ledger records, in order, what the approver answered and what ran.
type ledger struct {
	mu      sync.Mutex
	entries []entry
}

type entry struct {
	kind      string // "allow", "deny", "run"
	name, arg string
}

func (l *ledger) add(e entry) {
	l.mu.Lock()
	l.entries = append(l.entries, e)
	l.mu.Unlock()
}

// randomApprover answers at random: allow, deny, fail or panic.
type randomApprover struct {
	rng *rand.Rand
	l   *ledger
}

func (a *randomApprover) Approve(_ context.Context, c agent.ToolCall) (agent.Decision, error) {
	switch a.rng.IntN(4) {
	case 0:
		a.l.add(entry{"allow", c.Name, string(c.Arguments)})
		return agent.Decision{Allow: true}, nil
	case 1:
		a.l.add(entry{"deny", c.Name, string(c.Arguments)})
		return agent.Decision{Reason: "no"}, nil
	case 2:
		a.l.add(entry{"deny", c.Name, string(c.Arguments)})
		return agent.Decision{Allow: true}, errors.New("the gate failed") // an error denies, whatever it says
	default:
		a.l.add(entry{"deny", c.Name, string(c.Arguments)})
		panic("the gate crashed")
	}
}

// recordingTools is tools{} that records each run in the ledger.
type recordingTools struct {
	tools
	l *ledger
}

func (r recordingTools) Run(ctx context.Context, name string, args json.RawMessage) (string, error) {
	r.l.add(entry{"run", name, string(args)})
	return r.tools.Run(ctx, name, args)
}

// TestOnlyApprovedCallsRun: over random runs (replies of one to three
// calls of tools that answer, fail, panic or do not exist, ids missing
// or repeated, the same call over and over) and an approver that allows,
// denies, fails or panics at random, a tool runs only right after the
// approver allowed that very call, once; every call gets exactly one
// result, in order; the run ends once, last.
func TestOnlyApprovedCallsRun(t *testing.T) {
	names := []string{"echo", "echo", "fail", "boom", "nosuch"}
	ids := []string{"", "c1", "c1", "c2"}
	seen := map[string]int{} // what the runs exercised, so the test cannot pass idle
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 99))
		var turns [][]api.ChatResponse
		for range 1 + rng.IntN(6) {
			var tcs []api.ToolCall
			for range 1 + rng.IntN(3) {
				a := api.NewToolCallFunctionArguments()
				a.Set("n", rng.IntN(3))
				tcs = append(tcs, api.ToolCall{ID: ids[rng.IntN(len(ids))], Function: api.ToolCallFunction{Name: names[rng.IntN(len(names))], Arguments: a}})
			}
			turns = append(turns, []api.ChatResponse{{Message: api.Message{Role: "assistant", ToolCalls: tcs}}, {Done: true}})
		}
		turns = append(turns, text("done"))
		l := &ledger{}
		a := &agent.Agent{Model: &scripted{turns: turns}, Tools: recordingTools{l: l}, Approver: &randomApprover{rng: rand.New(rand.NewPCG(seed, 7)), l: l}}
		evs, _ := collect(t, a)
		where := fmt.Sprintf("seed %d", seed)

		for i, e := range l.entries {
			if e.kind != "run" {
				continue
			}
			if i == 0 || l.entries[i-1] != (entry{"allow", e.name, e.arg}) {
				t.Fatalf("%s: %s %s ran without being allowed just before: %v", where, e.name, e.arg, l.entries[:i+1])
			}
		}
		allowed, ran := 0, 0
		for _, e := range l.entries {
			seen[e.kind+" "+e.name]++
			switch e.kind {
			case "allow":
				allowed++
			case "run":
				ran++
			}
		}
		if ran != allowed {
			t.Fatalf("%s: %d calls allowed, %d ran: %v", where, allowed, ran, l.entries)
		}

		var open *agent.ToolCall
		calls, results, denied := 0, 0, 0
		for i, e := range evs {
			switch d := e.Data.(type) {
			case agent.ToolCall:
				if open != nil {
					t.Fatalf("%s: call %s before call %s had its result", where, d.ID, open.ID)
				}
				open = &d
				calls++
			case agent.ToolResult:
				if open == nil || d.ID != open.ID || d.Name != open.Name {
					t.Fatalf("%s: result %+v for call %+v", where, d, open)
				}
				open = nil
				results++
				if d.Denied {
					denied++
				}
			case agent.RunEnded:
				if i != len(evs)-1 {
					t.Fatalf("%s: run:ended is event %d of %d", where, i, len(evs))
				}
				if d.Denied != denied {
					t.Fatalf("%s: run:ended counts %d denied, the results %d", where, d.Denied, denied)
				}
			}
		}
		if open != nil || calls != results {
			t.Fatalf("%s: %d calls, %d results, open %+v", where, calls, results, open)
		}
		seen["status "+find[agent.RunEnded](evs)[0].Status]++
	}
	for _, k := range []string{"run echo", "run fail", "run boom", "deny echo", "status " + agent.StatusResponded, "status " + agent.StatusError} {
		if seen[k] == 0 {
			t.Errorf("no %q in 400 runs: %v", k, seen)
		}
	}
	t.Logf("exercised: %v", seen)
}
