package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// world is a fake registry whose results depend on the arguments and,
// for some tools, on how many calls came before: look gives what a path
// holds (always the same), tick a new word each time, clock the same
// words with a new number each time, poll "queued" and then "running".
type world struct{ calls int }

func (*world) Specs() api.Tools { return nil }
func (*world) Check(name string, _ json.RawMessage) error {
	switch name {
	case "look", "tick", "clock", "poll":
		return nil
	}
	return errors.New("unknown tool; available tools: look, tick, clock, poll")
}
func (w *world) Run(_ context.Context, name string, args json.RawMessage) (string, error) {
	w.calls++
	var in struct {
		Path string `json:"path"`
		Deep bool   `json:"deep"`
	}
	_ = json.Unmarshal(args, &in)
	switch name {
	case "tick":
		return strings.Repeat("tock ", w.calls), nil
	case "clock":
		return fmt.Sprintf("ok  \tpkg\t0.%03ds\nran at 12:%02d", w.calls*7, w.calls), nil
	case "poll":
		return []string{"queued", "running", "running"}[min(w.calls, 3)-1], nil
	}
	if in.Path == "missing" {
		return "", errors.New("missing does not exist")
	}
	return fmt.Sprintf("%s holds a.txt (deep %v)", in.Path, in.Deep), nil
}

// denyTick denies every tick.
type denyTick struct{}

func (denyTick) Approve(_ context.Context, c agent.ToolCall) (agent.Decision, error) {
	return agent.Decision{Allow: c.Name != "tick", Reason: "not now"}, nil
}

// stubAll is a Context that stubs every tool output but the newest, as
// the prompt fitter does to old outputs when the context is short.
type stubAll struct{}

func (stubAll) Fit(_ context.Context, msgs []api.Message, _ api.Tools, _, _ int) ([]api.Message, []agent.Event, error) {
	out := slices.Clone(msgs)
	newest := len(out) - 1
	for newest >= 0 && out[newest].Role != "tool" {
		newest--
	}
	for i := range newest {
		if out[i].Role == "tool" {
			out[i].Content = "[output of " + out[i].ToolName + " omitted to save context; call " + out[i].ToolName + " again if you need it]"
		}
	}
	return out, nil, nil
}

// stubPath is a Context that stubs every output of look at path but the
// newest, and leaves the others whole.
type stubPath string

func (p stubPath) Fit(_ context.Context, msgs []api.Message, _ api.Tools, _, _ int) ([]api.Message, []agent.Event, error) {
	out := slices.Clone(msgs)
	for i := range out {
		if i < len(out)-1 && out[i].Role == "tool" && strings.HasPrefix(out[i].Content, string(p)+" holds") {
			out[i].Content = "[output of look omitted to save context; call look again if you need it]"
		}
	}
	return out, nil, nil
}

// calls joins turns of one call each into one reply.
func calls(turns ...[]api.ChatResponse) []api.ChatResponse {
	reply := api.ChatResponse{Message: api.Message{Role: "assistant"}}
	for i, t := range turns {
		tc := t[0].Message.ToolCalls[0]
		tc.ID = fmt.Sprint("c", i)
		reply.Message.ToolCalls = append(reply.Message.ToolCalls, tc)
	}
	return []api.ChatResponse{reply, {Done: true}}
}

