// Package session runs requests within sessions. The runner drives the
// agent loop, stamps every event with its session and a seq that strictly
// increases within the session, writes it to the store and only then
// publishes it on the bus, so nothing a subscriber saw can be missing from
// the record. Given a redactor, the recorder takes secrets out of every
// event first (the one place all events pass), and the runner out of the
// history it keeps; streamed text reaches it a word at a time (a trailing
// run of token characters is held back until it ends).
//
// Writes go through one group-commit writer: events queue while the
// previous transaction commits and go to disk together, so the loop does
// not wait on an fsync per event; it waits only before a tool runs, until
// the tool's call is on disk. A run whose session cannot be saved (a full
// disk) stops with [ErrNotSaved]. Writes use context.WithoutCancel: a
// cancelled run is still recorded, its agent:run-ended included.
package session

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/bus"
	"github.com/shrimp-harness/shrimp/backend/redact"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// Recorder stamps, persists and publishes events.
type Recorder struct {
	store *store.Store
	bus   *bus.Bus[agent.Event]
	log   *slog.Logger

	mu   sync.Mutex
	seqs map[string]int64
	// skipped holds, per session, the seqs below seqs[session] that
	// another process stored: before this one's first event there, and
	// what Resync stepped over.
	skipped map[string][][2]int64

	queue  chan write
	done   chan struct{}
	once   sync.Once
	closed sync.RWMutex // held for reading while sending on queue
	isShut bool

	failMu sync.Mutex
	failed error // the last write's error; nil once a write succeeds

	redactor *redact.Redactor // nil: events are kept as they are
}

// Err is the error of the last write, nil when it succeeded: a store that
// cannot write (a full disk, a failing one) says so here until it can.
func (r *Recorder) Err() error {
	r.failMu.Lock()
	defer r.failMu.Unlock()
	return r.failed
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
	// session is whose writes an ack answers for ("": the batch it is in).
	session string
}

// Option configures a Recorder.
type Option func(*Recorder)

// Redacting makes the recorder take secrets out of every event's data
// before it is stored or published (see package redact): the one place
// all events pass.
func Redacting(x *redact.Redactor) Option { return func(r *Recorder) { r.redactor = x } }

// NewRecorder starts the group-commit writer.
func NewRecorder(st *store.Store, b *bus.Bus[agent.Event], log *slog.Logger, opts ...Option) *Recorder {
	r := &Recorder{store: st, bus: b, log: log, seqs: map[string]int64{}, skipped: map[string][][2]int64{}, queue: make(chan write, 4096), done: make(chan struct{})}
	for _, o := range opts {
		o(r)
	}
	go r.writer()
	return r
}

// Redact returns e with the secrets in its data replaced (e itself when
// there are none, or no redactor).
func (r *Recorder) Redact(e agent.Event) agent.Event {
	if r.redactor == nil {
		return e
	}
	if d, ok := e.Data.(agent.Delta); ok { // most events: a few characters
		if s, n := r.redactor.String(d.Text); n > 0 {
			d.Text = s
			e.Data = d
		}
		return e
	}
	if v, n := r.redactor.Value(e.Data); n > 0 {
		e.Data = v
	}
	return e
}

// RedactText returns s with its secrets replaced.
func (r *Recorder) RedactText(s string) string {
	if r.redactor == nil {
		return s
	}
	out, _ := r.redactor.String(s)
	return out
}

// Record stamps e and queues it for writing; it is published once written.
// It does not wait for the disk. Stamping and queueing are one step under
// r.mu, so events recorded from several goroutines are queued, stored and
// published in seq order (a full queue makes recorders wait their turn;
// the writer never takes r.mu).
func (r *Recorder) Record(ctx context.Context, sessionID string, e agent.Event) (agent.Event, error) {
	return r.record(ctx, sessionID, r.Redact(e))
}

// record is Record for an event already redacted (the runner redacts
// before it keeps the exchange).
func (r *Recorder) record(ctx context.Context, sessionID string, e agent.Event) (agent.Event, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq, ok := r.seqs[sessionID]
	if !ok && sessionID != "" {
		last, err := r.store.LastSeq(context.WithoutCancel(ctx), sessionID)
		if err != nil {
			return e, err
		}
		seq = last
		r.skip(sessionID, 0, last)
	}
	seq++
	r.seqs[sessionID] = seq
	e.Session, e.Seq = sessionID, seq
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	return e, r.send(write{events: []agent.Event{e}})
}

