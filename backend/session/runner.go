// Package session runs requests within sessions. The runner drives the
// agent loop, stamps every event with its session and a seq that strictly
// increases within the session, writes it to the store and only then
// publishes it on the bus, so nothing a subscriber saw can be missing from
// the record.
//
// Writes go through one group-commit writer: events queue while the
// previous transaction commits and go to disk together, so the loop never
// waits on an fsync per event. Writes use context.WithoutCancel: a
// cancelled run is still recorded, its agent:run-ended included.
package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/bus"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// Recorder stamps, persists and publishes events.
type Recorder struct {
	store *store.Store
	bus   *bus.Bus[agent.Event]
	log   *slog.Logger

	mu   sync.Mutex
	seqs map[string]int64

	queue  chan write
	done   chan struct{}
	once   sync.Once
	closed sync.RWMutex // held for reading while sending on queue
	isShut bool
}

// ErrClosed is returned for events recorded after Close.
var ErrClosed = errors.New("recorder closed")

// send queues w unless the recorder is closed.
func (r *Recorder) send(w write) error {
	r.closed.RLock()
	defer r.closed.RUnlock()
	if r.isShut {
		return ErrClosed
	}
	r.queue <- w
	return nil
}

type write struct {
	events []agent.Event
	ack    chan error // nil: do not wait
}

// NewRecorder starts the group-commit writer.
func NewRecorder(st *store.Store, b *bus.Bus[agent.Event], log *slog.Logger) *Recorder {
	r := &Recorder{store: st, bus: b, log: log, seqs: map[string]int64{}, queue: make(chan write, 4096), done: make(chan struct{})}
	go r.writer()
	return r
}

// Record stamps e and queues it for writing; it is published once written.
// It does not wait for the disk. Stamping and queueing are one step under
// r.mu, so events recorded from several goroutines are queued, stored and
// published in seq order (a full queue makes recorders wait their turn;
// the writer never takes r.mu).
func (r *Recorder) Record(ctx context.Context, sessionID string, e agent.Event) (agent.Event, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq, ok := r.seqs[sessionID]
	if !ok && sessionID != "" {
		last, err := r.store.LastSeq(context.WithoutCancel(ctx), sessionID)
		if err != nil {
			return e, err
		}
		seq = last
	}
	seq++
	r.seqs[sessionID] = seq
	e.Session, e.Seq = sessionID, seq
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	return e, r.send(write{events: []agent.Event{e}})
}

// Emit records an event from another area (usage, memory, approval) for a
// session: the same stamping, storing and publishing as the loop's.
func (r *Recorder) Emit(ctx context.Context, sessionID string, t agent.Type, data any) error {
	_, err := r.Record(ctx, sessionID, agent.Event{Type: t, Data: data})
	return err
}

