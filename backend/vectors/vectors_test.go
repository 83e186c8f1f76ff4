package vectors

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/recall"
	"github.com/shrimp-harness/shrimp/backend/sentence"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// TestStoredAndReadBack: vectors are written to the store as they are
// computed, read back at the next open instead of computed again, and
// vectors of another model are never loaded.
func TestStoredAndReadBack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"sort the bank statements into folders by year", "print the boarding passes for our flight on thursday"}
	vs, err := OpenBuiltIn(ctx, st.Vectors())
	if err != nil {
		t.Fatal(err)
	}
	vs.Want(texts...)
	vs.Want(texts[0]) // queued once
	if err := vs.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	want := vs.Get(texts[0])
	if len(want) != sentence.Dim || vs.Count() != len(texts) || !vs.Any() {
		t.Fatalf("vector of %q: %d values; %d texts with vectors, want %d", texts[0], len(want), vs.Count(), len(texts))
	}
	// A vector from some other model, which must not be used.
	if err := st.Vectors().Put(ctx, store.SentenceVector{Text: "stale", Model: "other-model", Vec: make([]byte, sentence.Dim)}); err != nil {
		t.Fatal(err)
	}
	vs.Close()
	if n, err := st.Vectors().Count(ctx, sentence.Model); err != nil || n != int64(len(texts)) {
		t.Errorf("%d vectors stored (%v), want %d", n, err, len(texts))
	}

	vs, err = OpenBuiltIn(ctx, st.Vectors())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	defer vs.Close()
	vs.Want(texts...)
	vs.mu.Lock()
	queued := len(vs.queue) + vs.busy
	vs.mu.Unlock()
	if queued != 0 {
		t.Errorf("texts encoded again after open, want none (their vectors are stored)")
	}
	if !slices.Equal(vs.Get(texts[0]), want) {
		t.Error("vector read back differs from the one computed")
	}
	if vs.Get("stale") != nil {
		t.Error("a vector of another model was loaded")
	}
}

