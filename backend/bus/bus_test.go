package bus_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shrimp-harness/shrimp/backend/bus"
)

// ev is the test's event type: a number, or a failure report.
type ev struct {
	n      int
	failed string // subscriber name when this is a failure report
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newBus() *bus.Bus[ev] {
	return bus.New(
		bus.WithLogger[ev](quiet()),
		bus.WithFailures(func(f bus.Failure[ev]) ev { return ev{failed: f.Subscriber} }, func(e ev) bool { return e.failed != "" }),
	)
}

// recorder collects the numbers it receives.
type recorder struct {
	mu  sync.Mutex
	got []int
}

func (r *recorder) handle(_ context.Context, e ev) error {
	if e.failed == "" {
		r.mu.Lock()
		r.got = append(r.got, e.n)
		r.mu.Unlock()
	}
	return nil
}

func (r *recorder) numbers() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.got...)
}

func TestOrderPerSubscriber(t *testing.T) {
	b := newBus()
	recs := make([]*recorder, 4)
	for i := range recs {
		recs[i] = &recorder{}
		if _, err := b.Subscribe("rec", recs[i].handle, bus.Buffer[ev](10_000)); err != nil {
			t.Fatal(err)
		}
	}
	// Several publishers at once: every subscriber must still see one order.
	var wg sync.WaitGroup
	for p := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				b.Publish(ev{n: p*1000 + i})
			}
		})
	}
	wg.Wait()
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := recs[0].numbers()
	if len(first) != 4000 {
		t.Fatalf("got %d values, want 4000", len(first))
	}
	for i, r := range recs[1:] {
		got := r.numbers()
		for j := range got {
			if got[j] != first[j] {
				t.Fatalf("subscriber %d saw %d at %d, subscriber 0 saw %d", i+1, got[j], j, first[j])
			}
		}
	}
	// Within one publisher, order is publish order.
	last := map[int]int{}
	for _, n := range first {
		p := n / 1000
		if prev, ok := last[p]; ok && n <= prev {
			t.Fatalf("publisher %d: %d after %d", p, n, prev)
		}
		last[p] = n
	}
}

