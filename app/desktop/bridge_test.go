package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/bus"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// emitRecorder is a fake window: it records every emitted batch, and
// apart what another process stored (ForeignName).
type emitRecorder struct {
	mu      sync.Mutex
	batches [][]agent.Event
	foreign []agent.Event
}

func (r *emitRecorder) emit(name string, data ...any) {
	if (name != EventsName && name != ForeignName) || len(data) != 1 {
		panic("unexpected emit " + name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if name == ForeignName {
		r.foreign = append(r.foreign, data[0].([]agent.Event)...)
		return
	}
	r.batches = append(r.batches, append([]agent.Event(nil), data[0].([]agent.Event)...))
}

// events returns every emitted event, in order.
func (r *emitRecorder) events() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []agent.Event
	for _, b := range r.batches {
		out = append(out, b...)
	}
	return out
}

func (r *emitRecorder) seqs() []int64 {
	var out []int64
	for _, e := range r.events() {
		out = append(out, e.Seq)
	}
	return out
}

func TestBridgeBatchesInOrder(t *testing.T) {
	bs := bus.New[agent.Event]()
	br := NewBridge(time.Hour) // only the batch cap or Close flushes
	rec := &emitRecorder{}
	br.Attach(rec.emit)
	if _, err := br.Subscribe(bs); err != nil {
		t.Fatal(err)
	}
	const n = 1234
	for i := range n {
		bs.Publish(agent.Event{Seq: int64(i + 1), Type: agent.TypeToken})
	}
	if err := bs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := rec.seqs()
	if len(got) != n {
		t.Fatalf("window got %d events, want %d", len(got), n)
	}
	for i, s := range got {
		if s != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, s)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.batches) > n/10 {
		t.Fatalf("%d emits for %d events: not batched", len(rec.batches), n)
	}
	for _, b := range rec.batches {
		if len(b) > br.maxBatch {
			t.Fatalf("batch of %d exceeds the cap %d", len(b), br.maxBatch)
		}
	}
}

func TestBridgeHoldsEventsUntilAttached(t *testing.T) {
	bs := bus.New[agent.Event]()
	br := NewBridge(5 * time.Millisecond)
	if _, err := br.Subscribe(bs); err != nil {
		t.Fatal(err)
	}
	bs.Publish(agent.Event{Seq: 1})
	bs.Publish(agent.Event{Seq: 2})
	rec := &emitRecorder{}
	deadline := time.Now().Add(2 * time.Minute)
	for bs.Stats()[0].Delivered < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if len(rec.seqs()) != 0 {
		t.Fatal("emitted before attach")
	}
	br.Attach(rec.emit)
	for len(rec.seqs()) < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := rec.seqs(); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("after attach got %v, want [1 2]", got)
	}
	if err := bs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// twoApps opens two apps on one new data folder against the Ollama at
// host, as the window and a terminal are; both close when the test ends.
func twoApps(t *testing.T, host string) (window, terminal *app.App) {
	t.Helper()
	data := t.TempDir()
	open := func() *app.App {
		a, err := app.Open(app.Config{DataDir: data, OllamaHost: host, Model: "m"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close(context.Background()) })
		return a
	}
	return open(), open()
}

// following attaches a bridge to the window app's bus and has it follow
// what other processes store, every 10 ms, until the test ends; it returns
// what the bridge sent.
func following(t *testing.T, window *app.App) *emitRecorder {
	t.Helper()
	return followingWith(t, window, window.Runner.CloseInterrupted)
}

// followingWith is following with endGone ending the runs of processes
// that are gone.
func followingWith(t *testing.T, window *app.App, endGone func(context.Context, string) (bool, error)) *emitRecorder {
	t.Helper()
	rec := &emitRecorder{}
	br := NewBridge(5 * time.Millisecond)
	br.Attach(rec.emit)
	if _, err := br.Subscribe(window.Bus); err != nil {
		t.Fatal(err)
	}
	from, err := window.Store.EventsEnd(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	// Registered after the apps' Close: runs before it, and waits, so the
	// follower (which may be ending a run in the store) is gone before
	// the apps close and the test's folders are removed.
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		br.Follow(ctx, window.Store, from, window.Recorder.Wrote, endGone, 10*time.Millisecond)
	}()
	return rec
}

