package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/metrics"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestSessionContinuedByAnotherProcess: the window has a session open
// while `shrimp chat --session` (another process on the same data folder)
// adds a request to it; the window's next request in that session is
// stored after the other's, not refused for taking seqs already used.
// Each goes on at once after the other's run: what a run's subscribers
// record after its end (usage, measures) is stored before it lets go of
// the session, so the next run, waiting for it, numbers after those.
func TestSessionContinuedByAnotherProcess(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("one"), ollamatest.Text("two"), ollamatest.Text("three")}})
	data, ws := t.TempDir(), t.TempDir()
	request := func(a *App, session, text string) string {
		id, _, err := ask(t, a, ChatOptions{SessionID: session, Workspace: ws, Text: text, Approve: approval.ModeAll, NoMemory: true})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return id
	}
	window, cli := openApp(t, data, srv.URL), openApp(t, data, srv.URL)
	id := request(window, "", "first")
	request(cli, id, "second")
	request(window, id, "third")
	events, err := window.Store.Events(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	var requests []string
	measured := 0
	for i, e := range events {
		if i > 0 && e.Seq != events[i-1].Seq+1 {
			t.Errorf("seq %d after %d", e.Seq, events[i-1].Seq)
		}
		if e.Type == "agent:run-started" {
			requests = append(requests, string(e.Type))
		}
		if e.Type == metrics.TypeRecorded {
			measured++
		}
	}
	if len(requests) != 3 || measured != 3 {
		t.Errorf("%d runs stored and %d measures, want 3 and 3", len(requests), measured)
	}
}

// TestSessionRunTwiceAtOnce: the window and `shrimp chat --session` run
// the same session at the same time. Neither run may end as if saved with
// events missing (they collided on seqs and were dropped without a word):
// the second is refused before it starts ([session.ErrBusy], saying what
// to do) while the first runs on (it answers for longer than the second
// waits for it), and every event of the first is stored.
func TestSessionRunTwiceAtOnce(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		if strings.HasPrefix(req.Messages[len(req.Messages)-1].Content, "slow") {
			return ollamatest.Reply{Text: strings.SplitAfter(strings.Repeat("a slow answer in many small pieces ", 6), " "), Delay: 150 * time.Millisecond}
		}
		return ollamatest.Text("a quick answer")
	}})
	data, ws := t.TempDir(), t.TempDir()
	window, cli := openApp(t, data, srv.URL), openApp(t, data, srv.URL)
	type result struct {
		events []agent.Event
		err    error
	}
	run := func(a *App, session, text string, started chan<- string) result {
		id, events, done, err := a.Chat(context.Background(), ChatOptions{SessionID: session, Workspace: ws, Text: text, Approve: approval.ModeAll, NoMemory: true})
		if err != nil {
			return result{err: err}
		}
		defer done()
		var r result
		for e, err := range events {
			if err != nil {
				r.err = err
				break
			}
			r.events = append(r.events, e)
			if started != nil && e.Type == agent.TypeToken {
				started <- id
				started = nil
			}
		}
		if err := a.Settle(context.Background()); err != nil && r.err == nil {
			r.err = err
		}
		return r
	}
	first := run(window, "", "quick one", nil)
	if first.err != nil {
		t.Fatal(first.err)
	}
	id := ""
	{
		events, err := window.Store.Sessions(context.Background())
		if err != nil || len(events) != 1 {
			t.Fatalf("sessions: %v %v", events, err)
		}
		id = events[0].ID
	}
	started := make(chan string, 1)
	slow := make(chan result, 1)
	go func() { slow <- run(window, id, "slow one", started) }()
	<-started
	quick := run(cli, id, "quick two", nil)
	slowRes := <-slow
	stored, err := window.Store.Events(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	have := map[int64]string{} // seq: type and data as stored
	for _, e := range stored {
		raw, _ := e.RawData()
		have[e.Seq] = string(e.Type) + string(raw)
	}
	if !errors.Is(quick.err, session.ErrBusy) || !strings.Contains(quick.err.Error(), "start a new session") || len(quick.events) > 0 {
		t.Errorf("the CLI's run beside the window's: %v, %d events", quick.err, len(quick.events))
	}
	if slowRes.err != nil || len(slowRes.events) == 0 || slowRes.events[len(slowRes.events)-1].Type != agent.TypeRunEnded {
		t.Fatalf("the window's run: %v, %d events", slowRes.err, len(slowRes.events))
	}
	for _, e := range slowRes.events {
		if raw, _ := e.RawData(); have[e.Seq] != string(e.Type)+string(raw) {
			t.Fatalf("the window's run ended as saved, but its event %d (%s) is not stored: %q is", e.Seq, e.Type, have[e.Seq])
		}
	}
}

