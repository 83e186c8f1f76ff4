package desktop

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/bus"
)

// emitRecorder is a fake window: it records every emitted batch.
type emitRecorder struct {
	mu      sync.Mutex
	batches [][]agent.Event
}

func (r *emitRecorder) emit(name string, data ...any) {
	if name != EventsName || len(data) != 1 {
		panic("unexpected emit " + name)
	}
	r.mu.Lock()
	r.batches = append(r.batches, append([]agent.Event(nil), data[0].([]agent.Event)...))
	r.mu.Unlock()
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
