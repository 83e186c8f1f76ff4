package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is returned by [Bus.Subscribe] after [Bus.Close].
var ErrClosed = errors.New("bus: closed")

// Handler receives one value. A returned error is reported like a panic: the
// subscriber stays subscribed and gets the next value.
type Handler[T any] func(ctx context.Context, v T) error

// Failure describes one handler that panicked or returned an error.
type Failure[T any] struct {
	Subscriber string // the subscriber's name
	Value      T      // the value being handled (zero for a [Subscription.Go] goroutine)
	Err        error  // the returned error, or the recovered panic as an error
	Panic      bool   // whether Err came from a panic
	Stack      string // the goroutine stack for a panic
}

// Option configures a [Bus].
type Option[T any] func(*Bus[T])

// WithLogger sets the logger failures and drops are logged to.
func WithLogger[T any](l *slog.Logger) Option[T] {
	return func(b *Bus[T]) { b.log = l }
}

// WithFailures publishes every handler failure as a value made by report, so
// subscribers (the timeline, the store) see it like any other event. is tells
// such values apart: a handler failing on one is logged and counted but not
// reported again, so two failing subscribers cannot feed each other forever.
func WithFailures[T any](report func(Failure[T]) T, is func(T) bool) Option[T] {
	return func(b *Bus[T]) { b.report, b.isReport = report, is }
}

// WithReportSink hands each failure report made by [WithFailures]'s report
// to sink instead of publishing it. sink runs on the bus's report goroutine
// (never on the failing handler's), one report at a time in the order they
// were raised; it may wait. It is for an owner that orders values before
// they are published (a writer that stamps and stores them first), so a
// report takes its place in that order instead of overtaking values queued
// there. publish is the bus's own delivery, which still reaches subscribers
// while [Bus.Close] drains; sink uses it for reports it does not route.
func WithReportSink[T any](sink func(v T, publish func(T))) Option[T] {
	return func(b *Bus[T]) { b.sink = sink }
}

// Bus delivers published values to subscribers. The zero value is not usable;
// call [New].
type Bus[T any] struct {
	log      *slog.Logger
	report   func(Failure[T]) T
	isReport func(T) bool
	sink     func(T, func(T))

	mu     sync.Mutex // serialises Publish so every subscriber sees one order
	subs   atomic.Pointer[[]*Subscription[T]]
	closed atomic.Bool
	wg     sync.WaitGroup

	// epoch counts publish calls, so Close can tell a settled bus from one
	// that moved between two looks.
	epoch atomic.Uint64

	// reports queues failure reports for the forwarding goroutine, so a
	// failing handler never publishes (and never waits) on its own
	// goroutine while a publisher may be waiting for it.
	reports     *mailbox[T]
	reportStats counters
	reportsDone chan struct{}
}

// New returns an empty bus.
func New[T any](opts ...Option[T]) *Bus[T] {
	b := &Bus[T]{log: slog.Default(), reportsDone: make(chan struct{})}
	b.subs.Store(&[]*Subscription[T]{})
	b.reports = newMailbox(1024, DropOldest[T](), &b.reportStats)
	for _, o := range opts {
		o(b)
	}
	go b.forwardReports()
	return b
}

func (b *Bus[T]) forwardReports() {
	defer close(b.reportsDone)
	batch := make([]T, 64)
	for {
		n := b.reports.take(batch)
		if n == 0 {
			return
		}
		for i := range n {
			if b.sink != nil {
				b.sink(batch[i], b.publish)
			} else {
				b.publish(batch[i])
			}
		}
		clear(batch[:n])
	}
}

// Publish hands v to every subscriber's mailbox and returns. It never waits
// on a handler; see the package doc for the one bounded exception ([Block]).
// Publishing on a closed bus drops the value.
func (b *Bus[T]) Publish(v T) {
	if b.closed.Load() {
		return
	}
	b.publish(v)
}

// publish delivers even while Close drains, so failure reports raised by
// the last values still reach the other subscribers.
func (b *Bus[T]) publish(v T) {
	b.mu.Lock()
	b.epoch.Add(1)
	for _, s := range *b.subs.Load() {
		if s.filter == nil || s.filter(v) {
			s.box.put(v)
		}
	}
	b.mu.Unlock()
}

