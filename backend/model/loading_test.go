package model

import (
	"context"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestLoading: a chat is known to wait for a load when the model is not
// in memory (first use, keep-alive run out) or is there at another
// context size; a size Ollama keeps the model at for the one asked (it
// caps num_ctx at the trained context) is learned from the chat's load
// time and not reported again; an Ollama without /api/ps says nothing.
func TestLoading(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "slow", LoadTime: 50 * time.Millisecond, TrainedCtx: 8192,
		Respond: func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("hi") }})
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	// Every turn asks, however loaded the machine (a slow local answer
	// would otherwise count as a network's; TestLoadingAcrossANetwork).
	c.slowAnswer = time.Hour
	ctx := context.Background()
	chat := func(numCtx int) time.Duration {
		t.Helper()
		stream := true
		var load time.Duration
		err := c.Chat(ctx, &api.ChatRequest{Model: "slow", Stream: &stream, Messages: []api.Message{{Role: "user", Content: "hi"}}, Options: map[string]any{"num_ctx": numCtx}},
			func(r api.ChatResponse) error { load = r.LoadDuration; return nil })
		if err != nil {
			t.Fatal(err)
		}
		return load
	}
	step := func(name string, numCtx, wantLoaded int, wantMust bool) {
		t.Helper()
		if loaded, must := c.Loading(ctx, "slow", numCtx); loaded != wantLoaded || must != wantMust {
			t.Errorf("%s: Loading(%d) = %d, %v; want %d, %v", name, numCtx, loaded, must, wantLoaded, wantMust)
		}
	}
	step("never used", 4096, 0, true)
	if load := chat(4096); load < 50*time.Millisecond {
		t.Fatalf("the first chat's load_duration is %v", load)
	}
	step("in memory", 4096, 4096, false)
	step("another size", 16384, 4096, true)
	chat(16384)
	step("loaded for that size, capped at the trained 8192", 16384, 8192, false)
	if load := chat(16384); load >= loadedBelow {
		t.Fatalf("a chat at a capped size loaded again (%v)", load)
	}
	step("the cap, kept", 16384, 8192, false)
	// Loaded by someone else (another app, ollama run) at the size
	// Ollama gives what this client asks for: reported once; the chat that
	// follows did not load, which settles it.
	other, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	other.slowAnswer = time.Hour
	if loaded, must := other.Loading(ctx, "slow", 32768); loaded != 8192 || !must {
		t.Errorf("another client: %d, %v", loaded, must)
	}
	c = other
	if load := chat(32768); load >= loadedBelow {
		t.Fatalf("capped again, yet loaded (%v)", load)
	}
	step("the cap, learned from the load time", 32768, 8192, false)
	srv.Unload("slow")
	step("keep-alive ran out", 16384, 0, true)

	// An Ollama that does not list its models in memory: nothing said.
	old := ollamatest.New(t, ollamatest.Model{Name: "m"})
	oc, err := New(old.URL)
	if err != nil {
		t.Fatal(err)
	}
	if loaded, must := oc.Loading(ctx, "m", 4096); must || loaded != 0 {
		t.Errorf("a model listed without a context size: %d, %v", loaded, must)
	}
	down, err := New("http://127.0.0.1:9")
	if err != nil {
		t.Fatal(err)
	}
	if _, must := down.Loading(ctx, "m", 4096); must {
		t.Error("Ollama down: a load reported")
	}
}

// TestLoadingAcrossANetwork: against an Ollama whose /api/ps takes a
// round trip, a model chatted with just now at the same size is not asked
// about again; at another size, or once asking is fast, it is.
func TestLoadingAcrossANetwork(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "far", LoadTime: 30 * time.Millisecond,
		Respond: func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("hi") }})
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	chat := func(numCtx int) {
		t.Helper()
		stream := true
		if err := c.Chat(ctx, &api.ChatRequest{Model: "far", Stream: &stream, Messages: []api.Message{{Role: "user", Content: "hi"}}, Options: map[string]any{"num_ctx": numCtx}},
			func(api.ChatResponse) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// A wide margin both ways, so a loaded machine's local answer still
	// counts as fast and the "network" as slow.
	c.slowAnswer = 200 * time.Millisecond
	srv.SlowPS(400 * time.Millisecond)
	if _, must := c.Loading(ctx, "far", 4096); !must || srv.PSCalls() != 1 {
		t.Fatalf("first use: must %v, %d ps calls", must, srv.PSCalls())
	}
	chat(4096)
	// One slow answer is not yet a network's.
	if _, must := c.Loading(ctx, "far", 4096); must || srv.PSCalls() != 2 {
		t.Fatalf("second turn: must %v, %d ps calls", must, srv.PSCalls())
	}
	chat(4096)
	for turn := range 3 {
		if loaded, must := c.Loading(ctx, "far", 4096); must || loaded != 0 {
			t.Errorf("turn %d: %d, %v", turn, loaded, must)
		}
		chat(4096)
	}
	if n := srv.PSCalls(); n != 2 {
		t.Errorf("ps asked %d times over a slow network for a model used just now", n)
	}
	// Another size is asked about (and reported).
	if loaded, must := c.Loading(ctx, "far", 8192); !must || loaded != 4096 || srv.PSCalls() != 3 {
		t.Errorf("another size: %d, %v, %d ps calls", loaded, must, srv.PSCalls())
	}
	// Once an answer came fast, every turn asks (a size not used just now
	// is asked about, and that answer is timed).
	srv.SlowPS(0)
	c.Loading(ctx, "far", 16384)
	chat(16384)
	c.Loading(ctx, "far", 16384)
	c.Loading(ctx, "far", 16384)
	if n := srv.PSCalls(); n != 6 {
		t.Errorf("ps calls once fast: %d, want 6", n)
	}
}

// BenchmarkLoadingLocal is the question Loading asks before each model
// call, of a local (scripted) Ollama: what asking costs when it is asked
// every turn.
func BenchmarkLoadingLocal(b *testing.B) {
	srv := ollamatest.New(b, ollamatest.Model{Name: "m", LoadTime: time.Millisecond})
	c, err := New(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		c.Loading(ctx, "m", 4096)
	}
}