// TestCircles: a model going round in circles (the same few calls, each
// giving what it gave before) is told so at each repeat and stopped once
// the same circle went round three times; calls whose results change,
// or that did not run, are no circle.
func TestCircles(t *testing.T) {
	look := func(path string) []api.ChatResponse { return call("look", `{"path":"`+path+`"}`) }
	const same, again = "gave this same result", "repeating them once more stops the request"
	const refetch = "left out of your view to fit the model's context"
	tests := []struct {
		name      string
		turns     [][]api.ChatResponse
		approver  agent.Approver
		fit       agent.Context
		status    string
		stopped   string   // in the run's error
		notes     []string // per result: what its note says ("-": no note; the call that ends the run has none)
		repeated  int
		refetched int
	}{
		{"two calls round three times", [][]api.ChatResponse{look("a"), look("b"), look("a"), look("b"), look("a"), look("b"), text("never")},
			nil, nil, agent.StatusError, "went round in circles: it made the same 2 calls in a row three times over",
			[]string{"-", "-", "2 calls ago", same + " 2 calls ago in this request: what it looks at has not changed, and calling it again will not tell you more. Go on with what you have; to wait for something to change, run one command that waits for it rather than asking again. Your last 2 calls repeat the 2 before them, with the same results: " + again + ".]", "", "-"}, 4, 0},
		{"three calls round three times", [][]api.ChatResponse{look("a"), look("b"), look("c"), look("a"), look("b"), look("c"), look("a"), look("b"), look("c"), text("never")},
			nil, nil, agent.StatusError, "same 3 calls in a row three times over", []string{"-", "-", "-", "3 calls ago", "", "Your last 3 calls repeat the 3 before them", "", "", "-"}, 6, 0},
		{"round twice, then an answer", [][]api.ChatResponse{look("a"), look("b"), look("a"), look("b"), text("done")},
			nil, nil, agent.StatusResponded, "", []string{"-", "-", same, again}, 2, 0},
		{"the same call twice in a row", [][]api.ChatResponse{look("a"), look("a"), text("done")},
			nil, nil, agent.StatusResponded, "", []string{"-", "one call ago in this request: what it looks at has not changed, and calling it again will not tell you more. Go on with what you have; to wait for something to change, run one command that waits for it rather than asking again. Calling it a third time in a row stops the request.]"}, 1, 0},
		{"arguments in another order are the same call", [][]api.ChatResponse{call("look", `{"path":"a","deep":true}`), call("look", `{"deep":true,"path":"a"}`), text("done")},
			nil, nil, agent.StatusResponded, "", []string{"-", same}, 1, 0},
		{"an error given again is a repeat too", [][]api.ChatResponse{look("missing"), look("b"), look("missing"), text("done")},
			nil, nil, agent.StatusResponded, "", []string{"-", "-", same}, 1, 0},
		{"a result that changes is no repeat", [][]api.ChatResponse{call("tick", `{}`), look("b"), call("tick", `{}`), look("b"), call("tick", `{}`), look("b"), text("done")},
			nil, nil, agent.StatusResponded, "", []string{"-", "-", "-", same, "-", same}, 2, 0},
		{"numbers alone changing is a repeat", [][]api.ChatResponse{call("clock", `{}`), look("b"), call("clock", `{}`), look("b"), call("clock", `{}`), look("b"), text("never")},
			nil, nil, agent.StatusError, "went round in circles", []string{"-", "-", same, again, "", "-"}, 4, 0},
		{"calls denied break the circle", [][]api.ChatResponse{look("a"), call("tick", `{}`), look("a"), call("tick", `{}`), look("a"), call("tick", `{}`), text("done")},
			denyTick{}, nil, agent.StatusResponded, "", []string{"-", "-", same, "-", same, "-"}, 2, 0},
		// The same call in a row: its result moving on, it may go on (a
		// status polled while a build runs); given the same, or not run,
		// the third is not run.
		{"a status polled while it changes", [][]api.ChatResponse{call("tick", `{}`), call("tick", `{}`), call("tick", `{}`), call("tick", `{}`), call("tick", `{}`), text("done")},
			nil, nil, agent.StatusResponded, "", []string{"-", "-", "-", "-", "-"}, 0, 0},
		{"the same call three times, the same each time", [][]api.ChatResponse{look("a"), look("a"), look("a"), text("never")},
			nil, nil, agent.StatusError, "called look with the same arguments three times in a row", []string{"-", "Calling it a third time in a row stops the request", "-"}, 1, 0},
		{"the same call three times, denied each time", [][]api.ChatResponse{call("tick", `{}`), call("tick", `{}`), call("tick", `{}`), text("never")},
			denyTick{}, nil, agent.StatusError, "called tick with the same arguments three times in a row", []string{"-", "-", "-"}, 0, 0},
		{"a status that stops changing", [][]api.ChatResponse{call("poll", `{}`), call("poll", `{}`), call("poll", `{}`), call("poll", `{}`), text("never")},
			nil, nil, agent.StatusError, "called poll with the same arguments three times in a row", []string{"-", "-", "Calling it a third time in a row stops the request", "-"}, 1, 0},
		// Results the model no longer sees (stubbed to fit the context,
		// which tells it to call again) are not repeated by calling again:
		// they are refetched, and said so once the calls went round twice.
		{"a result out of view is no repeat", [][]api.ChatResponse{look("a"), look("b"), look("a"), look("b"), text("done")},
			nil, stubAll{}, agent.StatusResponded, "", []string{"-", "-", "-", refetch}, 0, 2},
		// But going round a third time, the context cannot hold them.
		{"refetched round three times", [][]api.ChatResponse{look("a"), look("b"), look("a"), look("b"), look("a"), look("b"), text("never")},
			nil, stubAll{}, agent.StatusError, "context (8192 tokens) cannot hold what this request reads: it made the same 2 calls in a row three times over",
			[]string{"-", "-", "-", "your last 2 calls gave what they gave before; each result was left out of your view to fit the model's context, which cannot hold them all at once. Write down in your reply what you need from a result before the next call, or answer from what you see now: calling them round once more stops the request.]", "", "-"}, 0, 4},
		{"one call refetched, one repeated", [][]api.ChatResponse{look("a"), look("b"), look("a"), look("b"), look("a"), look("b"), text("never")},
			nil, stubPath("b"), agent.StatusError, "cannot hold what this request reads", []string{"-", "-", same + " 2 calls ago", refetch, same, "-"}, 2, 2},
		// The same call twice in one reply runs once (the second is
		// marked a repeat, not run); asked again later, it repeats the
		// one that ran.
		{"the same call twice in one reply", [][]api.ChatResponse{calls(look("a"), look("a")), look("b"), look("a"), text("done")},
			nil, nil, agent.StatusResponded, "", []string{"-", "-", "-", "2 calls ago"}, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &agent.Agent{Model: &scripted{turns: tt.turns}, Tools: &world{}, Approver: tt.approver, Context: tt.fit, MaxTurns: 20}
			evs, err := collect(t, a)
			ended := find[agent.RunEnded](evs)[0]
			if ended.Status != tt.status || !strings.Contains(ended.Error, tt.stopped) || (tt.stopped == "") != (err == nil) {
				t.Fatalf("run ended %s (%q, error %v), want %s with %q", ended.Status, ended.Error, err, tt.status, tt.stopped)
			}
			results := find[agent.ToolResult](evs)
			if len(results) != len(tt.notes) {
				t.Fatalf("%d results, want %d", len(results), len(tt.notes))
			}
			for i, r := range results {
				noted := strings.Contains(r.Output, "[Shrimp: ")
				twice := strings.HasPrefix(r.Error, "not run: the same call as ")
				if stopping := tt.stopped != "" && i == len(results)-1; r.Repeated && !noted && !stopping && !twice || noted && !r.Repeated && !r.Refetched || r.Repeated && r.Refetched {
					t.Errorf("result %d: repeated %v, refetched %v, noted %v", i+1, r.Repeated, r.Refetched, noted)
				}
				if want := tt.notes[i]; want == "-" && noted || want != "-" && (!noted || !strings.Contains(r.Output, want)) {
					t.Errorf("result %d: %q, want a note with %q", i+1, r.Output, want)
				}
			}
			if ended.Repeated != tt.repeated {
				t.Errorf("%d calls repeated, want %d", ended.Repeated, tt.repeated)
			}
			if n := len(lo.Filter(results, func(r agent.ToolResult, _ int) bool { return r.Refetched })); n != tt.refetched || ended.Refetched != n {
				t.Errorf("%d calls refetched (%d counted at the run's end), want %d", n, ended.Refetched, tt.refetched)
			}
		})
	}
}

