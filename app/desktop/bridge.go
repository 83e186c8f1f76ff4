package desktop

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/bus"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// EventsName is the window event that carries batches of bus events.
const EventsName = "shrimp:events"

// ForeignName is the window event that carries what another Shrimp
// process (`shrimp chat` in a terminal) stores on the same data folder,
// for the timeline and the lists alone: no approval or question of its
// runs is the window's to answer.
const ForeignName = "shrimp:foreign-events"

// Emitter sends one named event to the window. In the app it wraps
// runtime.EventsEmit with the Wails context; tests pass a recorder.
type Emitter func(name string, data ...any)

// Bridge is the bus subscriber that forwards events to the window. It
// batches them: at most one emit per flush interval, or sooner when a batch
// is full, so a fast stream costs the window one update per frame rather
// than one per token. Events that arrive before the window is attached are
// kept (up to the batch cap) and sent once it is.
type Bridge struct {
	interval time.Duration
	maxBatch int

	mu      sync.Mutex
	emit    Emitter
	pending []agent.Event
	kick    chan struct{}
}

// NewBridge returns a bridge that flushes every interval (33 ms when zero).
func NewBridge(interval time.Duration) *Bridge {
	if interval <= 0 {
		interval = 33 * time.Millisecond
	}
	return &Bridge{interval: interval, maxBatch: 500, kick: make(chan struct{}, 1)}
}

// Attach sets the emitter; pending events go out on the next flush.
func (b *Bridge) Attach(emit Emitter) {
	b.mu.Lock()
	b.emit = emit
	b.mu.Unlock()
	signal(b.kick)
}

// Subscribe starts forwarding events from bs until ctx ends or the bus closes.
func (b *Bridge) Subscribe(bs *bus.Bus[agent.Event]) (*bus.Subscription[agent.Event], error) {
	sub, err := bs.Subscribe("ui-bridge", b.handle, bus.Buffer[agent.Event](4096))
	if err != nil {
		return nil, err
	}
	sub.Go(b.flushLoop)
	return sub, nil
}

func (b *Bridge) handle(_ context.Context, e agent.Event) error {
	b.mu.Lock()
	if len(b.pending) >= 10*b.maxBatch && b.emit == nil {
		// No window yet: keep the newest; the window backfills from the store.
		b.pending = b.pending[1:]
	}
	b.pending = append(b.pending, e)
	full := len(b.pending) >= b.maxBatch
	b.mu.Unlock()
	if full {
		signal(b.kick)
	}
	return nil
}

func (b *Bridge) flushLoop(ctx context.Context) {
	t := time.NewTicker(b.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			b.Flush()
			return
		case <-t.C:
		case <-b.kick:
		}
		b.Flush()
	}
}

// Flush sends what is pending now, in batches of at most the batch cap.
func (b *Bridge) Flush() {
	b.mu.Lock()
	emit := b.emit
	if emit == nil || len(b.pending) == 0 {
		b.mu.Unlock()
		return
	}
	batch := b.pending
	b.pending = nil
	b.mu.Unlock()
	for len(batch) > 0 {
		n := min(len(batch), b.maxBatch)
		emit(EventsName, batch[:n])
		batch = batch[n:]
	}
}

// FollowEvery is how often the window looks for what another process
// stored (Follow).
const FollowEvery = time.Second

// Follow sends the window, every interval until ctx ends, the events
// another process stored since it last looked, from those stored after
// the position from (the store's EventsEnd, read before Follow is started
// on its own goroutine: read there, a run stored meanwhile was missed):
// those own does not claim (this process's, which come on
// the bus, are read and passed over; another's in a session this one
// records in too are sent), up to 20 batches a look. Their data is the
// stored JSON. While a run another process started has not ended, each
// look also asks endGone to end it if that process is gone (killed: it
// never will); the end it stores comes on the bus.
func (b *Bridge) Follow(ctx context.Context, st *store.Store, from int64, own func(session string, seq int64) bool, endGone func(ctx context.Context, session string) (bool, error), every time.Duration) {
	pos := from
	t := time.NewTicker(every)
	defer t.Stop()
	running := map[string]*ending{} // sessions with another process's run not ended
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		for session, p := range running {
			if now.Before(p.next) {
				continue
			}
			ended, err := endGone(ctx, session)
			switch {
			case ended, errors.Is(err, store.ErrNotFound): // ended, or the session is gone
				delete(running, session)
			case err != nil && ctx.Err() == nil:
				// A store busy with another process's writes answers
				// again later: a run dropped at its first error showed
				// "a request from a terminal is running" for ever.
				p.fails++
				if p.fails == maxEndTries {
					slog.Warn("a run another process left is not ended", "session", session, "err", err)
					delete(running, session)
					continue
				}
				p.next = now.Add(min(max(every, time.Second)<<(p.fails-1), time.Minute))
			}
		}
		// A position past the end: the last rows went with a deleted
		// session, and their rowids are given again.
		if end, err := st.EventsEnd(ctx); err == nil && end < pos {
			pos = end
		}
		for range 20 {
			events, next, err := st.EventsAfter(ctx, pos, b.maxBatch)
			if err != nil {
				break
			}
			pos = next
			foreign := events[:0]
			for _, e := range events {
				if !own(e.Session, e.Seq) {
					foreign = append(foreign, e)
					switch e.Type {
					case agent.TypeRunStarted:
						running[e.Session] = &ending{}
					case agent.TypeRunEnded:
						delete(running, e.Session)
					}
				}
			}
			b.mu.Lock()
			emit := b.emit
			b.mu.Unlock()
			if emit != nil && len(foreign) > 0 {
				emit(ForeignName, foreign)
			}
			if len(events) < b.maxBatch {
				break
			}
		}
	}
}

// maxEndTries is how many times Follow asks, a while apart, to end a run
// whose ending fails, before it gives up on it (about two minutes:
// 1 s, 2 s, 4 s … apart, a minute at most).
const maxEndTries = 8

// ending is Follow's record of a run another process started: how many
// times ending it failed, and when to try again.
type ending struct {
	fails int
	next  time.Time
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