// Sync waits until everything queued before it is written and published.
func (r *Recorder) Sync(ctx context.Context) error {
	ack := make(chan error, 1)
	if err := r.send(write{ack: ack}); err != nil {
		return err
	}
	select {
	case err := <-ack:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes what is queued and stops the writer.
func (r *Recorder) Close() {
	r.once.Do(func() {
		r.closed.Lock()
		r.isShut = true
		close(r.queue)
		r.closed.Unlock()
	})
	<-r.done
}

func (r *Recorder) writer() {
	defer close(r.done)
	for w := range r.queue {
		batch := []write{w}
		// Group commit: take whatever queued up while the last commit ran.
	more:
		for len(batch) < 512 {
			select {
			case w, ok := <-r.queue:
				if !ok {
					break more
				}
				batch = append(batch, w)
			default:
				break more
			}
		}
		var events []agent.Event
		for _, w := range batch {
			events = append(events, w.events...)
		}
		err := r.store.AppendEvents(context.Background(), events)
		if err != nil {
			// Publish anyway: the window should still see what happened;
			// the error is logged and reported to whoever syncs.
			r.log.Error("store events", "count", len(events), "err", err)
		}
		for _, e := range events {
			r.bus.Publish(e)
		}
		for _, w := range batch {
			if w.ack != nil {
				w.ack <- err
			}
		}
	}
}

// NewID returns a new random session id.
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Runner runs requests in sessions.
type Runner struct {
	Store    *store.Store
	Recorder *Recorder
}

// Start describes one request to run.
type Start struct {
	SessionID string // "" starts a new session
	Workspace string
	Request   agent.Request // History is filled from the store
}

// Run runs one request with ag and yields its events after they were
// stamped (they are written and published by the recorder in the same
// order). The new messages of the exchange are appended to the session's
// history when the run ends, however it ends.
func (rn *Runner) Run(ctx context.Context, ag *agent.Agent, st Start) (sessionID string, events iter.Seq2[agent.Event, error], err error) {
	bg := context.WithoutCancel(ctx)
	if st.SessionID == "" {
		st.SessionID = NewID()
		title := st.Request.Text
		if r := []rune(title); len(r) > 80 {
			title = string(r[:80]) + "…"
		}
		if err := rn.Store.CreateSession(bg, store.Session{ID: st.SessionID, Title: title, Model: st.Request.Model, Workspace: st.Workspace}); err != nil {
			return "", nil, err
		}
	} else {
		if _, err := rn.Store.Session(bg, st.SessionID); err != nil {
			return "", nil, err
		}
		hist, err := rn.Store.Messages(bg, st.SessionID)
		if err != nil {
			return "", nil, err
		}
		st.Request.History = hist
	}
	id := st.SessionID
	return id, func(yield func(agent.Event, error) bool) {
		tr := &transcript{}
		tr.add(api.Message{Role: "user", Content: st.Request.Text})
		// Messages are stored as they complete, so a killed process keeps
		// the history up to its last finished step.
		flush := func(all bool) {
			n := tr.complete()
			if all {
				n = len(tr.msgs)
			}
			if n <= tr.flushed {
				return
			}
			if err := rn.Store.AppendMessages(bg, id, tr.msgs[tr.flushed:n], tr.tokens[tr.flushed:n]...); err != nil {
				slog.Error("store messages", "session", id, "err", err)
				return
			}
			tr.flushed = n
		}
		defer flush(true)
		for e, runErr := range ag.Run(ctx, st.Request) {
			if runErr != nil {
				yield(agent.Event{}, runErr)
				return
			}
			tr.observe(e)
			switch e.Type {
			case agent.TypeRunStarted, agent.TypeToolResult, agent.TypeResponse:
				flush(false)
			}
			stamped, err := rn.Recorder.Record(bg, id, e)
			if err != nil {
				yield(agent.Event{}, fmt.Errorf("record event: %w", err))
				return
			}
			if !yield(stamped, nil) {
				return
			}
		}
	}, nil
}

// transcript rebuilds the messages of one exchange from its events, so the
// history the next request sends matches what happened.
type transcript struct {
	flushed int // messages already stored
	msgs    []api.Message
	tokens  []int // per message: Ollama's count for model output, 0 to estimate
	pending int   // index+1 of the open assistant message with tool calls; 0 when none
	text    string
}

func (t *transcript) add(m api.Message) { t.addCounted(m, 0) }

// complete is how many leading messages can no longer change: all but an
// open assistant message with tool calls (and what follows it).
func (t *transcript) complete() int {
	if t.pending > 0 {
		return t.pending - 1
	}
	return len(t.msgs)
}

func (t *transcript) addCounted(m api.Message, tokens int) {
	t.msgs = append(t.msgs, m)
	t.tokens = append(t.tokens, tokens)
}

func (t *transcript) observe(e agent.Event) {
	switch d := e.Data.(type) {
	case agent.Delta:
		if e.Type == agent.TypeToken {
			t.text += d.Text
		}
	case agent.ToolCall:
		if t.pending == 0 {
			t.addCounted(api.Message{Role: "assistant", Content: t.text}, d.TurnTokens)
			t.pending = len(t.msgs)
			t.text = ""
		}
		args := api.NewToolCallFunctionArguments()
		_ = args.UnmarshalJSON(d.Arguments)
		m := &t.msgs[t.pending-1]
		m.ToolCalls = append(m.ToolCalls, api.ToolCall{ID: d.ID, Function: api.ToolCallFunction{Name: d.Name, Arguments: args}})
	case agent.ToolResult:
		content := d.Output
		if d.Error != "" {
			content = "error: " + d.Error + "\n" + d.Output
		}
		t.add(api.Message{Role: "tool", Content: content, ToolName: d.Name, ToolCallID: d.ID})
		t.pending = 0
		t.text = ""
	case agent.Response:
		t.addCounted(api.Message{Role: "assistant", Content: d.Text}, d.Tokens)
	}
	if e.Type == agent.TypeRunStarted || e.Type == agent.TypeResponse {
		t.text = ""
	}
}