// Wrote reports whether this process recorded the event of a session with
// that seq (from before it is stored): what another process stores, in a
// session of its own or one this process records in too (`shrimp chat
// --session` going on with a window's session), is followed apart (the
// window).
func (r *Recorder) Wrote(sessionID string, seq int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	top, ok := r.seqs[sessionID]
	if !ok || seq > top {
		return false
	}
	for _, gap := range r.skipped[sessionID] {
		if seq > gap[0] && seq <= gap[1] {
			return false
		}
	}
	return true
}

// skip notes that seqs after from up to to in a session are another
// process's. The caller holds r.mu.
func (r *Recorder) skip(sessionID string, from, to int64) {
	if to > from {
		r.skipped[sessionID] = append(r.skipped[sessionID], [2]int64{from, to})
	}
}

// Resync takes up the numbering of a session after the seqs another
// process (`shrimp chat --session` beside the window) stored in it: seqs
// are counted in memory once known, and reusing one fails every write.
// It first waits for what earlier runs of the session queued.
func (r *Recorder) Resync(ctx context.Context, sessionID string) error {
	// What an earlier run queued is written first; a write of it that
	// failed was that run's to report, not this one's.
	_ = r.sync(ctx, sessionID)
	last, err := r.store.LastSeq(context.WithoutCancel(ctx), sessionID)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if seq, ok := r.seqs[sessionID]; ok && last > seq {
		r.seqs[sessionID] = last
		r.skip(sessionID, seq, last)
	}
	return nil
}

// Emit records an event from another area (usage, memory, approval) for a
// session: the same stamping, storing and publishing as the loop's.
func (r *Recorder) Emit(ctx context.Context, sessionID string, t agent.Type, data any) error {
	_, err := r.Record(ctx, sessionID, agent.Event{Type: t, Data: data})
	return err
}

// Sync waits until everything queued before it is written and published.
func (r *Recorder) Sync(ctx context.Context) error { return r.sync(ctx, "") }