// Subscribe starts a subscriber named name that runs h for every published
// value, in its own goroutine. Unsubscribe with [Subscription.Close].
func (b *Bus[T]) Subscribe(name string, h Handler[T], opts ...SubOption[T]) (*Subscription[T], error) {
	if b.closed.Load() {
		return nil, ErrClosed
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Subscription[T]{
		bus:     b,
		name:    name,
		handler: h,
		ctx:     ctx,
		cancel:  cancel,
		done:    make(chan struct{}),
	}
	cfg := subConfig[T]{buffer: 1024, policy: DropOldest[T]()}
	for _, o := range opts {
		o(&cfg)
	}
	s.filter = cfg.filter
	s.box = newMailbox(cfg.buffer, cfg.policy, &s.stats)

	b.mu.Lock()
	old := *b.subs.Load()
	next := append(append(make([]*Subscription[T], 0, len(old)+1), old...), s)
	b.subs.Store(&next)
	b.mu.Unlock()

	b.wg.Add(1)
	go s.run()
	return s, nil
}

// Stats returns a snapshot of every current subscriber's counters.
func (b *Bus[T]) Stats() []Stats {
	subs := *b.subs.Load()
	out := make([]Stats, 0, len(subs))
	for _, s := range subs {
		out = append(out, s.Stats())
	}
	return out
}

// Close stops accepting values and lets every mailbox drain. When ctx ends
// first, handlers' contexts are cancelled, what is still queued is dropped
// (and counted), and Close returns ctx's error without waiting further for
// handlers that ignore their context.
func (b *Bus[T]) Close(ctx context.Context) error {
	b.closed.Store(true)
	err := b.settle(ctx)
	b.reports.close()
	<-b.reportsDone
	subs := *b.subs.Load()
	for _, s := range subs {
		if err != nil {
			s.box.discard()
		}
		s.box.close()
		s.cancel() // ends long-lived Subscription.Go goroutines (flushers, tickers)
	}
	if err != nil {
		return fmt.Errorf("bus: close: %w", err)
	}
	done := make(chan struct{})
	go func() {
		b.wg.Wait()
		for _, s := range subs {
			s.spawned.Wait()
		}
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("bus: close: waiting for handlers: %w", ctx.Err())
	}
}

func (b *Bus[T]) remove(s *Subscription[T]) {
	b.mu.Lock()
	defer b.mu.Unlock()
	old := *b.subs.Load()
	next := make([]*Subscription[T], 0, len(old))
	for _, o := range old {
		if o != s {
			next = append(next, o)
		}
	}
	b.subs.Store(&next)
}

// fail logs and counts a failure, and publishes it when the bus reports
// failures and the failing value was not itself a report.
func (b *Bus[T]) fail(s *Subscription[T], f Failure[T], handlingReport bool) {
	s.stats.failed.Add(1)
	b.log.Error("bus subscriber failed", "subscriber", f.Subscriber, "panic", f.Panic, "err", f.Err)
	if b.report != nil && !handlingReport {
		b.reports.put(b.report(f))
	}
}

// Subscription is one subscriber: its goroutine, mailbox and counters.
type Subscription[T any] struct {
	bus     *Bus[T]
	name    string
	handler Handler[T]
	filter  func(T) bool
	box     *mailbox[T]
	stats   counters
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	spawned sync.WaitGroup
	once    sync.Once
}

// Name returns the subscriber's name.
func (s *Subscription[T]) Name() string { return s.name }

// Stats returns a snapshot of this subscriber's counters.
func (s *Subscription[T]) Stats() Stats {
	return Stats{
		Name:      s.name,
		Queued:    s.box.len(),
		Delivered: s.stats.delivered.Load(),
		Dropped:   s.stats.dropped.Load(),
		Coalesced: s.stats.coalesced.Load(),
		Failed:    s.stats.failed.Load(),
	}
}

// Idle blocks until this subscriber's mailbox is empty and its handler
// holds no value, or ctx ends: what was published before the call has
// been handled (values published meanwhile may be too). A caller that
// must know a subscriber has acted on an event waits for it so.
func (s *Subscription[T]) Idle(ctx context.Context) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !s.box.settled() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Go runs fn in a new goroutine with the subscriber's context. A panic in fn
// is recovered and reported as a failure of this subscriber, exactly like a
// panic in its handler. Close cancels ctx and waits for such goroutines;
// a failure they raise after the bus settled is counted but not published.
func (s *Subscription[T]) Go(fn func(ctx context.Context)) {
	s.spawned.Add(1)
	go func() {
		defer s.spawned.Done()
		defer func() {
			if r := recover(); r != nil {
				var zero T
				s.bus.fail(s, Failure[T]{Subscriber: s.name, Value: zero, Err: fmt.Errorf("panic: %v", r), Panic: true, Stack: string(debug.Stack())}, false)
			}
		}()
		fn(s.ctx)
	}()
}

// Close unsubscribes: no new values are queued, queued ones are discarded
// (and counted as dropped), the handler's context is cancelled, and Close
// waits for the subscriber's goroutine and those started with [Subscription.Go].
func (s *Subscription[T]) Close() {
	s.once.Do(func() {
		s.bus.remove(s)
		s.box.discard()
		s.box.close()
		s.cancel()
	})
	<-s.done
	s.spawned.Wait()
}

func (s *Subscription[T]) run() {
	defer s.bus.wg.Done()
	defer close(s.done)
	defer s.cancel()
	batch := make([]T, 64)
	for {
		n := s.box.take(batch)
		if n == 0 {
			return
		}
		for i := range n {
			s.deliver(batch[i])
		}
		clear(batch[:n])
	}
}

func (s *Subscription[T]) deliver(v T) {
	handlingReport := s.bus.isReport != nil && s.bus.isReport(v)
	defer func() {
		if r := recover(); r != nil {
			s.bus.fail(s, Failure[T]{Subscriber: s.name, Value: v, Err: fmt.Errorf("panic: %v", r), Panic: true, Stack: string(debug.Stack())}, handlingReport)
		}
	}()
	err := s.handler(s.ctx, v)
	s.stats.delivered.Add(1)
	if err != nil {
		s.bus.fail(s, Failure[T]{Subscriber: s.name, Value: v, Err: err}, handlingReport)
	}
}

// Stats are one subscriber's counters.
type Stats struct {
	Name      string `json:"name"`
	Queued    int    `json:"queued"`    // values waiting in the mailbox now
	Delivered uint64 `json:"delivered"` // values the handler returned from
	Dropped   uint64 `json:"dropped"`   // values lost to the overflow policy or to Close
	Coalesced uint64 `json:"coalesced"` // values merged into a queued one
	Failed    uint64 `json:"failed"`    // handler panics and errors
}

type counters struct {
	delivered, dropped, coalesced, failed atomic.Uint64
}

// SubOption configures one subscription.
type SubOption[T any] func(*subConfig[T])

type subConfig[T any] struct {
	buffer int
	policy Policy[T]
	filter func(T) bool
}

// Buffer sets the mailbox capacity (default 1024, minimum 1).
func Buffer[T any](n int) SubOption[T] {
	return func(c *subConfig[T]) { c.buffer = max(n, 1) }
}

// OnFull sets what happens when the mailbox is full (default [DropOldest]).
func OnFull[T any](p Policy[T]) SubOption[T] {
	return func(c *subConfig[T]) { c.policy = p }
}

// Filter queues only the values keep accepts; the rest cost no mailbox room.
func Filter[T any](keep func(T) bool) SubOption[T] {
	return func(c *subConfig[T]) { c.filter = keep }
}

// Policy is a mailbox's overflow policy. Build one with [DropOldest],
// [Block] or [Coalesce].
type Policy[T any] struct {
	block time.Duration
	merge func(queued, next T) (T, bool)
}

// DropOldest makes room by discarding the oldest queued value.
func DropOldest[T any]() Policy[T] { return Policy[T]{} }

// Block makes the publisher wait up to d for room; after d the new value is
// dropped. Use it only for subscribers whose loss matters more than latency.
func Block[T any](d time.Duration) Policy[T] { return Policy[T]{block: d} }

// Coalesce tries to merge the new value into the newest queued one with
// merge; when merge declines, the oldest queued value is dropped.
func Coalesce[T any](merge func(queued, next T) (T, bool)) Policy[T] {
	return Policy[T]{merge: merge}
}

// Wait blocks until every mailbox is empty and no handler holds a value,
// or ctx ends. Values published meanwhile are waited for too.
func (b *Bus[T]) Wait(ctx context.Context) error { return b.settle(ctx) }

// settle waits until every mailbox is empty, no handler holds a value and
// nothing was published in between. Close is rare, so
// it polls rather than putting a shared counter on the publish path.
func (b *Bus[T]) settle(ctx context.Context) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		before := b.epoch.Load()
		quiet := true
		for _, s := range *b.subs.Load() {
			if !s.box.settled() {
				quiet = false
				break
			}
		}
		// Subscribers first, then reports: a failure is queued as a report
		// before its handler counts as settled.
		if quiet && b.reports.settled() && b.epoch.Load() == before {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
