package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// TestSessionsAPageAtATime: the latest sessions a page at a time, with how
// many there are; a search the same way; and the usage chart's points,
// oldest first, from every session.
func TestSessionsAPageAtATime(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range 7 {
		sess := Session{ID: fmt.Sprint("s", i), Title: fmt.Sprint("request ", i), UpdatedAt: start.Add(time.Duration(i) * time.Hour), PromptTokens: 10 * i, CompletionTokens: i}
		if i%2 == 1 {
			sess.Title = fmt.Sprint("tidy the notes ", i)
		}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(ss []Session) []string {
		var out []string
		for _, x := range ss {
			out = append(out, x.ID)
		}
		return out
	}
	for _, tt := range []struct {
		name  string
		got   func() ([]Session, int, error)
		want  []string
		total int
	}{
		{"a page", func() ([]Session, int, error) { return s.RecentSessions(ctx, 3) }, []string{"s6", "s5", "s4"}, 7},
		{"more than there are", func() ([]Session, int, error) { return s.RecentSessions(ctx, 200) }, []string{"s6", "s5", "s4", "s3", "s2", "s1", "s0"}, 7},
		{"a search's page", func() ([]Session, int, error) { return s.SearchSessions(ctx, "TIDY", 2) }, []string{"s5", "s3"}, 3},
		{"a search that finds nothing", func() ([]Session, int, error) { return s.SearchSessions(ctx, "50%", 2) }, nil, 0},
		{"all", func() ([]Session, int, error) { return s.RecentSessions(ctx, 0) }, []string{"s6", "s5", "s4", "s3", "s2", "s1", "s0"}, 7},
		{"a search's all", func() ([]Session, int, error) { return s.SearchSessions(ctx, "TIDY", 0) }, []string{"s5", "s3", "s1"}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, total, err := tt.got()
			if err != nil || !slices.Equal(ids(got), tt.want) || total != tt.total {
				t.Fatalf("got %v of %d (%v), want %v of %d", ids(got), total, err, tt.want, tt.total)
			}
		})
	}
	points, err := s.UsagePoints(ctx)
	if err != nil || len(points) != 7 {
		t.Fatalf("usage points %v %v", points, err)
	}
	for i, p := range points {
		if p.Updated != start.Add(time.Duration(i)*time.Hour).Unix() || p.PromptTokens != 10*i || p.CompletionTokens != i {
			t.Errorf("point %d = %+v", i, p)
		}
	}
}

// TestMigratesSessionsIndex: a database from before the sessions' index
// (schema 26) gets it, and the latest sessions are read through it.
func TestMigratesSessionsIndex(t *testing.T) {
	s := reopenedOld(t, "DROP INDEX idx_sessions_updated_at", "DELETE FROM schema_migrations WHERE version = 27")
	var plan []struct {
		Detail string
	}
	if err := s.db.Raw("EXPLAIN QUERY PLAN SELECT * FROM sessions ORDER BY updated_at DESC LIMIT 200").Scan(&plan).Error; err != nil {
		t.Fatal(err)
	}
	if len(plan) == 0 || !slices.ContainsFunc(plan, func(p struct{ Detail string }) bool {
		return p.Detail == "SCAN sessions USING INDEX idx_sessions_updated_at"
	}) {
		t.Fatalf("the latest sessions are not read through the index: %+v", plan)
	}
	if got, total, err := s.RecentSessions(context.Background(), 5); err != nil || total != 1 || got[0].Title != "kept" {
		t.Fatalf("after migration: %v %d %v", got, total, err)
	}
}

// TestMigratesWorkspaceIndex: a database from before the folders' index
// (schema 28) gets it, and the recent folders are read through it.
func TestMigratesWorkspaceIndex(t *testing.T) {
	s := reopenedOld(t, "DROP INDEX idx_sessions_workspace_updated", "DELETE FROM schema_migrations WHERE version = 28")
	var plan []struct {
		Detail string
	}
	if err := s.db.Raw("EXPLAIN QUERY PLAN SELECT workspace, count(*), max(updated_at) AS last FROM sessions WHERE workspace != '' GROUP BY workspace").Scan(&plan).Error; err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(plan, func(p struct{ Detail string }) bool {
		return strings.Contains(p.Detail, "idx_sessions_workspace_updated")
	}) {
		t.Fatalf("the folders are not read through the index: %+v", plan)
	}
	if got, err := s.RecentWorkspaces(context.Background(), 5); err != nil || len(got) > 1 {
		t.Fatalf("after migration: %v %v", got, err)
	}
}

