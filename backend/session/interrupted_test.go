package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// TestCloseInterrupted: a run whose process was killed is left as the
// runner wrote it (events queued and synced before each tool, messages
// kept whole turn by turn); the next open of the session ends it. Each
// case stores what a kill at one moment leaves and checks the events and
// the history added.
func TestCloseInterrupted(t *testing.T) {
	call := func(id string) agent.Event {
		return agent.Event{Type: agent.TypeToolCall, Data: agent.ToolCall{ID: id, Name: "shell.run", Arguments: json.RawMessage(`{"command":"make ` + id + `"}`)}}
	}
	result := func(id string) agent.Event {
		return agent.Event{Type: agent.TypeToolResult, Data: agent.ToolResult{ID: id, Name: "shell.run", Output: "ok " + id}}
	}
	asked := func(id string) agent.Event {
		return agent.Event{Type: approval.TypeRequested, Data: approval.Request{ID: id, Tool: "shell.run"}}
	}
	decided := func(id string, allow bool) agent.Event {
		return agent.Event{Type: approval.TypeDecided, Data: approval.Decided{ID: id, Tool: "shell.run", Allow: allow, By: "user"}}
	}
	started := agent.Event{Type: agent.TypeRunStarted, Data: agent.RunStarted{Model: "m", Text: "build it"}}
	token := agent.Event{Type: agent.TypeToken, Data: agent.Delta{Text: "Building."}}
	user := api.Message{Role: "user", Content: "build it"}
	turn := assistantWith("Building.", "c1", "c2")
	tests := []struct {
		name      string
		events    []agent.Event
		msgs      []api.Message
		closed    bool
		results   []string // call ids given an interrupted result event
		wantMsgs  []string // role:call id or role of the messages added
		toolCalls int
	}{
		{"killed in the turn's first call", []agent.Event{started, token, call("c1"), call("c2")}, []api.Message{user},
			true, []string{"c1", "c2"}, []string{"assistant:c1,c2", "tool:c1", "tool:c2"}, 2},
		{"killed in its second call", []agent.Event{started, token, call("c1"), call("c2"), result("c1")}, []api.Message{user, turn, toolMsg("c1")},
			true, []string{"c2"}, []string{"tool:c2"}, 2},
		{"the first result's event lost, its message kept", []agent.Event{started, token, call("c1"), call("c2")}, []api.Message{user, turn, toolMsg("c1")},
			true, []string{"c2"}, []string{"tool:c2"}, 2},
		{"the first result's message lost, its event kept", []agent.Event{started, token, call("c1"), call("c2"), result("c1")}, []api.Message{user},
			true, []string{"c2"}, []string{"assistant:c1,c2", "tool:c1", "tool:c2"}, 2},
		{"killed while the user was asked about a call", []agent.Event{started, token, call("c1"), asked("c1")}, []api.Message{user},
			true, []string{"c1"}, []string{"assistant:c1", "tool:c1"}, 1},
		{"killed as an allowed call started", []agent.Event{started, token, call("c1"), asked("c1"), decided("c1", true)}, []api.Message{user},
			true, []string{"c1"}, []string{"assistant:c1", "tool:c1"}, 1},
		{"killed while the model wrote", []agent.Event{started, token}, []api.Message{user},
			true, nil, nil, 0},
		{"killed after a whole turn", []agent.Event{started, token, call("c1"), call("c2"), result("c1"), result("c2"), token}, []api.Message{user, turn, toolMsg("c1"), toolMsg("c2")},
			true, nil, nil, 2},
		{"ended", []agent.Event{started, token, {Type: agent.TypeResponse, Data: agent.Response{Text: "Built."}}, {Type: agent.TypeRunEnded, Data: agent.RunEnded{Status: agent.StatusResponded}}, {Type: "memory:procedure-learned", Data: map[string]string{}}},
			[]api.Message{user, {Role: "assistant", Content: "Built."}}, false, nil, nil, 0},
		{"no run yet", nil, nil, false, nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _, r := open(t)
			rn := &Runner{Store: st, Recorder: r}
			ctx := context.Background()
			if err := st.CreateSession(ctx, store.Session{ID: "s"}); err != nil {
				t.Fatal(err)
			}
			// An earlier run, whole, that must be left alone.
			earlier := []agent.Event{
				{Type: agent.TypeRunStarted, Data: agent.RunStarted{Model: "m", Text: "hi"}},
				call("c1"), result("c1"),
				{Type: agent.TypeRunEnded, Data: agent.RunEnded{Status: agent.StatusResponded}},
			}
			if err := st.AppendMessages(ctx, "s", []api.Message{{Role: "user", Content: "hi"}, assistantWith("", "c1"), toolMsg("c1"), {Role: "assistant", Content: "Hello."}}); err != nil {
				t.Fatal(err)
			}
			if err := st.AppendMessages(ctx, "s", tt.msgs); err != nil {
				t.Fatal(err)
			}
			for _, e := range append(earlier, tt.events...) {
				if _, err := r.Record(ctx, "s", e); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			before, _ := st.Events(ctx, "s", 0)
			msgsBefore, _ := st.Messages(ctx, "s")

			closed, err := rn.CloseInterrupted(ctx, "s")
			if err != nil || closed != tt.closed {
				t.Fatalf("closed %v, %v; want %v", closed, err, tt.closed)
			}
			after, _ := st.Events(ctx, "s", int64(len(before)))
			var gotResults []string
			var ended *agent.RunEnded
			for _, e := range after {
				e = typed(e)
				switch d := e.Data.(type) {
				case agent.ToolResult:
					if want := wantError(tt.events, d.ID); d.Error != want {
						t.Errorf("result of %s: %q, want %q", d.ID, d.Error, want)
					}
					gotResults = append(gotResults, d.ID)
				case agent.RunEnded:
					ended = &d
				default:
					t.Errorf("unexpected event %s", e.Type)
				}
			}
			if strings.Join(gotResults, ",") != strings.Join(tt.results, ",") {
				t.Errorf("interrupted results for %v, want %v", gotResults, tt.results)
			}
			if tt.closed && (ended == nil || ended.Status != agent.StatusInterrupted || ended.Model != "m" || ended.ToolCalls != tt.toolCalls || after[len(after)-1].Type != agent.TypeRunEnded) {
				t.Errorf("run end %+v (last of %d)", ended, len(after))
			}
			if !tt.closed && len(after) > 0 {
				t.Errorf("events added to a run that needs none: %d", len(after))
			}
			msgs, _ := st.Messages(ctx, "s")
			var added []string
			for _, m := range msgs[len(msgsBefore):] {
				s := m.Role
				if m.Role == "tool" {
					s += ":" + m.ToolCallID
					want := "ok " + m.ToolCallID // the result kept
					if slices.Contains(tt.results, m.ToolCallID) {
						want = "error: " + wantError(tt.events, m.ToolCallID) + "\n"
					}
					if m.Content != want {
						t.Errorf("tool message %q, want %q", m.Content, want)
					}
				}
				var ids []string
				for _, c := range m.ToolCalls {
					ids = append(ids, c.ID)
					if c.Function.Arguments.String() != `{"command":"make `+c.ID+`"}` {
						t.Errorf("call %s arguments %s", c.ID, c.Function.Arguments.String())
					}
				}
				if len(ids) > 0 {
					s += ":" + strings.Join(ids, ",")
					if m.Content != "Building." {
						t.Errorf("assistant text %q", m.Content)
					}
				}
				added = append(added, s)
			}
			if strings.Join(added, " ") != strings.Join(tt.wantMsgs, " ") {
				t.Errorf("messages added %v, want %v", added, tt.wantMsgs)
			}
			// Once is enough.
			if again, err := rn.CloseInterrupted(ctx, "s"); again || err != nil {
				t.Errorf("closed again: %v %v", again, err)
			}
		})
	}
}