func TestFailuresAreReportedAndDeliveryContinues(t *testing.T) {
	tests := []struct {
		name    string
		handler func(*bus.Subscription[ev]) bus.Handler[ev]
	}{
		{"panic", func(*bus.Subscription[ev]) bus.Handler[ev] {
			return func(_ context.Context, e ev) error {
				if e.n%2 == 0 && e.failed == "" {
					panic("even")
				}
				return nil
			}
		}},
		{"error", func(*bus.Subscription[ev]) bus.Handler[ev] {
			return func(_ context.Context, e ev) error {
				if e.n%2 == 0 && e.failed == "" {
					return errors.New("even")
				}
				return nil
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBus()
			var reports atomic.Int64
			var seen atomic.Int64
			_, _ = b.Subscribe("watcher", func(_ context.Context, e ev) error {
				if e.failed == "bad" {
					reports.Add(1)
				}
				return nil
			}, bus.Buffer[ev](100))
			var sub *bus.Subscription[ev]
			h := tt.handler(nil)
			sub, _ = b.Subscribe("bad", func(ctx context.Context, e ev) error {
				if e.failed == "" {
					seen.Add(1)
				}
				return h(ctx, e)
			}, bus.Buffer[ev](100))
			for i := range 10 {
				b.Publish(ev{n: i})
			}
			if err := b.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := seen.Load(); got != 10 {
				t.Errorf("failing subscriber saw %d values, want all 10", got)
			}
			if got := sub.Stats().Failed; got != 5 {
				t.Errorf("Failed = %d, want 5", got)
			}
			if got := reports.Load(); got != 5 {
				t.Errorf("watcher saw %d failure reports, want 5", got)
			}
		})
	}
}

func TestGoRecoversSpawnedPanics(t *testing.T) {
	b := newBus()
	var reports atomic.Int64
	_, _ = b.Subscribe("watcher", func(_ context.Context, e ev) error {
		if e.failed == "spawner" {
			reports.Add(1)
		}
		return nil
	})
	var sub *bus.Subscription[ev]
	ready := make(chan struct{})
	sub, _ = b.Subscribe("spawner", func(_ context.Context, e ev) error {
		<-ready
		if e.failed == "" {
			sub.Go(func(context.Context) { panic("in a goroutine") })
		}
		return nil
	})
	close(ready)
	b.Publish(ev{n: 1})
	b.Publish(ev{n: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if !waitUntil(ctx, func() bool { return sub.Stats().Failed == 2 }) {
		t.Fatalf("Failed = %d, want 2", sub.Stats().Failed)
	}
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := sub.Stats().Failed; got != 2 {
		t.Fatalf("Failed = %d, want 2", got)
	}
	if got := reports.Load(); got != 2 {
		t.Fatalf("watcher saw %d reports, want 2", got)
	}
}

// TestReportSink: with a sink, reports go to it (in the order raised), not
// straight to subscribers; what it publishes is delivered; and a sink that
// waits holds up neither the failing handler nor the publisher.
func TestReportSink(t *testing.T) {
	release := make(chan struct{})
	sunk := make(chan ev, 100)
	b := bus.New(
		bus.WithLogger[ev](quiet()),
		bus.WithFailures(func(f bus.Failure[ev]) ev { return ev{n: f.Value.n, failed: f.Subscriber} }, func(e ev) bool { return e.failed != "" }),
		bus.WithReportSink(func(e ev, publish func(ev)) {
			<-release
			sunk <- e
			if e.n%4 == 0 {
				publish(e) // the sink routes half the reports back to the bus
			}
		}),
	)
	var delivered []int
	var mu sync.Mutex
	_, _ = b.Subscribe("watcher", func(_ context.Context, e ev) error {
		if e.failed != "" {
			mu.Lock()
			delivered = append(delivered, e.n)
			mu.Unlock()
		}
		return nil
	}, bus.Buffer[ev](100))
	var seen atomic.Int64
	bad, _ := b.Subscribe("bad", func(_ context.Context, e ev) error {
		if e.failed != "" {
			return nil
		}
		seen.Add(1)
		if e.n%2 == 0 {
			return errors.New("even")
		}
		return nil
	}, bus.Buffer[ev](100))
	for i := range 10 {
		b.Publish(ev{n: i})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The sink is stuck on its first report; the failing handler goes on.
	if !waitUntil(ctx, func() bool { return seen.Load() == 10 && bad.Stats().Failed == 5 }) {
		t.Fatalf("failing handler saw %d of 10 values while the sink waited", seen.Load())
	}
	close(release)
	var order []int
	for range 5 {
		select {
		case e := <-sunk:
			order = append(order, e.n)
		case <-ctx.Done():
			t.Fatalf("sink got %v, want 5 reports", order)
		}
	}
	if !slices.Equal(order, []int{0, 2, 4, 6, 8}) {
		t.Errorf("sink got reports %v, want them in the order raised", order)
	}
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(delivered, []int{0, 4, 8}) {
		t.Errorf("watcher got reports %v, want only the three the sink published", delivered)
	}
}

func TestTwoFailingSubscribersDoNotFeedEachOther(t *testing.T) {
	b := newBus()
	for _, name := range []string{"a", "b"} {
		_, _ = b.Subscribe(name, func(context.Context, ev) error { panic("always") })
	}
	b.Publish(ev{n: 1})
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, s := range b.Stats() {
		// The value, then both reports (its own and the other's); failing
		// on a report is counted but not reported again, so it stops there.
		if s.Failed != 3 {
			t.Errorf("%s: Failed = %d, want 3", s.Name, s.Failed)
		}
	}
}

func TestOverflowPolicies(t *testing.T) {
	tests := []struct {
		name          string
		policy        bus.Policy[ev]
		wantGot       []int
		wantDropped   uint64
		wantCoalesced uint64
	}{
		{"drop oldest", bus.DropOldest[ev](), []int{0, 3, 4}, 2, 0},
		{"block then drop newest", bus.Block[ev](10 * time.Millisecond), []int{0, 1, 2}, 2, 0},
		{"coalesce sums", bus.Coalesce(func(q, n ev) (ev, bool) { return ev{n: q.n + n.n}, true }), []int{0, 1, 2 + 3 + 4}, 0, 2},
		{"coalesce declines", bus.Coalesce(func(q, n ev) (ev, bool) { return q, false }), []int{0, 3, 4}, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := newBus()
				release := make(chan struct{})
				rec := &recorder{}
				sub, _ := b.Subscribe("slow", func(ctx context.Context, e ev) error {
					if e.n == 0 {
						<-release
					}
					return rec.handle(ctx, e)
				}, bus.Buffer[ev](2), bus.OnFull(tt.policy))
				b.Publish(ev{n: 0})
				synctest.Wait() // the handler holds 0; the mailbox is empty
				for i := 1; i <= 4; i++ {
					b.Publish(ev{n: i})
				}
				close(release)
				if err := b.Close(context.Background()); err != nil {
					t.Fatal(err)
				}
				got := rec.numbers()
				if len(got) != len(tt.wantGot) {
					t.Fatalf("got %v, want %v", got, tt.wantGot)
				}
				for i := range got {
					if got[i] != tt.wantGot[i] {
						t.Fatalf("got %v, want %v", got, tt.wantGot)
					}
				}
				st := sub.Stats()
				if st.Dropped != tt.wantDropped || st.Coalesced != tt.wantCoalesced {
					t.Fatalf("dropped %d coalesced %d, want %d and %d", st.Dropped, st.Coalesced, tt.wantDropped, tt.wantCoalesced)
				}
			})
		})
	}
}

func TestPublishDoesNotWaitForAStalledHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBus()
		_, _ = b.Subscribe("stalled", func(ctx context.Context, _ ev) error {
			<-ctx.Done()
			return nil
		}, bus.Buffer[ev](4))
		start := time.Now()
		for i := range 100 {
			b.Publish(ev{n: i})
		}
		// Inside the bubble time only moves when every goroutine blocks, so
		// any wait in Publish would show as elapsed fake time.
		if d := time.Since(start); d != 0 {
			t.Fatalf("Publish waited %v", d)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := b.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Close = %v, want deadline exceeded", err)
		}
	})
}