// sync is Sync for one session: its error is that of any of the session's
// events written since its last sync that could not be written, wherever
// the writer put them (an event and the ack after it can land in
// different batches: the ack's batch then writes nothing and fails
// nothing, which said "written" of an event that was lost).
func (r *Recorder) sync(ctx context.Context, session string) error {
	ack := make(chan error, 1)
	if err := r.send(write{ack: ack, session: session}); err != nil {
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
	lost := map[string]error{} // by session: a write that failed since its last sync
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
			// the error is logged, kept for Err and reported to whoever
			// syncs.
			r.log.Error("store events", "count", len(events), "err", err)
		}
		if len(events) > 0 {
			r.failMu.Lock()
			r.failed = err
			r.failMu.Unlock()
		}
		if err != nil {
			for _, e := range events {
				if lost[e.Session] == nil {
					lost[e.Session] = err
				}
			}
		}
		for _, e := range events {
			r.bus.Publish(e)
		}
		for _, w := range batch {
			switch {
			case w.ack == nil:
			case w.session != "":
				w.ack <- lost[w.session]
				delete(lost, w.session)
			case len(events) == 0:
				w.ack <- r.Err() // the last write's: nothing was written in this batch
			default:
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
	// Settle, when set, waits until the subscribers that record events in
	// a run's session after its end (its measures, a learned procedure)
	// have handled it. A run lets go of its session only then (up to
	// settleWait), so another process going on with the session numbers
	// its events after those instead of under the same seqs.
	Settle func(ctx context.Context)
}

// settleWait bounds how long a run's end waits for Runner.Settle.
const settleWait = time.Second

// settle stores what follows the end of session id's run: the end itself
// (published once stored), then what the subscribers of Settle record
// when they handle it.
func (rn *Runner) settle(ctx context.Context, id string) {
	if rn.Settle == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	_ = rn.Recorder.sync(ctx, id) // a failed write was the run's to report
	rn.Settle(ctx)
	_ = rn.Recorder.sync(ctx, id)
}

// Start describes one request to run.
type Start struct {
	SessionID string // "" starts a new session
	// New says SessionID names a session to start, its ID chosen by the
	// caller (NewID) so that what runs before the request (a hook told
	// the session's ID) and the session agree.
	New       bool
	Workspace string
	Request   agent.Request // History is filled from the store
	// Replace, the seq of one of the session's agent:run-started, makes
	// the request a retry (or an edit) of that run: its exchange, and all
	// that followed it, leave the history the model is sent (the record
	// keeps them), and a [TypeReplaced] event says so. 0: none.
	Replace int64
	// BeforeReplace, when set with Replace, runs first, while the session
	// is held (putting back the files the replaced runs changed); an
	// error stops the request with nothing replaced.
	BeforeReplace func(ctx context.Context) error
}

// TypeReplaced is recorded in a session when a request replaced one of
// its runs and those after it (data: [Replaced]).
const TypeReplaced agent.Type = "session:request-replaced"

// Replaced is the data of [TypeReplaced].
type Replaced struct {
	Run      int64 `json:"run"`      // the seq of the replaced run's agent:run-started
	Messages int   `json:"messages"` // how many messages left the model's history
	// Notes is how many working-memory notes the replaced runs had set,
	// dropped with them (a failed attempt's "step 1 done" would mislead
	// the retry).
	Notes int `json:"notes,omitempty"`
}

// retitle names session id after text when run, started by the event
// started, was its first request and the session still bears that
// request's words (not a name the user gave it).
func (rn *Runner) retitle(ctx context.Context, id string, run int64, started agent.Event, text string) error {
	first, err := rn.Store.FirstRun(ctx, id)
	if err != nil || first != run {
		return err
	}
	sess, err := rn.Store.Session(ctx, id)
	if err != nil {
		return err
	}
	var d agent.RunStarted
	if raw, err := started.RawData(); err != nil || json.Unmarshal(raw, &d) != nil || sess.Title != store.Title(d.Text) {
		return nil // named by the user (or unreadable): left
	}
	return rn.Store.SetTitle(ctx, id, store.Title(rn.Recorder.RedactText(text)))
}

// replace takes run and those after it out of session id's history,
// after before (if any), with the working notes they set, and records
// it. The session takes the title of text when run was its first request
// (see retitle).
func (rn *Runner) replace(ctx context.Context, id string, run int64, text string, before func(context.Context) error) error {
	events, err := rn.Store.Events(ctx, id, run-1)
	if err != nil {
		return err
	}
	if len(events) == 0 || events[0].Seq != run || events[0].Type != agent.TypeRunStarted {
		return fmt.Errorf("%w: session %s has no request numbered %d", store.ErrNotReplaceable, id, run)
	}
	if before != nil {
		if err := before(ctx); err != nil {
			return err
		}
	}
	n, err := rn.Store.ReplaceRuns(ctx, id, run)
	if err != nil {
		return err
	}
	notes, err := rn.Store.Working().DropSince(ctx, id, events[0].Time)
	if err != nil {
		return err
	}
	if err := rn.retitle(ctx, id, run, events[0], text); err != nil {
		return err
	}
	if err := rn.Recorder.Resync(ctx, id); err != nil {
		return err
	}
	return rn.Recorder.Emit(ctx, id, TypeReplaced, Replaced{Run: run, Messages: n, Notes: notes})
}

// ErrNotSaved marks a run stopped because its session could not be saved.
var ErrNotSaved = errors.New("the session could not be saved")

// Run runs one request with ag and yields its events after they were
// stamped (they are written and published by the recorder in the same
// order). The new messages of the exchange are appended to the session's
// history as they complete, and when the run ends, however it ends.
//
// A run does not go on unrecorded: when the store cannot write (a full
// disk), the run stops at its next event with an [ErrNotSaved] error that
// says what to do, and a tool runs only once its call is on disk.
//
// The session counts as running from Run until the events have been
// ranged over to their end (or the range stopped): another request in it,
// from this process or another, fails with [ErrBusy] meanwhile. A session
// whose last run was interrupted (the process was killed) has that run
// closed first (see [Runner.CloseInterrupted]).
func (rn *Runner) Run(ctx context.Context, ag *agent.Agent, st Start) (sessionID string, events iter.Seq2[agent.Event, error], err error) {
	bg := context.WithoutCancel(ctx)
	var lock *os.File
	defer func() {
		if err != nil && lock != nil {
			lock.Close()
		}
	}()
	if st.SessionID == "" || st.New {
		st.SessionID = cmp.Or(st.SessionID, NewID())
		title := store.Title(rn.Recorder.RedactText(st.Request.Text))
		if lock, err = rn.lock(st.SessionID, lockWait); err != nil {
			return "", nil, err
		}
		if err := rn.Store.CreateSession(bg, store.Session{ID: st.SessionID, Title: title, Model: st.Request.Model, Workspace: st.Workspace}); err != nil {
			_ = os.Remove(lock.Name()) // no session, no lock file
			return "", nil, err
		}
	} else {
		if _, err := rn.Store.Session(bg, st.SessionID); err != nil {
			return "", nil, err
		}
		if lock, err = rn.lock(st.SessionID, lockWait); err != nil {
			return "", nil, err
		}
		if _, err := rn.closeInterrupted(bg, st.SessionID); err != nil {
			return "", nil, fmt.Errorf("close the interrupted run of session %s: %w", st.SessionID, err)
		}
		if st.Replace > 0 {
			if err := rn.replace(bg, st.SessionID, st.Replace, st.Request.Text, st.BeforeReplace); err != nil {
				return "", nil, err
			}
		}
		hist, err := rn.Store.Messages(bg, st.SessionID)
		if err != nil {
			return "", nil, err
		}
		st.Request.History = hist
		if err := rn.Recorder.Resync(bg, st.SessionID); err != nil {
			return "", nil, err
		}
	}
	id := st.SessionID
	return id, func(yield func(agent.Event, error) bool) {
		defer lock.Close()
		defer rn.settle(bg, id) // after the history's last messages, before the lock
		tr := &transcript{}
		tr.add(api.Message{Role: "user", Content: rn.Recorder.RedactText(st.Request.Text), Images: attach.Datas(st.Request.Images)})
		// Messages are stored as they complete, so a killed process keeps
		// the history up to its last finished step.
		flush := func(all bool) error {
			n := tr.complete()
			if all {
				n = len(tr.msgs)
			}
			if n <= tr.flushed {
				return nil
			}
			if err := rn.Store.AppendRunMessages(bg, id, tr.run, tr.msgs[tr.flushed:n], tr.tokens[tr.flushed:n]...); err != nil {
				slog.Error("store messages", "session", id, "err", err)
				return err
			}
			tr.flushed = n
			return nil
		}
		defer func() { _ = flush(true) }()
		calls := 0 // tool calls yielded
		// handle keeps, records and yields one event; false stops the run.
		handle := func(e agent.Event) bool {
			e = rn.Recorder.Redact(e) // what is kept of the exchange holds no secrets either
			tr.observe(e)
			var err error
			switch e.Type {
			case agent.TypeToolResult, agent.TypeResponse, agent.TypeSentBack:
				err = flush(false)
			}
			stamped, recErr := rn.Recorder.record(bg, id, e) // redacted above
			if recErr != nil {
				yield(agent.Event{}, fmt.Errorf("record event: %w", recErr))
				return false
			}
			if e.Type == agent.TypeRunStarted {
				// The request is stored under its run's seq, known now:
				// a retry or an edit of it names the run.
				tr.run = stamped.Seq
				err = flush(false)
			}
			// A tool runs when its call event is taken: only once the
			// record says it was asked for. After a failed write, every
			// event waits for its own, which says whether the disk is
			// writable again.
			if err == nil && (e.Type == agent.TypeToolCall || rn.Recorder.Err() != nil) {
				err = rn.Recorder.sync(bg, id)
			}
			if err != nil {
				if e.Type == agent.TypeRunEnded {
					// The run is over, as its end says; that end is what
					// was not saved (found here when the write failed
					// before this check, else after the loop: one
					// message either way).
					if yield(stamped, nil) {
						rn.stopNotSaved(bg, id, nil, err, yield)
					}
					return false
				}
				rn.stopNotSaved(bg, id, &agent.RunEnded{Status: agent.StatusError, Model: st.Request.Model, ToolCalls: calls}, err, yield)
				return false
			}
			if e.Type == agent.TypeToolCall {
				calls++
			}
			return yield(stamped, nil)
		}
		var held words
		if rn.Recorder.redactor != nil {
			held.redact = rn.Recorder.RedactText
		}
		var runErr error // how the loop ended when it failed or was cancelled
		for e, err := range ag.Run(ctx, st.Request) {
			if err != nil {
				runErr = err
				break
			}
			for _, e := range held.next(e) {
				if !handle(e) {
					return
				}
			}
		}
		for _, e := range held.rest() {
			if !handle(e) {
				return
			}
		}
		// The run's last events, a cancelled or failed run's end included:
		// saved before the caller hears the run is over, or said not to be.
		err := flush(true)
		if err == nil {
			err = rn.Recorder.sync(bg, id)
		}
		if err != nil {
			rn.stopNotSaved(bg, id, nil, err, yield)
			return
		}
		if runErr != nil {
			yield(agent.Event{}, runErr)
		}
	}, nil
}

// stopNotSaved ends a run whose session cannot be saved: the error and,
// when ended is not nil, the run's end are published (the window shows
// them; they are stored too if the disk has come back), then the error is
// yielded. A nil ended means the run had ended.
func (rn *Runner) stopNotSaved(ctx context.Context, id string, ended *agent.RunEnded, cause error, yield func(agent.Event, error) bool) {
	dir := filepath.Dir(rn.Store.Path())
	fix := "free some space on that disk (or check it for errors)"
	if errors.Is(cause, store.ErrSeqTaken) {
		fix = "let the other Shrimp (a `shrimp chat --session` beside the window?) finish"
	}
	what := "so the run was stopped before its next step: " + fix + " and ask again; what was saved before is kept"
	if ended == nil {
		what = "so the end of this run is not saved: " + fix + " before the next request"
	}
	err := fmt.Errorf("%w in %s (%w), %s", ErrNotSaved, dir, cause, what)
	events := []agent.Event{{Type: agent.TypeError, Data: agent.Error{Kind: agent.KindError, Message: err.Error()}}}
	if ended != nil {
		ended.Error = err.Error()
		events = append(events, agent.Event{Type: agent.TypeRunEnded, Data: *ended})
	}
	for _, e := range events {
		stamped, recErr := rn.Recorder.Record(ctx, id, e)
		if recErr != nil || !yield(stamped, nil) {
			return
		}
	}
	yield(agent.Event{}, err)
}

// words holds back the unfinished last word of streamed text (answer and
// thinking), so a secret a model streams over many tokens is redacted
// whole: text goes on up to its last character that no token holds (a
// blank, a quote, any letter outside ASCII), or whole once 4 KiB are
// held, and what is held goes before any other event. With redact set,
// what goes on is redacted together with the text that went out just
// before it, so a secret whose pattern needs the words before it
// (`Authorization: Bearer …`, `aws_secret_access_key = …`) is caught
// although those words went out in an earlier piece. A PEM block (a
// private key) is held from its BEGIN line to its END line: its lines
// alone are base64 like any other.
type words struct {
	held   [2]string // by kind: agent:token, agent:thinking
	gone   [2]string // the end of what went out, as it went out (at most maxLine bytes)
	redact func(string) string
}

// maxHeld is the most text held back waiting for a blank; maxBlock the
// most held of a PEM block waiting for its end; maxLine the most of what
// went out kept as the context of what follows.
const (
	maxHeld  = 4 << 10
	maxBlock = 16 << 10
	maxLine  = 256
)

// openBlock is where s's last PEM block starts ("-----BEGIN"), when the
// line of its "-----END" has not ended yet; -1 when there is none.
func openBlock(s string) int {
	b := strings.LastIndex(s, "-----BEGIN")
	if b < 0 {
		return -1
	}
	if e := strings.LastIndex(s[b:], "-----END"); e >= 0 && strings.IndexByte(s[b+e:], '\n') >= 0 {
		return -1
	}
	return b
}

func kind(t agent.Type) int {
	switch t {
	case agent.TypeToken:
		return 0
	case agent.TypeThinking:
		return 1
	}
	return -1
}

// next returns the events to handle now for e.
func (w *words) next(e agent.Event) []agent.Event {
	k := kind(e.Type)
	d, ok := e.Data.(agent.Delta)
	if k < 0 || !ok {
		return append(w.rest(), e)
	}
	text := w.held[k] + d.Text
	// Held: the trailing run of characters a token can be made of. Text
	// in scripts without blanks (Chinese, Japanese) goes on at once.
	cut := strings.LastIndexFunc(text, func(r rune) bool { return !tokenChar(r) })
	if cut >= 0 {
		_, size := utf8.DecodeRuneInString(text[cut:])
		cut += size
	} else {
		cut = 0
	}
	if len(text) >= maxHeld {
		cut = len(text)
	}
	// A key in PEM form spans lines, and its lines alone look like any
	// base64: from its "-----BEGIN" on, text is held until the line of its
	// "-----END" ends (up to maxBlock), so the key is redacted whole.
	if b := openBlock(text); b >= 0 && b < cut && len(text)-b < maxBlock {
		cut = b
	}
	w.held[k] = text[cut:]
	if cut == 0 {
		return nil
	}
	e.Data = agent.Delta{Text: w.out(k, text[:cut])}
	return []agent.Event{e}
}

// out returns the text that goes on, redacted in the context of what
// went out before it.
func (w *words) out(k int, s string) string {
	if w.redact == nil {
		return s
	}
	before := w.gone[k]
	if red := w.redact(before + s); strings.HasPrefix(red, before) {
		s = red[len(before):]
	} else {
		s = w.redact(s) // a match reaching back into what went out: this piece alone
	}
	gone := before + s
	if len(gone) > maxLine {
		// The last maxLine bytes, from a line's start when they hold one
		// (a pattern anchored at a line's start must not match mid-line).
		cut := len(gone) - maxLine
		if i := strings.IndexByte(gone[cut:], '\n'); i >= 0 {
			cut += i + 1
		}
		gone = gone[textcut.After(gone, cut):]
	}
	w.gone[k] = gone
	return s
}

// tokenChar reports whether r can be part of a secret token (keys, tokens,
// passwords: ASCII letters, digits and the symbols they use).
func tokenChar(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./+=~:@!$%^&*", r))
}

// rest returns what is held, as events.
func (w *words) rest() []agent.Event {
	var out []agent.Event
	for k, t := range []agent.Type{agent.TypeToken, agent.TypeThinking} {
		if w.held[k] != "" {
			out = append(out, agent.Event{Type: t, Time: time.Now().UTC(), Data: agent.Delta{Text: w.out(k, w.held[k])}})
			w.held[k] = ""
		}
	}
	return out
}

// transcript rebuilds the messages of one exchange from its events, so the
// history the next request sends matches what happened.
type transcript struct {
	run     int64 // the seq of the run's agent:run-started, once recorded
	flushed int   // messages already stored
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

// toolMessage is a tool result as the history keeps it.
func toolMessage(d agent.ToolResult) api.Message {
	content := d.Output
	if d.Error != "" {
		content = "error: " + d.Error + "\n" + d.Output
	}
	// Images shown by the call are in d as the loop yielded it (their
	// data is not stored in the event): kept with the message.
	return api.Message{Role: "tool", Content: content, ToolName: d.Name, ToolCallID: d.ID, Images: attach.Datas(d.Images)}
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
		t.add(toolMessage(d))
		t.pending = 0
		t.text = ""
	case agent.Response:
		t.addCounted(api.Message{Role: "assistant", Content: d.Text}, d.Tokens)
	case agent.SentBack:
		// A check sent the model back after its answer: what it was told
		// is part of the conversation it goes on from.
		t.add(api.Message{Role: "user", Content: d.Text})
	}
	if e.Type == agent.TypeRunStarted || e.Type == agent.TypeResponse {
		t.text = ""
	}
}
