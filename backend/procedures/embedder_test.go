package procedures

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeEmbedder embeds by words (a 64-dimension hashed bag), except that
// texts it is told are synonyms get the same vector; it counts its calls
// and can be made to fail.
type fakeEmbedder struct {
	mu       sync.Mutex
	same     map[string]string // text → the text whose vector it gets
	calls    []string
	sizes    []int // texts per call
	down     bool
	modelTag string
	// slow texts wait for their channel to close, then send what their
	// context said to ended.
	slow  map[string]chan struct{}
	ended chan error
}

func (f *fakeEmbedder) Name() string { return "fake:" + f.modelTag }

func (f *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	release := f.slow[texts[0]]
	f.mu.Unlock()
	if release != nil {
		<-release
		f.ended <- ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, texts...)
	f.sizes = append(f.sizes, len(texts))
	if f.down {
		return nil, errors.New("connection refused")
	}
	var out [][]float32
	for _, t := range texts {
		if s, ok := f.same[t]; ok {
			t = s
		}
		v := make([]float32, 64)
		for _, w := range strings.Fields(t) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%64]++
		}
		out = append(out, v)
	}
	return out, nil
}

func (f *fakeEmbedder) called(text string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls {
		if c == text {
			return true
		}
	}
	return false
}

// embedTriggers are enough procedures to calibrate an embedding model.
var embedTriggers = []string{
	"delete the empty folders in my documents", "check the battery health of my laptop",
	"convert the word doc on my desktop to pdf", "merge the two guest list spreadsheets",
	"find a dog sitter near me with good reviews", "undo the last commit but keep my changes",
	"add my gym classes for next month to the calendar", "draft an email to the neighbours about the noise",
	"rename the holiday photos by the date they were taken", "back up my thesis folder to the usb stick",
	"list the biggest files eating up my disk space", "summarise the meeting notes from this morning",
	"translate the letter from the tax office into english", "squash my last three commits into one",
	"shrink all the photos in the blog folder", "kill whatever process is hogging the cpu",
	"copy the wifi password into my clipboard", "run the tests and fix the lint errors",
	"compare the prices of the three washing machines", "what changed in the repo since yesterday",
	"book the car in for its annual service", "show me the errors in the nginx log",
	"sort my downloads folder by file type", "find out what is listening on port 8080",
}

// withEmbedder stores a procedure for each of embedTriggers (IDs pa, pb,
// …), sets e as m's embedding model and waits until every trigger is
// indexed and has both encoders' vectors.
func withEmbedder(t *testing.T, m *Memory, e Embedder) {
	t.Helper()
	ctx := context.Background()
	for i, trig := range embedTriggers {
		if err := m.Add(ctx, Procedure{ID: "p" + string(rune('a'+i)), Trigger: trig, Tools: listReadWrite}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.SetEmbedder(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := m.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.SettleEmbedder(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestEmbedder: with an embedding model set, triggers get its vectors in
// the background (stored under its name, read back at the next open, not
// computed again), and once enough exist to calibrate, recall compares the
// request with them; when the model is down, recall goes on with the
// built-in encoder.
func TestEmbedder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, m := open(t, dir)
	const request = "remove folders with nothing in them from my documents"
	fake := &fakeEmbedder{modelTag: "m", same: map[string]string{request: "delete the empty folders in my documents"}}
	withEmbedder(t, m, fake)
	n, err := st.Vectors().Count(ctx, VectorsName(fake))
	if err != nil || n != int64(len(embedTriggers))+1 {
		t.Fatalf("%d vectors stored under fake:m (%v), want the %d triggers' and the probe's", n, err, len(embedTriggers))
	}
	fake.mu.Lock()
	sizes := slices.Clone(fake.sizes)
	fake.mu.Unlock()
	if slices.Max(sizes) < 2 || slices.Max(sizes) > EmbedBatch {
		t.Errorf("texts per background call %v: want batches of 2 to %d", sizes, EmbedBatch)
	}
	// A wording two procedures share is one wording, with one vector.
	before := m.EmbedderStatus()
	for i, trig := range embedTriggers[:2] {
		if err := m.Add(ctx, Procedure{ID: fmt.Sprint("twin", i), Trigger: trig, Tools: []string{"fs.list", "fs.delete"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.SettleEmbedder(ctx); err != nil {
		t.Fatal(err)
	}
	if es := m.EmbedderStatus(); es.Wordings != before.Wordings || es.Embedded != es.Wordings || es.Wordings < len(embedTriggers) || !es.InUse {
		t.Errorf("embedder status %+v after two procedures with stored wordings (before: %d wordings): want them counted once, all embedded, in use", es, before.Wordings)
	}
	_, ranked, err := m.Rank(ctx, request, all)
	if err != nil {
		t.Fatal(err)
	}
	if !fake.called(request) {
		t.Fatal("the request was not embedded by the embedding model")
	}
	if len(ranked) == 0 || ranked[0].ID != "pa" || ranked[0].Features.Cosine < 0.99 {
		t.Fatalf("the embedding model's vector (the trigger's own) is not what recall compared: %+v", ranked)
	}

	// Down: recall still answers, by the built-in encoder.
	fake.mu.Lock()
	fake.down = true
	fake.mu.Unlock()
	_, ranked, err = m.Rank(ctx, request, all)
	if err != nil || len(ranked) == 0 || ranked[0].Features.Cosine >= 0.99 {
		t.Fatalf("with the embedding model down: %v %+v", err, ranked)
	}
	if _, err := m.Recall(ctx, "check the battery health of my laptop", all, 3); err != nil {
		t.Fatal(err)
	}
	closeBoth(st, m)

	// Reopened: stored vectors are read back, not computed again.
	st, m = open(t, dir)
	defer closeBoth(st, m)
	again := &fakeEmbedder{modelTag: "m"}
	if err := m.SetEmbedder(ctx, again); err != nil {
		t.Fatal(err)
	}
	if err := m.SettleEmbedder(ctx); err != nil {
		t.Fatal(err)
	}
	for _, trig := range embedTriggers {
		if again.called(trig) {
			t.Fatalf("%q embedded again although its vector was stored", trig)
		}
	}
	// Another model gets its own vectors.
	other := &fakeEmbedder{modelTag: "other"}
	if err := m.SetEmbedder(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := m.SettleEmbedder(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Vectors().Count(ctx, VectorsName(other)); n != int64(len(embedTriggers))+1 {
		t.Fatalf("%d vectors for the other model", n)
	}
}

// TestSlowEmbedderRunsToItsEnd: a recall does not wait for an embedding
// model past its budget (it answers with the built-in encoder), but does
// not cancel the call either: a model Ollama is loading then finishes
// loading and is warm for the next request.
func TestSlowEmbedderRunsToItsEnd(t *testing.T) {
	ctx := context.Background()
	st, m := open(t, t.TempDir())
	defer closeBoth(st, m)
	const request = "remove folders with nothing in them from my documents"
	release := make(chan struct{})
	fake := &fakeEmbedder{modelTag: "m", slow: map[string]chan struct{}{request: release}, ended: make(chan error, 1)}
	withEmbedder(t, m, fake)
	m.budget = nil // as in use, not as open (WaitForMeaning) leaves it for tests
	old := EmbedderBudget
	EmbedderBudget = 10 * time.Millisecond
	defer func() { EmbedderBudget = old }()
	hits, err := m.Recall(ctx, request, all, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("answered without the embedding model: %d hits", len(hits))
	close(release)
	select {
	case err := <-fake.ended:
		if err != nil {
			t.Fatalf("the embedding call was cancelled when recall stopped waiting: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the embedding call never ended")
	}
}