// TestEncoderDown: an encoder that fails leaves texts without vectors (the
// caller compares by words), Wait still returns, and Close stops the
// workers.
func TestEncoderDown(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	calls := 0
	vs, err := Open(ctx, st.Vectors(), "ollama:down", 0, func(string) ([]float32, error) {
		calls++
		return nil, errors.New("connection refused")
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	vs.Want("a", "b")
	if err := vs.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if s := vs.Status(); s.Failed != 2 || s.Pending != 0 || s.Err == nil || s.Retry.IsZero() {
		t.Errorf("status after two failures %+v: want both failed, the error and a retry", s)
	}
	vs.Close()
	if s := vs.Status(); !s.Retry.IsZero() {
		t.Errorf("a retry is pending after Close: %+v", s)
	}
	if vs.Any() || vs.Get("a") != nil || calls != 2 {
		t.Errorf("any %v, vector %v, %d calls: want no vectors after 2 failed calls", vs.Any(), vs.Get("a"), calls)
	}
	vs.Want("c") // after Close: ignored, not blocking
	if err := vs.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestEncoderRetry: texts whose encoding failed are tried again after a
// backoff that doubles while the encoder stays down (up to its most) and
// starts again once it answers; Status reports the failures, the last
// error and the retry until every text has its vector.
func TestEncoderRetry(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	var down atomic.Bool
	var calls atomic.Int32
	down.Store(true)
	vs, err := Open(ctx, st.Vectors(), "ollama:flaky", 0, func(string) ([]float32, error) {
		calls.Add(1)
		if down.Load() {
			return nil, errors.New("connection refused")
		}
		return []float32{0.6, 0.8}, nil
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer vs.Close()
	vs.mu.Lock()
	vs.retryFirst, vs.retryMax, vs.backoff = 10*time.Millisecond, 40*time.Millisecond, 10*time.Millisecond
	vs.mu.Unlock()

	vs.Want("a", "b")
	// Each retry while down fails both texts again and doubles the wait.
	waitFor(t, "three rounds of failures", func() bool { return calls.Load() >= 6 })
	s := vs.Status()
	if s.Vectors != 0 || s.Err == nil || !strings.Contains(s.Err.Error(), "connection refused") {
		t.Fatalf("status while down: %+v", s)
	}
	vs.mu.Lock()
	backoff := vs.backoff
	vs.mu.Unlock()
	if backoff != 40*time.Millisecond {
		t.Errorf("backoff after three failed rounds %v, want the most, 40ms", backoff)
	}

	down.Store(false)
	waitFor(t, "both vectors after the encoder came back", func() bool { return vs.Count() == 2 })
	waitFor(t, "a clean status", func() bool {
		s = vs.Status()
		return s.Failed == 0 && s.Pending == 0 && s.Err == nil && s.Retry.IsZero()
	})
	vs.mu.Lock()
	backoff = vs.backoff
	vs.mu.Unlock()
	if backoff != 10*time.Millisecond {
		t.Errorf("backoff after a success %v, want the first again", backoff)
	}
	if n, err := st.Vectors().Count(ctx, "ollama:flaky"); err != nil || n != 2 {
		t.Errorf("%d vectors stored (%v), want 2", n, err)
	}
}

// TestRetryNowDuringACall: a call that fails after RetryNow (the model
// was pulled while it ran) has its texts encoded again at once, not left
// for the backoff (an hour here): its failure says nothing of the encoder
// since.
func TestRetryNowDuringACall(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	started, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	vs, err := Open(ctx, st.Vectors(), "ollama:pulled", 0, func(string) ([]float32, error) {
		if calls.Add(1) == 1 {
			close(started)
			<-release
			return nil, errors.New(`model "pulled" not found, try pulling it first`)
		}
		return []float32{0.6, 0.8}, nil
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer vs.Close()
	vs.mu.Lock()
	vs.retryFirst, vs.backoff = time.Hour, time.Hour
	vs.mu.Unlock()

	vs.Want("a")
	<-started
	vs.RetryNow() // nothing has failed yet: the call is still out
	close(release)
	waitFor(t, "the vector after the kick", func() bool { return vs.Count() == 1 })
	if s := vs.Status(); s.Failed != 0 || s.Err != nil || !s.Retry.IsZero() || calls.Load() != 2 {
		t.Errorf("status %+v after %d calls, want a clean one after 2", s, calls.Load())
	}
}

// TestCheckedStore: a store whose encoder may change under the same name
// (an Ollama model pulled again) hides its stored vectors until the probe's
// vector shows the encoder is the same; then they are used, not computed
// again. When the encoder changed, they are deleted and computed again
// with it, and the next open trusts the new ones.
func TestCheckedStore(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	const probe = "a probe sentence"
	texts := []string{"sort the bank statements", "print the boarding passes"}
	// An encoder: a vector from the text's bytes, turned by seed.
	type encoder struct {
		seed  float64
		mu    sync.Mutex
		calls []string
		hold  chan struct{} // the probe waits for it when set
	}
	one := func(e *encoder, text string) []float32 {
		v := make([]float32, 8)
		for i, b := range []byte(text) {
			v[i%8] += float32(math.Sin(float64(b)*e.seed + float64(i)))
		}
		recall.Normalise(v)
		return v
	}
	embed := func(e *encoder) EmbedFunc {
		return func(texts []string) ([][]float32, error) {
			e.mu.Lock()
			e.calls = append(e.calls, texts...)
			hold := e.hold
			e.mu.Unlock()
			if slices.Contains(texts, probe) && hold != nil {
				<-hold
			}
			var vs [][]float32
			for _, t := range texts {
				vs = append(vs, one(e, t))
			}
			return vs, nil
		}
	}
	calls := func(e *encoder) []string {
		e.mu.Lock()
		defer e.mu.Unlock()
		return slices.Clone(e.calls)
	}

	a := &encoder{seed: 1}
	vs := openWaited(t, st.Vectors(), "ollama:m", embed(a), 4, probe, texts)
	first := vs.Get(texts[0])
	if first == nil || vs.Count() != 2 {
		t.Fatalf("first open: %d vectors", vs.Count())
	}
	vs.Close()

	// The same encoder: the stored vectors are hidden until the probe
	// answers, then used as they are.
	same := &encoder{seed: 1, hold: make(chan struct{})}
	vs, err := OpenChecked(ctx, st.Vectors(), "ollama:m", embed(same), 1, probe)
	if err != nil {
		t.Fatal(err)
	}
	vs.Want(texts...)
	if vs.Get(texts[0]) != nil || vs.Count() != 0 {
		t.Error("stored vectors were used before the encoder was checked")
	}
	close(same.hold)
	if err := vs.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got := calls(same); !slices.Equal(got, []string{probe}) {
		t.Errorf("the same encoder was asked %q, want the probe alone", got)
	}
	if !slices.Equal(vs.Get(texts[0]), first) || vs.Count() != 2 {
		t.Errorf("stored vectors not used after the check: %d", vs.Count())
	}
	vs.Close()

	// Another encoder under the same name: computed again, stored in
	// their place.
	b := &encoder{seed: 7}
	vs = openWaited(t, st.Vectors(), "ollama:m", embed(b), 1, probe, texts)
	want := one(b, texts[0])
	if got := calls(b); len(got) != 3 || !slices.Equal(vs.Get(texts[0]), Quantize(want)) {
		t.Fatalf("after the encoder changed: asked %q, vector %v, want %v", got, vs.Get(texts[0]), Quantize(want))
	}
	vs.Close()
	if n, _ := st.Vectors().Count(ctx, "ollama:m"); n != 3 {
		t.Errorf("%d rows stored, want the 2 texts' and the probe's", n)
	}
	again := &encoder{seed: 7}
	vs = openWaited(t, st.Vectors(), "ollama:m", embed(again), 1, probe, texts)
	defer vs.Close()
	if got := calls(again); !slices.Equal(got, []string{probe}) || vs.Count() != 2 {
		t.Errorf("after the change was stored: asked %q, %d vectors", got, vs.Count())
	}
}

// openWaited opens a checked store (OpenChecked), asks for texts and
// waits until each has its vector or has failed.
func openWaited(t *testing.T, repo store.VectorRepo, name string, embed EmbedFunc, batch int, probe string, texts []string) *Store {
	t.Helper()
	vs, err := OpenChecked(context.Background(), repo, name, embed, batch, probe)
	if err != nil {
		t.Fatal(err)
	}
	vs.Want(texts...)
	if err := vs.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return vs
}

// waitFor polls cond until it holds, failing after a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestNearest: the sign-bit shortlist, ordered by exact cosine, holds the
// nearest vectors; a shortlist larger than the store returns all of them;
// ties at the cut distance never push a nearer vector out or the list
// over its length.
func TestNearest(t *testing.T) {
	q := unit(1)
	for _, tc := range []struct {
		name      string
		cosines   []float64 // of the stored vectors with q, in storage order
		copies    int       // extra copies of one far vector (identical signs: ties)
		shortlist int
		want      []int // indexes into cosines, best first
	}{
		{"nearest first", []float64{0.2, 0.9, 0.5, 0.7}, 0, 2, []int{1, 3}},
		{"shortlist over the store", []float64{0.3, 0.6}, 0, 10, []int{1, 0}},
		{"ties after a near one", []float64{0.1, 0.95}, 40, 3, []int{1}},
		{"empty", nil, 0, 5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mn := &Store{dim: sentence.Dim, vecs: map[string][]int8{}}
			// The copies come first: a scan that filled the shortlist
			// in storage order would miss the near vectors after them.
			far := Quantize(blend(q, orthogonal(q, unit(99)), 0.05))
			for i := range tc.copies {
				mn.put(fmt.Sprint("far", i), far)
			}
			for i, c := range tc.cosines {
				mn.put(fmt.Sprint(i), Quantize(blend(q, orthogonal(q, unit(uint64(10+i))), c)))
			}
			got := mn.Nearest(q, tc.shortlist)
			if len(got) > tc.shortlist {
				t.Fatalf("%d returned, shortlist %d", len(got), tc.shortlist)
			}
			for i, w := range tc.want {
				if i >= len(got) || got[i].Text != fmt.Sprint(w) || math.Abs(got[i].Cosine-tc.cosines[w]) > 0.02 {
					t.Fatalf("got %+v, want %v first (cosines %v)", got, tc.want, tc.cosines)
				}
			}
			if tc.copies > 0 && len(got) != tc.shortlist {
				t.Errorf("%d returned, want the shortlist filled (%d)", len(got), tc.shortlist)
			}
		})
	}
}

// orthogonal returns o minus its projection on unit vector q, normalised.
func orthogonal(q, o []float32) []float32 {
	var d float32
	for i := range q {
		d += q[i] * o[i]
	}
	out := make([]float32, len(o))
	for i := range o {
		out[i] = o[i] - d*q[i]
	}
	recall.Normalise(out)
	return out
}

// TestCalibrate: cosines of an encoder that puts every pair higher and
// closer together map onto the base encoder's mean and spread; too few
// texts or vectors that do not vary give no calibration.
func TestCalibrate(t *testing.T) {
	const n = 12
	var base, other [][]int8
	common := unit(7)
	for i := range n {
		b := unit(uint64(100 + i))
		base = append(base, Quantize(b))
		// other: the same texts pulled towards one direction, as an
		// encoder whose unrelated sentences sit at cosine 0.4 does.
		other = append(other, Quantize(blend(common, b, 0.6)))
	}
	a, b, ok := Calibrate(base, other)
	if !ok {
		t.Fatal("no calibration from 12 texts")
	}
	var cb, cm []float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			cb = append(cb, Cosine8(base[i], base[j]))
			cm = append(cm, a*Cosine8(other[i], other[j])+b)
		}
	}
	mb, sb := meanStd(cb)
	mm, sm := meanStd(cm)
	if math.Abs(mb-mm) > 1e-9 || math.Abs(sb-sm) > 1e-9 || a <= 1 {
		t.Errorf("mapped mean %.3f spread %.3f, base %.3f %.3f (a %.2f: the other encoder's cosines vary less)", mm, sm, mb, sb, a)
	}
	for _, tc := range []struct {
		name        string
		base, other [][]int8
	}{
		{"one text", base[:1], other[:1]},
		{"none", nil, nil},
		{"identical vectors", base[:3], [][]int8{other[0], other[0], other[0]}},
	} {
		if _, _, ok := Calibrate(tc.base, tc.other); ok {
			t.Errorf("%s: calibrated, want not", tc.name)
		}
	}
}

func unit(seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	v := make([]float32, sentence.Dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	recall.Normalise(v)
	return v
}

// blend is a unit vector at cosine c from q (o is orthogonal noise, or
// any vector: then c is only the weight of q).
func blend(q, o []float32, c float64) []float32 {
	v := make([]float32, len(q))
	for i := range v {
		v[i] = float32(c)*q[i] + float32(math.Sqrt(1-c*c))*o[i]
	}
	recall.Normalise(v)
	return v
}

// TestRecalibrate: no calibration until MinCalibration texts have both
// vectors; then one, kept until the other store has grown by a quarter.
func TestRecalibrate(t *testing.T) {
	base := &Store{vecs: map[string][]int8{}}
	other := &Store{vecs: map[string][]int8{}}
	var texts []string
	add := func(n int) {
		for range n {
			i := len(texts)
			text := fmt.Sprint("text ", i)
			b := unit(uint64(200 + i))
			base.Keep(text, b)
			other.Keep(text, blend(unit(7), b, 0.6))
			texts = append(texts, text)
		}
	}
	var c Calibration
	add(MinCalibration - 1)
	if c = Recalibrate(c, base, other, slices.Values(texts)); c.N != 0 {
		t.Fatalf("calibrated from %d texts, want none below %d", c.N, MinCalibration)
	}
	add(1)
	if c = Recalibrate(c, base, other, slices.Values(texts)); c.N != MinCalibration || c.A <= 1 {
		t.Fatalf("calibration %+v, want one from %d texts", c, MinCalibration)
	}
	add(4) // 24: less than a quarter more
	if got := Recalibrate(c, base, other, slices.Values(texts)); got != c {
		t.Errorf("recomputed after growing by a fifth: %+v", got)
	}
	add(1) // 25: a quarter more
	if got := Recalibrate(c, base, other, slices.Values(texts)); got.N != 25 {
		t.Errorf("calibration %+v, want one from 25 texts", got)
	}
	if m := c.Map(0.5); m != c.A*0.5+c.B {
		t.Errorf("Map(0.5) = %v", m)
	}

	// More texts than it compares, each pulled its own way: the same
	// calibration whatever order the texts come in (a map's, in recall),
	// and a text met twice counts once.
	for i := len(texts); i < 120; i++ {
		text := fmt.Sprint("text ", i)
		b := unit(uint64(200 + i))
		base.Keep(text, b)
		other.Keep(text, blend(unit(7), b, 0.3+float64(i%7)/10))
		texts = append(texts, text)
	}
	want := Recalibrate(Calibration{}, base, other, slices.Values(texts))
	for seed := range uint64(5) {
		shuffled := slices.Clone(texts)
		rand.New(rand.NewPCG(seed, 1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		shuffled = append(shuffled, shuffled[:10]...)
		if got := Recalibrate(Calibration{}, base, other, slices.Values(shuffled)); got != want || got.N != 120 {
			t.Fatalf("calibration %+v with the texts shuffled, %+v in order: want the same, from 120 texts", got, want)
		}
	}
}

// TestBatches: a checked store hands its encoder up to batch texts per
// call; a text the encoder cannot take (it fails the whole call, as
// Ollama does for an input a model turns into NaN) fails alone while its
// batch-mates get their vectors; a call that ran out of time is not split
// into more calls.
func TestBatches(t *testing.T) {
	ctx := context.Background()
	var texts []string
	for i := range 20 {
		texts = append(texts, fmt.Sprintf("text %02d", i))
	}
	const bad = "text 13"
	cases := []struct {
		name      string
		fail      func(texts []string) error
		vectors   int
		failed    int
		mostCalls int
	}{
		{"all good", func([]string) error { return nil }, 20, 0, 1 + 3}, // the probe, then 8+8+4
		{"one bad text", func(in []string) error {
			if slices.Contains(in, bad) {
				return errors.New(`ollama answered 500: json: unsupported value: NaN`)
			}
			return nil
		}, 19, 1, 1 + 3 + 2*3}, // its batch of 8 halved three times: two calls a level
		{"stalled", func(in []string) error {
			if len(in) > 1 {
				return fmt.Errorf("embed: %w", context.DeadlineExceeded)
			}
			return nil
		}, 0, 20, 1 + 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := tempStore(t)
			var mu sync.Mutex
			var sizes []int
			embed := func(in []string) ([][]float32, error) {
				mu.Lock()
				sizes = append(sizes, len(in))
				mu.Unlock()
				if err := c.fail(in); err != nil {
					return nil, err
				}
				vs := make([][]float32, len(in))
				for i := range in {
					vs[i] = []float32{0.6, 0.8}
				}
				return vs, nil
			}
			vs := openWaited(t, st.Vectors(), "ollama:batch", embed, 8, "a probe", texts)
			defer vs.Close()
			s := vs.Status()
			mu.Lock()
			defer mu.Unlock()
			if s.Vectors != c.vectors || s.Failed != c.failed || s.Pending != 0 {
				t.Errorf("status %+v: want %d vectors, %d failed", s, c.vectors, c.failed)
			}
			if len(sizes) == 0 || sizes[0] != 1 || slices.Max(sizes) > 8 || len(sizes) > c.mostCalls {
				t.Errorf("call sizes %v: want the probe alone first, then at most 8 texts a call, %d calls at most", sizes, c.mostCalls)
			}
			if c.failed > 0 && s.Err == nil {
				t.Error("texts failed and the status gives no error")
			}
			if c.failed == 1 && vs.Get(bad) != nil {
				t.Error("the text the encoder cannot take has a vector")
			}
			if n, _ := st.Vectors().Count(ctx, "ollama:batch"); int(n) != c.vectors+1 {
				t.Errorf("%d rows stored, want the %d vectors and the probe's", n, c.vectors)
			}
		})
	}
}

// TestModel: an embedding model beside the built-in encoder embeds each
// stored text as written (source), in batches, scaled to unit length;
// once enough texts have both vectors its cosines are calibrated, and a
// request's cosines with texts come mapped, or not at all while one text
// has no vector; a request's embedding runs to its end after the caller
// stops waiting.
func TestModel(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	base := &Store{vecs: map[string][]int8{}}
	var texts []string
	byText := map[string][]float32{}
	for i := range MinCalibration + 5 {
		key := fmt.Sprint("key ", i)
		base.Keep(key, unit(uint64(300+i)))
		byText["as written "+key] = blend(unit(7), unit(uint64(300+i)), 0.5)
		texts = append(texts, key)
	}
	var mu sync.Mutex
	var asked []string
	release := make(chan struct{})
	ended := make(chan error, 1)
	embed := func(ctx context.Context, in []string) ([][]float32, error) {
		mu.Lock()
		asked = append(asked, in...)
		mu.Unlock()
		if in[0] == "slow request" {
			<-release
			ended <- ctx.Err()
		}
		out := make([][]float32, len(in))
		for i, s := range in {
			v, ok := byText[s]
			if !ok {
				v = unit(9)
			}
			out[i] = make([]float32, len(v))
			for j, x := range v {
				out[i][j] = 3 * x // not unit length: the model scales it
			}
		}
		return out, nil
	}
	source := func(key string) string { return "as written " + key }
	m, err := OpenModel(ctx, st.Vectors(), "ollama:m", base, embed, source, 8, time.Minute, "a probe")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Want(texts...)
	if err := m.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if !slices.Contains(asked, "as written key 3") || slices.Contains(asked, "key 3") {
		t.Errorf("the model was asked %q: want the texts as written", asked)
	}
	mu.Unlock()
	c := m.Calibration(slices.Values(texts))
	if c.N != len(texts) {
		t.Fatalf("calibration %+v, want one from %d texts", c, len(texts))
	}
	q := byText["as written key 2"]
	cs, ok := m.Cosines(q, c, texts[2:4])
	if !ok || len(cs) != 2 || math.Abs(cs[0]-c.Map(1)) > 0.01 || cs[1] >= cs[0] {
		t.Errorf("cosines %v (%v): want the text's own first, mapped (%.3f)", cs, ok, c.Map(1))
	}
	if _, ok := m.Cosines(q, c, []string{texts[0], "never embedded"}); ok {
		t.Error("cosines reported for a text without the model's vector")
	}

	// A request the caller stops waiting for (its context cancelled)
	// runs to its end.
	reqCtx, cancel := context.WithCancel(ctx)
	ch := m.Request(reqCtx, "slow request")
	cancel()
	close(release)
	if err := <-ended; err != nil {
		t.Errorf("the request's call ended with %v, want it to run to its end", err)
	}
	if v := <-ch; v == nil || math.Abs(Cosine8(Quantize(v), Quantize(unit(9)))-1) > 0.01 {
		t.Errorf("the request's vector is not the model's, scaled to unit length")
	}
}

// tempStore opens a store in a temporary directory, closed when the test
// ends.
func tempStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestDot holds the SIMD dot product of a float and an int8 vector to
// the Go loop's, in float64, within float32 rounding.
func TestDot(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 31, 32, 33, 100, 512, 1024} {
		q, v := make([]float32, n), make([]int8, n)
		var want, size float64
		for i := range n {
			q[i], v[i] = float32(r.NormFloat64()), int8(r.IntN(256)-128)
			want += float64(q[i]) * float64(v[i])
			size += math.Abs(float64(q[i]) * float64(v[i]))
		}
		if got := float64(dot(q, v)); math.Abs(got-want) > 1e-5*size+1e-9 {
			t.Errorf("n=%d: dot = %v, want %v (AVX2: %v)", n, got, want, hasAVX2)
		}
	}
	if !hasAVX2 {
		t.Log("no AVX2 and FMA here: only the Go loop was tested")
	}
}

// BenchmarkNearest10k is the nearest-vector step of a recall: 10,000
// stored 512-value vectors, a shortlist of 64, with each sign scan this
// CPU has.
func BenchmarkNearest10k(b *testing.B) {
	st, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	vs, err := OpenBuiltIn(context.Background(), st.Vectors())
	if err != nil {
		b.Fatal(err)
	}
	defer vs.Close()
	for i := range 10_000 {
		vs.Keep(fmt.Sprintf("text %d", i), unit(uint64(1000+i)))
	}
	qs := make([][]float32, 64)
	for i := range qs {
		qs[i] = unit(uint64(20_000 + i))
	}
	defer func(v, p bool) { hasVPOPCNT, hasPOPCNT = v, p }(hasVPOPCNT, hasPOPCNT)
	kernels := scans()
	for _, name := range []string{"AVX-512", "POPCNT", "Go"} {
		k, ok := kernels[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			hasVPOPCNT, hasPOPCNT = k[0], k[1]
			i := 0
			for b.Loop() {
				vs.Nearest(qs[i%len(qs)], 64)
				i++
			}
		})
	}
}

// scans are the sign scans this CPU has, as the hasVPOPCNT and hasPOPCNT
// they need.
func scans() map[string][2]bool {
	kernels := map[string][2]bool{"Go": {false, false}}
	if hasVPOPCNT {
		kernels["AVX-512"] = [2]bool{true, false}
	}
	if hasPOPCNT {
		kernels["POPCNT"] = [2]bool{false, true}
	}
	return kernels
}

// TestHammings: each scan this CPU has gives the Go loop's distances, for
// stores of every size around the AVX-512 kernel's blocks of eight, and at
// the extremes (identical signs: 0; opposite: 512).
func TestHammings(t *testing.T) {
	defer func(v, p bool) { hasVPOPCNT, hasPOPCNT = v, p }(hasVPOPCNT, hasPOPCNT)
	kernels := scans()
	t.Logf("scans: %d of them", len(kernels))
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 7, 8, 9, 16, 17, 63, 1000} {
		var q [signWords]uint64
		for j := range q {
			q[j] = r.Uint64()
		}
		signs := make([][signWords]uint64, n)
		for i := range signs {
			for j := range signs[i] {
				switch i % 5 {
				case 0:
					signs[i][j] = q[j]
				case 1:
					signs[i][j] = ^q[j]
				default:
					signs[i][j] = r.Uint64()
				}
			}
		}
		want := make([]uint16, n)
		for i := range signs {
			want[i] = uint16(hamming(&q, &signs[i]))
			if i%5 == 0 && want[i] != 0 || i%5 == 1 && want[i] != 512 {
				t.Fatalf("hamming of %d: %d", i, want[i])
			}
		}
		for name, k := range kernels {
			hasVPOPCNT, hasPOPCNT = k[0], k[1]
			got := make([]uint16, n)
			hammings(&q, signs, got)
			if !slices.Equal(got, want) {
				t.Errorf("%s, %d vectors: %v, want %v", name, n, got[:min(n, 10)], want[:min(n, 10)])
			}
		}
	}
}