// BenchmarkSessionList50k: what the window's Sessions and Usage views read
// with 50,000 sessions stored: a page of the latest, every session's
// token counts, and (as both read before) every whole session.
func BenchmarkSessionList50k(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	err = s.db.Exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 50000)
		INSERT INTO sessions (id, title, model, workspace, created_at, updated_at, prompt_tokens, completion_tokens, eval_ms, outside)
		SELECT printf('%016x', i), 'make the build reproducible and fix the flaky test number ' || i, 'qwen3:latest', '/home/u/project-' || (i % 40),
		datetime('now', '-' || i || ' minutes'), datetime('now', '-' || i || ' minutes'), 1000, 200, 3000, '' FROM c`).Error
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("latest 200", func(b *testing.B) {
		for b.Loop() {
			if got, total, err := s.RecentSessions(ctx, 200); err != nil || len(got) != 200 || total != 50000 {
				b.Fatal(len(got), total, err)
			}
		}
	})
	b.Run("recent workspaces", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.RecentWorkspaces(ctx, 20); err != nil || len(got) != 20 || got[0].Sessions != 1250 {
				b.Fatal(got, err)
			}
		}
	})
	b.Run("usage points", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.UsagePoints(ctx); err != nil || len(got) != 50000 {
				b.Fatal(len(got), err)
			}
		}
	})
	b.Run("every session", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.Sessions(ctx); err != nil || len(got) != 50000 {
				b.Fatal(len(got), err)
			}
		}
	})
}

// TestRestoreLostSessions: messages and events whose session record is
// gone get one back, made from what they hold.
func TestRestoreLostSessions(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, id := range []string{"kept", "lost", "events-only"} {
		if err := s.CreateSession(ctx, Session{ID: id, Title: "t " + id, Model: "m1", Workspace: "/w/" + id}); err != nil {
			t.Fatal(err)
		}
	}
	long := strings.Repeat("ä", 100)
	if err := s.AppendMessages(ctx, "lost", []api.Message{{Role: "user", Content: long}, {Role: "assistant", Content: "done"}}); err != nil {
		t.Fatal(err)
	}
	started := agent.Event{Type: agent.TypeRunStarted, Session: "events-only", Seq: 1, Time: time.Date(2026, 11, 2, 3, 4, 5, 0, time.UTC), Data: agent.RunStarted{Model: "qwen3:8b", Text: "tidy the notes"}}
	ended := agent.Event{Type: agent.TypeRunEnded, Session: "events-only", Seq: 2, Time: time.Date(2026, 11, 2, 3, 9, 5, 0, time.UTC), Data: agent.RunEnded{}}
	if err := s.AppendEvents(ctx, []agent.Event{started, ended}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.KeepOutput(ctx, "lost", "/w/lost", "fs.read", "x"); err != nil {
		t.Fatal(err)
	}
	// The records' pages could not be read.
	if err := s.db.Exec("DELETE FROM sessions WHERE id != 'kept'").Error; err != nil {
		t.Fatal(err)
	}
	n, err := s.RestoreLostSessions(ctx)
	if err != nil || n != 2 {
		t.Fatalf("restored %d (%v), want 2", n, err)
	}
	lost, err := s.Session(ctx, "lost")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("ä", 80) + "…"; lost.Title != want || lost.Workspace != "/w/lost" || lost.CreatedAt.IsZero() {
		t.Errorf("lost: %+v", lost)
	}
	ev, err := s.Session(ctx, "events-only")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Title != "tidy the notes" || ev.Model != "qwen3:8b" || !ev.CreatedAt.Equal(started.Time) || !ev.UpdatedAt.Equal(ended.Time) {
		t.Errorf("events-only: %+v", ev)
	}
	if n, err := s.RestoreLostSessions(ctx); err != nil || n != 0 {
		t.Errorf("again: %d %v", n, err)
	}
}

// TestRecentWorkspaces: the folders sessions worked in, the most recently
// used first, each with its count of sessions; none for no folder.
func TestRecentWorkspaces(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i, ws := range []string{"/p/a", "/p/b", "/p/a", "", "/p/c", "/p/b", "/p/a"} {
		if err := s.CreateSession(ctx, Session{ID: fmt.Sprint("s", i), Workspace: ws, UpdatedAt: start.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.RecentWorkspaces(ctx, 2)
	if err != nil || len(got) != 2 || got[0].Workspace != "/p/a" || got[0].Sessions != 3 || got[1].Workspace != "/p/b" || got[1].Sessions != 2 {
		t.Fatalf("got %+v (%v), want /p/a (3), /p/b (2)", got, err)
	}
	if all, err := s.RecentWorkspaces(ctx, 10); err != nil || len(all) != 3 || all[2].Workspace != "/p/c" {
		t.Fatalf("all: %+v (%v)", all, err)
	}
}