// TestRunningSessionIsLeftAlone: a session locked by a run (here or in
// another process: the same lock) is neither closed nor deleted, and a
// second request in it fails with ErrBusy, saying what to do.
func TestRunningSessionIsLeftAlone(t *testing.T) {
	st, _, r := open(t)
	rn := &Runner{Store: st, Recorder: r}
	ctx := context.Background()
	if err := st.CreateSession(ctx, store.Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Record(ctx, "s", agent.Event{Type: agent.TypeRunStarted, Data: agent.RunStarted{Text: "go"}}); err != nil {
		t.Fatal(err)
	}
	held, err := rn.lock("s", 0)
	if err != nil {
		t.Fatal(err)
	}
	if closed, err := rn.CloseInterrupted(ctx, "s"); closed || err != nil {
		t.Fatalf("a running session was closed: %v %v", closed, err)
	}
	if err := rn.Delete(ctx, "s"); !errors.Is(err, ErrBusy) {
		t.Fatalf("delete of a running session: %v", err)
	}
	_, _, err = rn.Run(ctx, &agent.Agent{}, Start{SessionID: "s", Request: agent.Request{Text: "again"}})
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "start a new session") {
		t.Fatalf("a second request in a running session: %v", err)
	}
	held.Close()
	if closed, err := rn.CloseInterrupted(ctx, "s"); !closed || err != nil {
		t.Fatalf("once the run let go: %v %v", closed, err)
	}
	if err := rn.Delete(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Session(ctx, "s"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted session: %v", err)
	}
	// Nothing is left in the folder of locks, whatever was asked of it.
	if _, err := rn.CloseInterrupted(ctx, "no-such-session"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("closing a session that does not exist: %v", err)
	}
	if err := rn.Delete(ctx, "no-such-session"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleting a session that does not exist: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(filepath.Dir(st.Path()), LocksDir)); len(left) != 0 {
		t.Fatalf("lock files left: %v", left)
	}
}

// wantError is the interrupted result a call should get: it did nothing
// when the user was asked and had not answered.
func wantError(events []agent.Event, id string) string {
	err := InterruptedError
	for _, e := range events {
		switch d := e.Data.(type) {
		case approval.Request:
			if d.ID == id {
				err = NotRunError
			}
		case approval.Decided:
			if d.ID == id && d.Allow {
				err = InterruptedError
			}
		}
	}
	return err
}

func assistantWith(text string, ids ...string) api.Message {
	m := api.Message{Role: "assistant", Content: text}
	for _, id := range ids {
		args := api.NewToolCallFunctionArguments()
		_ = args.UnmarshalJSON([]byte(`{"command":"make ` + id + `"}`))
		m.ToolCalls = append(m.ToolCalls, api.ToolCall{ID: id, Function: api.ToolCallFunction{Name: "shell.run", Arguments: args}})
	}
	return m
}

func toolMsg(id string) api.Message {
	return api.Message{Role: "tool", Content: "ok " + id, ToolName: "shell.run", ToolCallID: id}
}