// TestTwoProcessesShareProcedures: with the window open (it owns the
// procedure index on disk), `shrimp chat` in a terminal still recalls and
// learns: it keeps its own memory from the database they share. What one
// learns the other recalls and lists; what one forgets the other no
// longer recalls; a change each makes to one procedure keeps both.
func TestTwoProcessesShareProcedures(t *testing.T) {
	ctx := context.Background()
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "notes.txt"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "summary.txt", "content": "buy shrimp\n"}}),
		ollamatest.Text("done"),
	}})
	data, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("buy shrimp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	window, cli := openApp(t, data, srv.URL), openApp(t, data, srv.URL)
	wmem, err := window.Memory(ctx)
	if err != nil || window.MemoryShared() != nil {
		t.Fatalf("the window's memory: %v, shared %v", err, window.MemoryShared())
	}
	cmem, err := cli.Memory(ctx)
	if err != nil || !errors.Is(cli.MemoryShared(), procedures.ErrLocked) {
		t.Fatalf("the terminal's memory: %v, shared %v", err, cli.MemoryShared())
	}
	const request = "summarize my notes into summary.txt"
	if _, events, err := ask(t, cli, ChatOptions{Workspace: ws, Text: request, Approve: approval.ModeAll}); err != nil {
		t.Fatal(err)
	} else {
		for _, e := range events {
			if d, ok := e.Data.(agent.Error); ok && d.Kind == agent.KindWarning {
				t.Errorf("warned: %s", d.Message)
			}
		}
	}
	if err := cli.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	learned := cmem.List()
	if len(learned) != 1 {
		t.Fatalf("the terminal learned %d procedures, want 1", len(learned))
	}
	id := learned[0].ID
	all := func(string) bool { return true }
	recalled := func(m *procedures.Memory) bool {
		hits, err := m.Recall(ctx, request, all, 3)
		if err != nil {
			t.Fatal(err)
		}
		return len(hits) > 0 && hits[0].Procedure.ID == id
	}
	if !recalled(wmem) || len(wmem.List()) != 1 {
		t.Fatalf("the window does not recall or list what the terminal learned (%d listed)", len(wmem.List()))
	}
	if n, indexed, current, err := wmem.IndexHealth(); err != nil || n != 1 || indexed != 1 || !current {
		t.Errorf("the window's index: %d procedures, %d indexed, current %v, %v", n, indexed, current, err)
	}
	if _, err := wmem.Forget(ctx, id, true); err != nil {
		t.Fatal(err)
	}
	if recalled(cmem) {
		t.Error("the terminal still recalls what the window's user forgot")
	}
	// Each process adds a demerit to the procedure it knows: neither
	// overwrites the other's.
	if _, err := cmem.Restore(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := wmem.Forget(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	if _, err := cmem.Forget(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	rows, err := window.Store.Procedures().All(ctx)
	if err != nil || len(rows) != 1 || rows[0].Demerits != 2 || rows[0].Forgotten {
		t.Fatalf("stored: %+v %v, want 2 demerits, not forgotten", rows, err)
	}
	if ps := wmem.List(); len(ps) != 1 || ps[0].Demerits != 2 {
		t.Errorf("the window lists %+v, want the 2 demerits", ps)
	}
}
