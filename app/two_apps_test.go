package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestSessionContinuedByAnotherProcess: the window has a session open
// while `shrimp chat --session` (another process on the same data folder)
// adds a request to it; the window's next request in that session is
// stored after the other's, not refused for taking seqs already used.
func TestSessionContinuedByAnotherProcess(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("one"), ollamatest.Text("two"), ollamatest.Text("three")}})
	data, ws := t.TempDir(), t.TempDir()
	request := func(a *App, session, text string) string {
		id, _, err := ask(t, a, ChatOptions{SessionID: session, Workspace: ws, Text: text, Approve: approval.ModeAll, NoMemory: true})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		// What the run's subscribers record after it (usage, measures)
		// is written before the next request, as it is by the time a
		// person types one.
		if err := a.Settle(context.Background()); err != nil {
			t.Fatal(err)
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
	for i, e := range events {
		if i > 0 && e.Seq != events[i-1].Seq+1 {
			t.Errorf("seq %d after %d", e.Seq, events[i-1].Seq)
		}
		if e.Type == "agent:run-started" {
			requests = append(requests, string(e.Type))
		}
	}
	if len(requests) != 3 {
		t.Errorf("%d runs stored, want 3", len(requests))
	}
}

// TestSessionRunTwiceAtOnce: the window and `shrimp chat --session` run
// the same session at the same time. Neither run may end as if saved with
// events missing (they collided on seqs and were dropped without a word):
// the one that loses the race stops, saying another Shrimp is writing.
func TestSessionRunTwiceAtOnce(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		if strings.HasPrefix(req.Messages[len(req.Messages)-1].Content, "slow") {
			return ollamatest.Reply{Text: strings.SplitAfter("a slow answer in many small pieces", " "), Delay: 150 * time.Millisecond}
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
	failed := 0
	for name, r := range map[string]result{"the window's": slowRes, "the CLI's": quick} {
		if r.err != nil {
			failed++
			if !strings.Contains(r.err.Error(), "let the other Shrimp") {
				t.Errorf("%s run failed without saying why: %v", name, r.err)
			}
			continue
		}
		for _, e := range r.events {
			if raw, _ := e.RawData(); have[e.Seq] != string(e.Type)+string(raw) {
				t.Errorf("%s run ended as saved, but its event %d (%s) is not stored: %q is", name, e.Seq, e.Type, have[e.Seq])
				break
			}
		}
	}
	t.Logf("%d of 2 runs stopped; %d events stored", failed, len(stored))
}
