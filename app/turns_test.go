package app

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestParseMaxTurns: a whole number from 3 to MostTurns; empty is the
// default; anything else says what to give.
func TestParseMaxTurns(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"", 0, true}, {" 50 ", 50, true}, {"3", 3, true}, {"500", 500, true},
		{"2", 0, false}, {"501", 0, false}, {"fifty", 0, false}, {"12.5", 0, false}, {"-4", 0, false},
	} {
		n, err := ParseMaxTurns(tc.in)
		if n != tc.want || (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), "give for example 50")) {
			t.Errorf("ParseMaxTurns(%q) = %d, %v", tc.in, n, err)
		}
	}
}

// TestTurnLimit: a request runs with the turn limit it gives, else
// SHRIMP_MAX_TURNS, else Settings, else the default; a limit that cannot
// be taken is refused before anything runs, and a run stopped by the
// limit says where to raise it.
func TestTurnLimit(t *testing.T) {
	// A model that never answers, each call another (no circle).
	var forever []ollamatest.Reply
	for i := range 120 {
		forever = append(forever, ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": fmt.Sprint("folder", i)}}))
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: forever})
	a := openApp(t, t.TempDir(), srv.URL)
	ctx := context.Background()
	turns := func(o ChatOptions) (int, string) {
		t.Helper()
		o.Workspace, o.Text, o.Approve = t.TempDir(), "look around", approval.ModeAll
		_, events, err := ask(t, a, o)
		if err == nil {
			t.Fatal("a model that never answers ended without an error")
		}
		for _, e := range events {
			if d, ok := e.Data.(agent.RunEnded); ok {
				return d.Turns, d.Error
			}
		}
		t.Fatal("no run-ended event")
		return 0, ""
	}
	if n, why := turns(ChatOptions{}); n != DefaultMaxTurns || !strings.Contains(why, agent.RaiseTurns) {
		t.Errorf("default: %d turns (%q), want %d and where to raise it", n, why, DefaultMaxTurns)
	}
	if err := a.SetMaxTurns(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if n, _ := turns(ChatOptions{}); n != 4 {
		t.Errorf("Settings' 4: %d turns", n)
	}
	if n, _ := turns(ChatOptions{MaxTurns: 6}); n != 6 {
		t.Errorf("the request's own 6: %d turns", n)
	}
	t.Setenv(MaxTurnsEnv, "5")
	if n, _ := turns(ChatOptions{}); n != 5 {
		t.Errorf("SHRIMP_MAX_TURNS=5 over Settings: %d turns", n)
	}
	t.Setenv(MaxTurnsEnv, "lots")
	if _, _, _, err := a.Chat(ctx, ChatOptions{Workspace: t.TempDir(), Text: "look around", Approve: approval.ModeAll}); err == nil || !strings.Contains(err.Error(), "SHRIMP_MAX_TURNS") {
		t.Errorf("a bad SHRIMP_MAX_TURNS: %v", err)
	}
	t.Setenv(MaxTurnsEnv, "")
	if _, _, _, err := a.Chat(ctx, ChatOptions{Workspace: t.TempDir(), Text: "look around", MaxTurns: 1000}); err == nil || !strings.Contains(err.Error(), "from 3 to 500") {
		t.Errorf("a request's turn limit of 1000: %v", err)
	}
	if err := a.SetMaxTurns(ctx, 1); err == nil {
		t.Error("Settings took a turn limit of 1")
	}
	if err := a.SetMaxTurns(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if n, err := a.MaxTurns(ctx); n != DefaultMaxTurns || err != nil {
		t.Errorf("back to the default: %d, %v", n, err)
	}
}