// TestIdle: a subscriber is idle once it has handled what was published
// before the call, and not while its handler still holds a value; another
// subscriber's backlog does not count.
func TestIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBus()
		release := make(chan struct{})
		var handled atomic.Int32
		slow, _ := b.Subscribe("slow", func(ctx context.Context, _ ev) error {
			<-release
			handled.Add(1)
			return nil
		})
		_, _ = b.Subscribe("stalled", func(ctx context.Context, _ ev) error {
			<-ctx.Done()
			return nil
		})
		for i := range 3 {
			b.Publish(ev{n: i})
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := slow.Idle(ctx); !errors.Is(err, context.DeadlineExceeded) || handled.Load() != 0 {
			t.Fatalf("Idle with the handler held = %v after %d handled, want deadline exceeded after 0", err, handled.Load())
		}
		close(release)
		if err := slow.Idle(context.Background()); err != nil || handled.Load() != 3 {
			t.Fatalf("Idle = %v after %d handled, want nil after 3", err, handled.Load())
		}
		_ = b.Close(ctx) // the stalled one is cut off when ctx ends
	})
}

func TestCloseDrainsMailboxes(t *testing.T) {
	b := newBus()
	rec := &recorder{}
	_, _ = b.Subscribe("slowish", func(ctx context.Context, e ev) error {
		time.Sleep(time.Microsecond)
		return rec.handle(ctx, e)
	}, bus.Buffer[ev](1000))
	for i := range 500 {
		b.Publish(ev{n: i})
	}
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(rec.numbers()); got != 500 {
		t.Fatalf("drained %d, want 500", got)
	}
	b.Publish(ev{n: 1000})
	if _, err := b.Subscribe("late", rec.handle); !errors.Is(err, bus.ErrClosed) {
		t.Fatalf("Subscribe after Close = %v, want ErrClosed", err)
	}
}