// TestWindowFollowsAnotherProcess: what `shrimp chat` in a terminal does
// on the window's data folder reaches the window as it happens, apart
// (ForeignName, for the timeline), in its own session and in one it goes
// on with (`--session`) that the window recorded in and goes on with
// again after it; the window's own events do not come again that way.
func TestWindowFollowsAnotherProcess(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Text("from the window"), ollamatest.Text("from the terminal"), ollamatest.Text("the terminal goes on"), ollamatest.Text("the window goes on"), ollamatest.Text("and a last one"),
	}})
	window, terminal := twoApps(t, srv.URL)
	rec := following(t, window)
	ctx := context.Background()
	ask := func(a *app.App, session, text string) string {
		id, events, done, err := a.Chat(ctx, app.ChatOptions{SessionID: session, Workspace: t.TempDir(), Text: text, Approve: approval.ModeAll, NoMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		for _, err := range events {
			if err != nil {
				t.Fatal(err)
			}
		}
		return id
	}
	// followed returns the seqs of each session the window was sent apart,
	// once they satisfy done (or after two minutes).
	followed := func(done func(map[string][]int64) bool) map[string][]int64 {
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
			rec.mu.Lock()
			seqs := map[string][]int64{}
			for _, e := range rec.foreign {
				seqs[e.Session] = append(seqs[e.Session], e.Seq)
			}
			rec.mu.Unlock()
			if done(seqs) || time.Now().After(deadline) {
				return seqs
			}
		}
	}
	stored := func(session string) []int64 {
		events, err := window.Store.Events(ctx, session, 0)
		if err != nil {
			t.Fatal(err)
		}
		var seqs []int64
		for _, e := range events {
			seqs = append(seqs, e.Seq)
		}
		return seqs
	}
	own := ask(window, "", "hello")
	other := ask(terminal, "", "hi there")
	got := followed(func(seqs map[string][]int64) bool { return slices.Equal(seqs[other], stored(other)) })
	if len(got[own]) != 0 || !slices.Equal(got[other], stored(other)) {
		t.Fatalf("the window was sent seqs %v of its own session and %v of the terminal's (stored: %v), want none and all", got[own], got[other], stored(other))
	}
	mine := len(stored(own))
	ask(terminal, own, "and go on")
	theirs := stored(own)[mine:]
	ask(window, own, "and on again")
	// The follower reads in stored order: once the terminal's next
	// session has come whole, it has passed the window's second run.
	last := ask(terminal, "", "a last one")
	got = followed(func(seqs map[string][]int64) bool { return slices.Equal(seqs[last], stored(last)) })
	if !slices.Equal(got[own], theirs) {
		t.Errorf("of the shared session, the window was sent seqs %v, want the terminal's %v (all: %v)", got[own], theirs, stored(own))
	}
}

// storeStarted stores, as the terminal does, a run's start and a call in
// session id, and no end.
func storeStarted(t *testing.T, terminal *app.App, id string) {
	t.Helper()
	ctx := context.Background()
	for _, e := range []agent.Event{
		{Type: agent.TypeRunStarted, Data: agent.RunStarted{Model: "m", Text: "sleep a while"}},
		{Type: agent.TypeToolCall, Data: agent.ToolCall{ID: "c1", Name: "shell.run", Arguments: json.RawMessage(`{"command":"sleep 600"}`)}},
	} {
		if _, err := terminal.Recorder.Record(ctx, id, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := terminal.Recorder.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestWindowEndsAKilledTerminalsRun: a terminal's run whose process died
// (its session lock gone, no end stored) is ended by the window, which
// then shows it interrupted instead of "a request from a terminal is
// running" for ever; a run still going is left alone.
func TestWindowEndsAKilledTerminalsRun(t *testing.T) {
	window, terminal := twoApps(t, "http://127.0.0.1:9")
	rec := following(t, window)
	ctx := context.Background()
	started := func(id string) { storeStarted(t, terminal, id) }
	const alive, id = "running-terminal", "killed-terminal"
	for _, s := range []string{alive, id} {
		if err := terminal.Store.CreateSession(ctx, store.Session{ID: s, Title: "t", Model: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	// A terminal still running its request: it holds the session's lock.
	held, release, released := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(released)
		terminal.Runner.Locked(ctx, alive, func(context.Context) error { close(held); <-release; return nil })
	}()
	<-held
	// The lock is let go of before the apps close and the folders go.
	defer func() { close(release); <-released }()
	started(alive)
	// What a terminal killed mid-run leaves: a start, a call, no end, and
	// no process holding the session. The follower reads it after the
	// other, and tries both each time it looks.
	started(id)
	var ended *agent.Event
	for deadline := time.Now().Add(2 * time.Minute); ended == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, e := range rec.events() {
			if e.Session == id && e.Type == agent.TypeRunEnded {
				ended = &e
			}
		}
	}
	if ended == nil {
		t.Fatal("the window did not end the killed terminal's run")
	}
	if d, ok := ended.Data.(agent.RunEnded); !ok || d.Status != agent.StatusInterrupted {
		t.Errorf("ended %+v, want interrupted", ended.Data)
	}
	for _, e := range rec.events() {
		if e.Session == alive && e.Type == agent.TypeRunEnded {
			t.Errorf("the window ended the run of a terminal still running it: %+v", e)
		}
	}
}

// TestFollowRetriesAFailedEnd: ending a killed terminal's run can fail
// for a while (the store busy with another process's writes); the window
// asks again later, not never, and the run is ended.
func TestFollowRetriesAFailedEnd(t *testing.T) {
	window, terminal := twoApps(t, "http://127.0.0.1:9")
	ctx := context.Background()
	const id = "killed-terminal"
	if err := terminal.Store.CreateSession(ctx, store.Session{ID: id, Title: "t", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	tries := 0
	rec := followingWith(t, window, func(ctx context.Context, session string) (bool, error) {
		mu.Lock()
		tries++
		n := tries
		mu.Unlock()
		if n <= 2 {
			return false, errors.New("database is locked")
		}
		return window.Runner.CloseInterrupted(ctx, session)
	})
	storeStarted(t, terminal, id)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, e := range rec.events() {
			if e.Session == id && e.Type == agent.TypeRunEnded {
				mu.Lock()
				defer mu.Unlock()
				if tries < 3 {
					t.Errorf("ended after %d tries", tries)
				}
				return
			}
		}
	}
	t.Fatal("the run was not ended after its ending failed twice")
}
