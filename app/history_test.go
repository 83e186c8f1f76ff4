package app

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/internal/chatcheck"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestHistoryStaysWellFormed: however a run ends (answered, cancelled at
// any event, or its process gone at any event, which leaves it unended
// until the next request ends it "interrupted"), every request the model
// gets afterwards has a history of the shape models are trained on: each
// assistant message's tool calls answered by one tool message each, right
// after it, and no tool message without its call. A model shown a call
// with no result, or a result with no call, is left to guess what ran.
func TestHistoryStaysWellFormed(t *testing.T) {
	var mu sync.Mutex
	var bad []string
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		if err := chatcheck.WellFormed(req.Messages); err != nil {
			bad = append(bad, err.Error())
		}
		mu.Unlock()
		results := 0
		for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "user"; i-- {
			if req.Messages[i].Role == "tool" {
				results++
			}
		}
		if results >= 4 {
			return ollamatest.Text("All done.")
		}
		return ollamatest.Tools(
			ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "echo one"}},
			ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}},
		)
	}})
	a := openApp(t, t.TempDir(), srv.URL)
	ws := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 26))
	session := ""
	for round := range 40 {
		mode := rng.IntN(3) // 0: to its end, 1: cancelled at event k, 2: the consumer gone at event k
		k := rng.IntN(24)
		ctx, cancel := context.WithCancel(context.Background())
		id, events, done, err := a.Chat(ctx, ChatOptions{SessionID: session, Workspace: ws, Text: fmt.Sprintf("round %d", round), Approve: approval.ModeAll, NoMemory: true})
		if err != nil {
			cancel()
			t.Fatalf("round %d: %v", round, err)
		}
		session = id
		n := 0
		for _, err := range events {
			if err != nil {
				break
			}
			n++
			if n == k && mode == 1 {
				cancel()
			}
			if n == k && mode == 2 {
				break
			}
		}
		done()
		cancel()
		// An unended run's history is completed by the next request.
		if _, err := a.Runner.CloseInterrupted(context.Background(), session); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		msgs, err := a.Store.Messages(context.Background(), session)
		if err != nil {
			t.Fatal(err)
		}
		if err := chatcheck.WellFormed(msgs); err != nil {
			t.Fatalf("round %d (mode %d at event %d): the stored history: %v", round, mode, k, err)
		}
	}
	if err := a.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("%d requests had a malformed history, first: %s", len(bad), bad[0])
	}
	if len(srv.Requests()) < 40 {
		t.Fatalf("only %d requests reached the model", len(srv.Requests()))
	}
}
