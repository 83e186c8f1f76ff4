package agent_test

import (
	"testing"

	"github.com/ollama/ollama/api"
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
			sentBack(t, tc.turns, tools{}, tc.calls, tc.answer, tc.nudged,
				`the model's answer says "saved" of notes.md, but no tool call touched it`, "no tool call in this conversation touched notes.md, so nothing was done to it")
		})
	}
}
