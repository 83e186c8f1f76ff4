package agent_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// TestClaimedReply: an answer saying a file was written that no call
// touched is sent back once a run, with a warning, naming the file; the
// model then does it (or says it was not done); an answer a call backs,
// or a second claim, is the answer.
func TestClaimedReply(t *testing.T) {
	for _, tc := range []struct {
		name   string
		turns  [][]api.ChatResponse
		calls  int
		answer string
		nudged bool
	}{
		{"does it when asked", [][]api.ChatResponse{text("I've saved the summary to notes.md."), call("echo", `{"text":"notes.md"}`), text("Saved to notes.md.")}, 3, "Saved to notes.md.", true},
		{"once a run", [][]api.ChatResponse{text("I've saved the summary to notes.md."), text("I wrote it to summary.md.")}, 2, "I wrote it to summary.md.", true},
		{"backed by a call", [][]api.ChatResponse{call("echo", `{"text":"notes.md"}`), text("I've saved the summary to notes.md.")}, 2, "I've saved the summary to notes.md.", false},
		{"not a claim", [][]api.ChatResponse{text("I couldn't save notes.md: the disk is full.")}, 1, "I couldn't save notes.md: the disk is full.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &scripted{turns: tc.turns}
			evs, err := collect(t, &agent.Agent{Model: m, Tools: tools{}})
			if err != nil {
				t.Fatal(err)
			}
			r := find[agent.Response](evs)
			if len(m.reqs) != tc.calls || len(r) != 1 || r[0].Text != tc.answer {
				t.Fatalf("%d model calls, responses %+v", len(m.reqs), r)
			}
			warned := slices.ContainsFunc(find[agent.Error](evs), func(e agent.Error) bool {
				return e.Kind == agent.KindWarning && strings.Contains(e.Message, "the model said notes.md was saved, but no tool call touched it")
			})
			told := len(m.reqs) > 1 && slices.ContainsFunc(m.reqs[1].Messages, func(msg api.Message) bool {
				return msg.Role == "user" && strings.Contains(msg.Content, "no tool call in this conversation touched notes.md, so nothing was done to it")
			})
			if warned != tc.nudged || told != tc.nudged {
				t.Fatalf("warned %v, told the model %v; want %v", warned, told, tc.nudged)
			}
		})
	}
}
