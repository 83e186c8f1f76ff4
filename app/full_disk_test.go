package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
	"github.com/shrimp-harness/shrimp/internal/sqlite"
)

// TestFullDiskStopsTheRun: when the store cannot write (here SQLite says
// "database or disk is full", raised by a trigger another connection put
// on the events table while the model was thinking), the run stops before
// its next tool runs, with an error that names the data folder and says
// what to do; once writes work again the session goes on with what was
// saved. Runs used to go on unrecorded, tools included, with the failures
// only in the log.
func TestFullDiskStopsTheRun(t *testing.T) {
	var fill atomic.Bool
	var full func()    // makes the database refuse writes
	var fullEnd func() // makes it refuse a run's last event only
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == "user" && last.Content == "just answer" && fill.Load():
			fullEnd() // the disk fills as the run ends
			return ollamatest.Text("an answer that cannot be saved")
		case last.Role == "user" && strings.HasPrefix(last.Content, "write"):
			return ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "first.txt", "content": "1"}})
		case last.Role == "tool" && last.Content != "" && !strings.Contains(fmtMessages(req.Messages), "second.txt"):
			if fill.Load() {
				full()
			}
			return ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "second.txt", "content": "2"}})
		}
		return ollamatest.Text("done")
	}})
	data, ws := t.TempDir(), t.TempDir()
	a, err := Open(Config{DataDir: data, OllamaHost: srv.URL, Model: "m"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	other, err := sqlite.Open(a.Store.Path())
	if err != nil {
		t.Fatal(err)
	}
	full = func() {
		for _, table := range []string{"events", "messages"} {
			if err := other.Exec("CREATE TRIGGER IF NOT EXISTS full_" + table + " BEFORE INSERT ON " + table + " BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END").Error; err != nil {
				t.Error(err)
			}
		}
	}
	var last agent.Event // the last event a run yielded
	fullEnd = func() {
		if err := other.Exec("CREATE TRIGGER IF NOT EXISTS full_end BEFORE INSERT ON events WHEN NEW.type = 'agent:run-ended' BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END").Error; err != nil {
			t.Error(err)
		}
	}
	run := func(session, text string) (string, error) {
		id, events, done, err := a.Chat(context.Background(), ChatOptions{SessionID: session, Workspace: ws, Text: text, Approve: approval.ModeAll})
		if err != nil {
			return id, err
		}
		defer done()
		for e, err := range events {
			if err != nil {
				return id, err
			}
			last = e
		}
		return id, nil
	}

	fill.Store(true)
	id, err := run("", "write two files")
	// The window learns that the run is over (it would wait for ever).
	if ended, ok := last.Data.(agent.RunEnded); !ok || ended.Status != agent.StatusError || !strings.Contains(ended.Error, "free some space") || ended.ToolCalls != 1 {
		t.Errorf("the run's last event is %s %+v, want its end with the error and the one call that ran", last.Type, last.Data)
	}
	if !errors.Is(err, session.ErrNotSaved) || !strings.Contains(err.Error(), data) || !strings.Contains(err.Error(), "database or disk is full") || !strings.Contains(err.Error(), "free some space") {
		t.Fatalf("want a run stopped with an error naming %s and what to do, got %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "first.txt")); err != nil {
		t.Errorf("the first tool, recorded, should have run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "second.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the second tool ran though its call could not be recorded (%v)", err)
	}

	// Space is freed: the session goes on, from what was saved.
	fill.Store(false)
	for _, table := range []string{"events", "messages"} {
		if err := other.Exec("DROP TRIGGER full_" + table).Error; err != nil {
			t.Fatal(err)
		}
	}
	if _, err := run(id, "thanks"); err != nil {
		t.Fatalf("after space was freed: %v", err)
	}
	// A run whose last event cannot be saved says so too, though no next
	// step comes to stop.
	fill.Store(true)
	if _, err := run(id, "just answer"); !errors.Is(err, session.ErrNotSaved) || !strings.Contains(err.Error(), "the end of this run is not saved") {
		t.Errorf("a run whose end could not be saved ended with %v", err)
	}
	fill.Store(false)
	if err := other.Exec("DROP TRIGGER full_end").Error; err != nil {
		t.Fatal(err)
	}
	msgs, err := a.Store.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, " "); got != "user assistant tool user assistant user assistant" {
		t.Errorf("stored history %q, want the first request, its recorded call and result, then the next two exchanges", got)
	}
}

func fmtMessages(ms []api.Message) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.Content)
		for _, tc := range m.ToolCalls {
			b.WriteString(tc.Function.Arguments.String())
		}
	}
	return b.String()
}