// TestMillionEvents is the contract under load: one subscriber panics on
// every 10th value, one never returns, one is healthy.
func TestMillionEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: publishes 1,000,000 events")
	}
	baseline := runtime.NumGoroutine()
	const total = 1_000_000
	b := newBus()

	healthy := make([]int, 0, total)
	_, _ = b.Subscribe("healthy", func(_ context.Context, e ev) error {
		if e.failed == "" {
			healthy = append(healthy, e.n)
		}
		return nil
	}, bus.Buffer[ev](total+total/10), bus.OnFull(bus.Block[ev](time.Minute)))

	panicky, _ := b.Subscribe("panicky", func(_ context.Context, e ev) error {
		if e.failed == "" && e.n%10 == 0 {
			panic("every 10th")
		}
		return nil
	}, bus.Buffer[ev](1<<16), bus.OnFull(bus.Block[ev](time.Minute)))

	stalled, _ := b.Subscribe("stalled", func(ctx context.Context, _ ev) error {
		<-ctx.Done()
		return nil
	}, bus.Buffer[ev](1024))

	for i := range total {
		b.Publish(ev{n: i})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Wait for the two live subscribers to drain; the stalled one never
	// will, so Close must give up on it and cancel its context.
	if !waitUntil(ctx, func() bool { return b.Stats()[0].Queued == 0 && panicky.Stats().Queued == 0 }) {
		t.Fatal("live subscribers did not drain")
	}
	closeCtx, closeCancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer closeCancel()
	if err := b.Close(closeCtx); err == nil {
		t.Fatal("Close returned nil with a stalled subscriber")
	}

	if len(healthy) != total {
		t.Fatalf("healthy got %d values, want %d", len(healthy), total)
	}
	for i, n := range healthy {
		if n != i {
			t.Fatalf("healthy got %d at %d", n, i)
		}
	}
	if got := panicky.Stats().Failed; got != total/10 {
		t.Errorf("panicky failed %d times, want %d", got, total/10)
	}
	st := stalled.Stats()
	// Values plus failure reports, minus the one it holds and what was queued.
	if st.Dropped < total-1024 {
		t.Errorf("stalled dropped %d, want at least %d", st.Dropped, total-1024)
	}
	if !waitUntil(ctx, func() bool { return runtime.NumGoroutine() <= baseline }) {
		t.Fatalf("goroutines: %d after, %d before", runtime.NumGoroutine(), baseline)
	}
}

func waitUntil(ctx context.Context, cond func() bool) bool {
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
	return true
}

func benchmarkPublish(b *testing.B, subscribers int) {
	bs := bus.New[ev](bus.WithLogger[ev](quiet()))
	for range subscribers {
		_, _ = bs.Subscribe("sink", func(context.Context, ev) error { return nil }, bus.Buffer[ev](4096))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		bs.Publish(ev{n: i})
	}
	b.StopTimer()
	_ = bs.Close(context.Background())
}

func BenchmarkPublish1(b *testing.B)  { benchmarkPublish(b, 1) }
func BenchmarkPublish8(b *testing.B)  { benchmarkPublish(b, 8) }
func BenchmarkPublish32(b *testing.B) { benchmarkPublish(b, 32) }

// BenchmarkDeliveryLatency measures publish-to-handler time for one
// subscriber, one value in flight at a time.
func BenchmarkDeliveryLatency(b *testing.B) {
	bs := bus.New[ev](bus.WithLogger[ev](quiet()))
	got := make(chan time.Time, 1)
	_, _ = bs.Subscribe("timer", func(context.Context, ev) error { got <- time.Now(); return nil })
	var total time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		bs.Publish(ev{n: i})
		total += (<-got).Sub(start)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/delivery")
	b.StopTimer()
	_ = bs.Close(context.Background())
}