// TestSameCallTwiceInAReply: a reply that holds one call several times
// (Gemma 4 has been seen to repeat one nine times) has it run once, the
// others answered "not run" naming the one that ran; different calls of
// one reply all run; and the run goes on to its answer.
func TestSameCallTwiceInAReply(t *testing.T) {
	w := &world{}
	a := &agent.Agent{Model: &scripted{turns: [][]api.ChatResponse{
		calls(call("tick", `{}`), call("tick", `{}`), call("look", `{"path":"a"}`), call("tick", `{}`), call("look", `{"path":"b"}`)),
		text("done"),
	}}, Tools: w, MaxTurns: 5}
	evs, err := collect(t, a)
	if err != nil {
		t.Fatal(err)
	}
	if w.calls != 3 {
		t.Errorf("the tools ran %d times, want 3 (tick once, look twice)", w.calls)
	}
	results := find[agent.ToolResult](evs)
	var notRun []string
	for _, r := range results {
		if r.Error != "" {
			notRun = append(notRun, r.ID+": "+r.Error)
			if !r.Repeated || !strings.Contains(r.Error, "not run: the same call as c0 just before it in this reply") {
				t.Errorf("result %s: %+v", r.ID, r)
			}
		}
	}
	if len(results) != 5 || len(notRun) != 2 || results[1].Error == "" || results[3].Error == "" {
		t.Errorf("results %+v, want the second and fourth not run", results)
	}
	if ended := find[agent.RunEnded](evs)[0]; ended.Status != agent.StatusResponded || ended.Repeated != 2 {
		t.Errorf("run ended %+v", ended)
	}
}
