package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

func TestStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.CreateSession(ctx, Session{ID: "a", Title: "hello", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	args := api.NewToolCallFunctionArguments()
	args.Set("path", ".")
	msgs := []api.Message{{Role: "user", Content: "hi"}, {Role: "assistant", ToolCalls: []api.ToolCall{{ID: "c", Function: api.ToolCallFunction{Name: "fs.list", Arguments: args}}}}, {Role: "tool", Content: "x", ToolName: "fs.list", ToolCallID: "c"}}
	if err := s.AppendMessages(ctx, "a", msgs); err != nil {
		t.Fatal(err)
	}
	got, err := s.Messages(ctx, "a")
	if err != nil || len(got) != 3 || got[1].ToolCalls[0].Function.Arguments.String() != `{"path":"."}` || got[2].ToolCallID != "c" {
		t.Fatalf("messages %+v %v", got, err)
	}
	evs := []agent.Event{{Session: "a", Seq: 1, Type: agent.TypeRunStarted, Time: time.Now(), Data: agent.RunStarted{Text: "hi"}}, {Session: "a", Seq: 2, Type: agent.TypeToken, Time: time.Now(), Data: agent.Delta{Text: "yo"}}}
	if err := s.AppendEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	// Writing the same seq again is a no-op, not a duplicate.
	if err := s.AppendEvents(ctx, evs[1:]); err != nil {
		t.Fatal(err)
	}
	back, err := s.Events(ctx, "a", 1)
	if err != nil || len(back) != 1 || back[0].Seq != 2 || string(back[0].Data.(json.RawMessage)) != `{"text":"yo"}` {
		t.Fatalf("events %+v %v", back, err)
	}
	if last, _ := s.LastSeq(ctx, "a"); last != 2 {
		t.Fatalf("last seq %d", last)
	}
	if err := s.AddUsage(ctx, "a", 10, 3, 40); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRule(ctx, "fs.write", "always"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Reopening applies no migration twice and keeps everything.
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := s.Session(ctx, "a")
	if err != nil || sess.PromptTokens != 10 || sess.CompletionTokens != 3 || sess.EvalMS != 40 {
		t.Fatalf("session %+v %v", sess, err)
	}
	if r, _ := s.Rule(ctx, "fs.write"); r != "always" {
		t.Fatalf("rule %q", r)
	}
	if mu, err := s.UsageByModel(ctx); err != nil || len(mu) != 1 || mu[0].Model != "m" || mu[0].PromptTokens != 10 {
		t.Fatalf("usage by model %+v %v", mu, err)
	}
	if err := s.DeleteSession(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if evs, _ := s.Events(ctx, "a", 0); len(evs) != 0 {
		t.Fatalf("events survived delete: %d", len(evs))
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.Create(&migration{Version: 99, Applied: time.Now()}).Error; err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "newer Shrimp") {
		t.Fatalf("Open = %v", err)
	}
}

// TestMigratesAnOldDatabase: a database made by schema 3 (no eval_ms column)
// is upgraded in place and keeps its rows.
func TestMigratesAnOldDatabase(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.CreateSession(ctx, Session{ID: "old", Title: "kept"}); err != nil {
		t.Fatal(err)
	}
	// Make it look like schema 3.
	for _, q := range []string{"ALTER TABLE sessions DROP COLUMN eval_ms", "DELETE FROM schema_migrations WHERE version = 4"} {
		if err := s.db.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.AddUsage(ctx, "old", 1, 2, 3); err != nil {
		t.Fatal(err)
	}
	got, err := s.Session(ctx, "old")
	if err != nil || got.Title != "kept" || got.EvalMS != 3 {
		t.Fatalf("after migration: %+v %v", got, err)
	}
}
