// Package vectors keeps sentence vectors of texts for one encoder: loaded
// from the store at open, computed for new texts by background workers
// (encoding takes 0.5-24 ms by CPU, more than a caller may wait) and written
// back, and searched for the nearest ones to a request's vector by a scan
// of their sign bits.
//
// Its contract: vectors are derived data. A lost one is computed again
// after the next Open; one whose encoding failed (an embedding model's
// server down or loading) is tried again after a backoff of 15 s doubling
// to 5 min; until a text has one, Get returns nil and callers compare by
// other means (recall by words). A store opened with OpenChecked (an
// encoder that may change under the same name) shows its stored vectors
// only once a probe text's vector matches the one stored with them, and
// computes them again when it does not; it hands its encoder several
// texts per call, and a text the encoder cannot take fails alone, not
// its batch. Status says how far the store has come. A Model is such a
// store for an embedding model beside the built-in encoder's, with its
// cosines mapped onto the built-in scale. Vectors are unit length,
// quantised to int8 (scaled by 127); another model's stored vectors are
// never loaded. Every method is safe for concurrent use.
package vectors

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/backend/sentence"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// Store keeps the sentence vectors of one model for a set of texts.
type Store struct {
	repo  store.VectorRepo
	model string    // the vectors' model, as stored
	dim   int       // the vectors' length; 0: any
	embed EmbedFunc // the texts' unit vectors
	batch int       // the most texts per embed call

	mu   sync.Mutex
	vecs map[string][]int8 // text -> unit vector scaled by 127
	// signs holds each vector's sign bits, rows its text and vector, in
	// the order the vectors came: what Nearest scans. Only vectors of dim
	// values are kept there (the built-in encoder's; an embedding model's
	// vectors, dim 0, are compared with candidates only).
	signs   [][signWords]uint64
	rows    []Near
	queue   []string
	queued  map[string]bool
	busy    int           // texts being encoded now
	idle    chan struct{} // closed while nothing is queued or encoding
	closed  bool
	warned  bool
	workers sync.WaitGroup
	wake    *sync.Cond

	// Texts whose encoding failed wait for a retry: an embedding model's
	// server that is down or loading fails every text, and comes back.
	failed  map[string]bool
	lastErr error         // the last failure since the last success
	retry   *time.Timer   // pending retry of failed; nil: none
	retryAt time.Time     // when it fires
	backoff time.Duration // the wait before the next retry
	// retryFirst and retryMax bound backoff, which doubles from the first
	// to the most after each failed retry and starts again on a success.
	retryFirst, retryMax time.Duration
	// kicks counts RetryNow's calls: a failure of a call that began
	// before the latest one says nothing of the encoder since (the model
	// pulled while it ran), so its texts are queued again at once rather
	// than left for the backoff.
	kicks int

	// An encoder that can change under the same name (an Ollama model
	// pulled again) is checked before its stored vectors are trusted:
	// held keeps them, unseen, until the probe text's vector, computed
	// first, matches the stored one (or none was stored); if it does not,
	// they are deleted and computed again. probe is "" when no check is
	// made.
	probe    string
	probeVec []int8
	held     map[string][]int8
}

// probeKey is the text under which a checked store keeps its probe's
// vector: no request or trigger starts with a NUL.
const probeKey = "\x00probe"

// probeSame is the cosine above which the probe's vector is taken to come
// from the same encoder (the same weights give the same vector; a server
// may differ in the last bits).
const probeSame = 0.995

// The waits before failed texts are encoded again: the first, doubling
// after each retry that fails too, up to the most (variables for tests;
// a store takes them when it opens).
var (
	RetryFirst = 15 * time.Second
	RetryMax   = 5 * time.Minute
)

// EmbedFunc returns the unit vectors of texts, in order, or an error for
// the call as a whole.
type EmbedFunc func(texts []string) ([][]float32, error)

// OpenBuiltIn loads the built-in encoder's stored vectors and starts its
// workers (two at most: encoding competes with what the user is doing).
func OpenBuiltIn(ctx context.Context, repo store.VectorRepo) (*Store, error) {
	return Open(ctx, repo, sentence.Model, sentence.Dim, builtIn, max(1, min(2, runtime.GOMAXPROCS(0))))
}

// builtIn encodes with the sentence encoder in the binary.
func builtIn(text string) ([]float32, error) {
	enc := sentence.Default()
	if enc == nil {
		return nil, errNoModel
	}
	return enc.Encode(text), nil
}

// Open loads model's stored vectors (of dim values; 0: any) and starts
// workers that compute the missing ones with embed (which returns a unit
// vector). Only vectors of dim values are scanned by Nearest.
func Open(ctx context.Context, repo store.VectorRepo, model string, dim int, embed func(string) ([]float32, error), workers int) (*Store, error) {
	one := func(texts []string) ([][]float32, error) {
		v, err := embed(texts[0])
		return [][]float32{v}, err
	}
	return open(ctx, repo, model, dim, one, 1, workers, "")
}

// OpenChecked is Open for an encoder that may change under the same name
// (an Ollama model pulled again), called by one worker with up to batch
// texts at a time (a server computes several in one pass): the stored
// vectors are used only once probe's vector, computed first, is the one
// stored with them; otherwise they are deleted and computed again.
func OpenChecked(ctx context.Context, repo store.VectorRepo, model string, embed EmbedFunc, batch int, probe string) (*Store, error) {
	return open(ctx, repo, model, 0, embed, max(1, batch), 1, probe)
}

func open(ctx context.Context, repo store.VectorRepo, model string, dim int, embed EmbedFunc, batch, workers int, probe string) (*Store, error) {
	mn := &Store{repo: repo, model: model, dim: dim, embed: embed, batch: batch, vecs: map[string][]int8{}, queued: map[string]bool{}, idle: make(chan struct{}),
		failed: map[string]bool{}, retryFirst: RetryFirst, retryMax: RetryMax, backoff: RetryFirst, probe: probe}
	close(mn.idle)
	mn.wake = sync.NewCond(&mn.mu)
	rows, err := repo.Load(ctx, model)
	if err != nil {
		return nil, fmt.Errorf("loading %s sentence vectors: %w", model, err)
	}
	if probe != "" {
		mn.held = map[string][]int8{}
	}
	for _, r := range rows {
		switch {
		case len(r.Vec) == 0 || dim > 0 && len(r.Vec) != dim:
		case probe == "":
			mn.put(r.Text, bytesToInt8(r.Vec))
		case r.Text == probeKey:
			mn.probeVec = bytesToInt8(r.Vec)
		default:
			mn.held[r.Text] = bytesToInt8(r.Vec)
		}
	}
	if probe != "" {
		mn.Want(probeKey)
	}
	for range workers {
		mn.workers.Add(1)
		go mn.work()
	}
	return mn, nil
}

// Any says at least one text has a vector.
func (mn *Store) Any() bool {
	mn.mu.Lock()
	defer mn.mu.Unlock()
	return len(mn.vecs) > 0
}

// Want queues the texts that have no vector yet for the workers.
func (mn *Store) Want(texts ...string) {
	mn.mu.Lock()
	defer mn.mu.Unlock()
	for _, t := range texts {
		if _, ok := mn.vecs[t]; ok {
			delete(mn.failed, t)
			continue
		}
		if _, ok := mn.held[t]; ok { // stored, to be checked
			continue
		}
		if mn.queued[t] || mn.closed {
			continue
		}
		if len(mn.queue) == 0 && mn.busy == 0 {
			mn.idle = make(chan struct{})
		}
		mn.queued[t] = true
		mn.queue = append(mn.queue, t)
		delete(mn.failed, t)
	}
	mn.wake.Broadcast()
}

// Status is what a Store has done so far (shrimp doctor and Settings show
// it for an embedding model).
type Status struct {
	Vectors int       // texts with a vector
	Pending int       // texts queued or being encoded
	Failed  int       // texts whose encoding failed, to be tried again at Retry (the probe not counted)
	Retry   time.Time // when the failed ones are tried again; zero: none wait
	Err     error     // the last failure while texts wait for a retry or since the last success; nil: none
}

// Status reports the store's progress.
func (mn *Store) Status() Status {
	mn.mu.Lock()
	defer mn.mu.Unlock()
	// The probe is the store's own business, not a text of the caller's.
	st := Status{Vectors: len(mn.vecs), Pending: len(mn.queue) + mn.busy, Failed: len(mn.failed), Err: mn.lastErr}
	if mn.queued[probeKey] {
		st.Pending--
	}
	if mn.failed[probeKey] {
		st.Failed--
	}
	if mn.retry != nil {
		st.Retry = mn.retryAt
	}
	return st
}

// Name is the name the vectors are stored under (their model's).
func (mn *Store) Name() string { return mn.model }

// Count is how many texts have a vector.
func (mn *Store) Count() int {
	mn.mu.Lock()
	defer mn.mu.Unlock()
	return len(mn.vecs)
}

// Get returns the vector of text (unit length scaled by 127), nil until
// it has been computed.
func (mn *Store) Get(text string) []int8 {
	mn.mu.Lock()
	defer mn.mu.Unlock()
	return mn.vecs[text]
}

// Keep keeps text's vector, computed by the caller, in memory only
// (benchmarks preset thousands this way).
func (mn *Store) Keep(text string, v []float32) {
	mn.mu.Lock()
	defer mn.mu.Unlock()
	mn.put(text, Quantize(v))
}

// put keeps text's vector. The caller holds mn.mu.
func (mn *Store) put(text string, v []int8) {
	if _, ok := mn.vecs[text]; !ok && mn.dim > 0 && len(v) == mn.dim {
		mn.signs = append(mn.signs, signsOf(v))
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		mn.rows = append(mn.rows, Near{Text: text, vec: v, norm: float32(max(1, math.Sqrt(n)))})
	}
	mn.vecs[text] = v
}

// signWords is how many 64-bit words hold a vector's sign bits.
const signWords = 8

// signsOf packs the signs of v's first 512 values.
func signsOf[T int8 | float32](v []T) [signWords]uint64 {
	var s [signWords]uint64
	for i, x := range v[:min(len(v), 64*signWords)] {
		if x > 0 {
			s[i/64] |= 1 << (i % 64)
		}
	}
	return s
}

// Near is a text Nearest found and its vector's cosine with the query's.
type Near struct {
	Text   string
	Cosine float64
	vec    []int8
	norm   float32 // vec's length
}

// Nearest returns, best first, the texts whose vectors are nearest q (a
// unit vector): the shortlist whose sign bits differ least from q's (the
// angle between two vectors is about π times the share of signs that
// differ), ordered by their exact cosines. The scan touches 64 bytes per
// vector, so it costs little next to the encoding even with 100,000
// triggers; on the evaluation sets' 1,477 triggers a shortlist of 64
// holds 99.8% of the exact ten nearest, one of 128 all of them.
func (mn *Store) Nearest(q []float32, shortlist int) []Near {
	qs := signsOf(q)
	mn.mu.Lock()
	defer mn.mu.Unlock()
	// How many vectors lie at each distance, then the ones within the
	// distance that fills the shortlist.
	var at [64*signWords + 1]int
	dist := distances.Get().(*[]uint16)
	defer distances.Put(dist)
	if cap(*dist) < len(mn.signs) {
		*dist = make([]uint16, len(mn.signs), len(mn.signs)+len(mn.signs)/4)
	}
	ds := (*dist)[:len(mn.signs)]
	hammings(&qs, mn.signs, ds)
	for _, d := range ds {
		at[d]++
	}
	cut, n := 0, 0
	for cut < len(at)-1 && n+at[cut] < shortlist {
		n += at[cut]
		cut++
	}
	out := make([]Near, 0, min(shortlist, len(mn.signs)))
	ties := shortlist - n // how many at distance cut fit
	for i, d := range ds {
		if int(d) > cut || int(d) == cut && ties == 0 {
			continue
		}
		if int(d) == cut {
			ties--
		}
		r := mn.rows[i]
		if len(r.vec) != len(q) { // another model's vector
			continue
		}
		r.Cosine = float64(dot(q, r.vec) / r.norm)
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Near) int { return cmp.Compare(b.Cosine, a.Cosine) })
	return out
}

// distances are nearest's buffers, one per concurrent recall.
var distances = sync.Pool{New: func() any { return new([]uint16) }}

// dot is the dot product of q and v, of one length; in AVX2 its sums are
// added in another order than the Go loop's, so the two may differ in
// the last bits of a float32.
func dot(q []float32, v []int8) float32 {
	q = q[:len(v)]
	var s float32
	j := 0
	if n := len(v) &^ 31; hasAVX2 && n > 0 {
		s, j = dotAVX2(&q[0], &v[0], n), n
	}
	for ; j < len(v); j++ {
		s += q[j] * float32(v[j])
	}
	return s
}

// hammings sets out[i] to the number of bits in which signs[i] and q
// differ, for every i: eight vectors at a time with AVX-512's VPOPCNTQ,
// one at a time with POPCNT, else in Go (where every count first checks
// that the CPU has POPCNT). Nearest over 10,000 vectors
// (BenchmarkNearest10k) takes 99-111 µs with the Go loop, 57-65 with
// POPCNT and 35-41 with VPOPCNTQ, whose scan is 4 µs of it.
func hammings(q *[signWords]uint64, signs [][signWords]uint64, out []uint16) {
	out = out[:len(signs)]
	i := 0
	switch {
	case hasVPOPCNT && len(signs) >= 8:
		i = len(signs) &^ 7
		hammingsAVX512(q, &signs[0], i, &out[0])
	case hasPOPCNT && len(signs) > 0:
		hammingsPOPCNT(q, &signs[0], len(signs), &out[0])
		return
	}
	for ; i < len(signs); i++ {
		out[i] = uint16(hamming(q, &signs[i]))
	}
}

func hamming(a, b *[signWords]uint64) int {
	d := 0
	for i := range a {
		d += bits.OnesCount64(a[i] ^ b[i])
	}
	return d
}

// Wait returns when every queued text has its vector, or ctx is done.
func (mn *Store) Wait(ctx context.Context) error {
	mn.mu.Lock()
	idle := mn.idle
	mn.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the workers after the texts they are encoding; what is still
// queued is encoded at the next open. A nil Store is closed.
func (mn *Store) Close() {
	if mn == nil {
		return
	}
	mn.mu.Lock()
	mn.closed = true
	mn.queue = nil
	if mn.retry != nil {
		mn.retry.Stop()
		mn.retry = nil
	}
	mn.wake.Broadcast()
	mn.mu.Unlock()
	mn.workers.Wait()
	// Nothing is left to wait for.
	mn.mu.Lock()
	mn.markIdle()
	mn.mu.Unlock()
}

// markIdle releases Wait's callers (idle stays closed until Want queues
// a text again). The caller holds mn.mu.
func (mn *Store) markIdle() {
	select {
	case <-mn.idle:
	default:
		close(mn.idle)
	}
}

func (mn *Store) work() {
	defer mn.workers.Done()
	for {
		mn.mu.Lock()
		for len(mn.queue) == 0 && !mn.closed {
			mn.wake.Wait()
		}
		if mn.closed {
			mn.mu.Unlock()
			return
		}
		texts := mn.take()
		mn.busy += len(texts)
		kick := mn.kicks
		mn.mu.Unlock()

		vecs, errs := mn.encode(texts)

		mn.mu.Lock()
		mn.busy -= len(texts)
		for i, text := range texts {
			mn.done(text, vecs[i], errs[i], kick != mn.kicks)
		}
		if len(mn.queue) == 0 && mn.busy == 0 {
			mn.markIdle()
		}
		mn.mu.Unlock()
	}
}

// take removes the next texts to encode from the queue: up to batch of
// them, the probe alone (its answer decides what the others are
// compared with). The caller holds mn.mu.
func (mn *Store) take() []string {
	n := 1
	if mn.queue[0] != probeKey {
		for n < len(mn.queue) && n < mn.batch && mn.queue[n] != probeKey {
			n++
		}
	}
	texts := slices.Clone(mn.queue[:n])
	mn.queue = mn.queue[n:]
	return texts
}

// done records text's encoding: its vector, or its failure to be retried;
// stale says RetryNow was called while it ran, and a failure is then
// queued again at once. The caller holds mn.mu.
func (mn *Store) done(text string, vec []int8, err error, stale bool) {
	delete(mn.queued, text)
	if vec == nil && err != nil && stale && !mn.closed {
		mn.queued[text] = true
		mn.queue = append(mn.queue, text)
		mn.wake.Broadcast()
		return
	}
	switch {
	case vec != nil && text == probeKey:
		mn.checked(vec)
	case vec != nil:
		mn.put(text, vec)
	}
	// Without a model every trigger fails the same way, and
	// sentence.Default has said why, once. The probe's failure says
	// nothing the caller's texts will not (a command that never needed a
	// vector stays quiet when Ollama is down).
	if err != nil && !errors.Is(err, errNoModel) && text != probeKey {
		mn.warnLocked(err)
	}
	switch {
	case err == nil:
		// A text the encoder cannot take keeps its error shown while
		// it waits, whatever its batch-mates did.
		if len(mn.failed) == 0 {
			mn.lastErr = nil
		}
		mn.backoff = mn.retryFirst
	case vec == nil && !errors.Is(err, errNoModel):
		// Not computed (a vector computed but not written back is
		// kept and written again by no one: it is derived data).
		mn.lastErr = err
		mn.failed[text] = true
		mn.scheduleRetry()
	}
}

// checked takes the stored vectors once the probe's vector v has been
// computed: they are seen from now on if it is the one stored with them,
// and deleted and queued to be computed again if it is not. The caller
// holds mn.mu.
func (mn *Store) checked(v []int8) {
	held := mn.held
	mn.held = nil
	if mn.probeVec == nil || len(mn.probeVec) == len(v) && Cosine8(mn.probeVec, v) >= probeSame {
		for t, hv := range held {
			mn.put(t, hv)
		}
		mn.probeVec = v
		return
	}
	slog.Info("the embedding model changed since its vectors were stored: computing them again", "model", mn.model, "vectors", len(held))
	if err := mn.repo.DeleteModel(context.Background(), mn.model); err != nil {
		slog.Warn("old sentence vectors not deleted: they are computed again but stay stored", "model", mn.model, "err", err)
	}
	mn.probeVec = v
	if err := mn.repo.Put(context.Background(), store.SentenceVector{Text: probeKey, Model: mn.model, Vec: int8ToBytes(v)}); err != nil {
		slog.Warn("probe vector not stored", "model", mn.model, "err", err)
	}
	for t := range held {
		if _, ok := mn.vecs[t]; !ok && !mn.queued[t] {
			mn.queued[t] = true
			mn.queue = append(mn.queue, t)
		}
	}
	mn.wake.Broadcast()
}

// scheduleRetry arranges for the failed texts to be queued again after the
// current backoff, unless a retry is already pending. The caller holds
// mn.mu.
func (mn *Store) scheduleRetry() {
	if mn.retry != nil || mn.closed {
		return
	}
	wait := mn.backoff
	mn.backoff = min(2*mn.backoff, mn.retryMax)
	mn.retryAt = time.Now().Add(wait)
	mn.retry = time.AfterFunc(wait, mn.retryFailed)
}

// RetryNow encodes the texts that failed again now, without waiting for
// their retry, and starts the backoff afresh: for when the encoder's
// server has just come back or the model has just been installed. Texts
// being encoded while it is called are encoded again at once if that call
// fails.
func (mn *Store) RetryNow() {
	if mn == nil {
		return
	}
	mn.mu.Lock()
	if mn.retry != nil {
		mn.retry.Stop()
		mn.retry = nil
	}
	mn.backoff = mn.retryFirst
	mn.kicks++
	mn.mu.Unlock()
	mn.retryFailed()
}

// retryFailed queues the failed texts again.
func (mn *Store) retryFailed() {
	mn.mu.Lock()
	if mn.closed {
		mn.mu.Unlock()
		return
	}
	mn.retry = nil
	texts := slices.Sorted(maps.Keys(mn.failed))
	mn.mu.Unlock()
	mn.Want(texts...)
}

// errNoModel: the built-in sentence model could not be loaded.
var errNoModel = errors.New("no sentence model")

// warnLocked logs a failed encoding once per model and process run (an
// embedding model that is down fails every text the same way). The
// caller holds mn.mu.
func (mn *Store) warnLocked(err error) {
	if mn.warned {
		return
	}
	mn.warned = true
	slog.Warn("sentence vector not computed: those procedures are compared by words, or by the built-in encoder, until it is", "model", mn.model, "err", err)
}

// encode computes the texts' vectors and writes them to the store. When
// a call for several fails, its halves are tried apart, down to single
// texts: a server fails the whole call for one input it cannot embed
// (Ollama answers some inputs of some models with a 500), and the others
// should not wait for it. A call that ran out of time is not split (a
// stalled server would be asked again and again).
func (mn *Store) encode(texts []string) ([][]int8, []error) {
	vecs, errs := make([][]int8, len(texts)), make([]error, len(texts))
	in := texts
	if i := slices.Index(texts, probeKey); i >= 0 {
		in = slices.Clone(texts)
		in[i] = mn.probe
	}
	fs, err := mn.embed(in)
	if err == nil && len(fs) != len(texts) {
		err = fmt.Errorf("the encoder answered %d vectors for %d texts", len(fs), len(texts))
	}
	if err != nil {
		if len(texts) > 1 && !errors.Is(err, context.DeadlineExceeded) {
			half := len(texts) / 2
			v1, e1 := mn.encode(texts[:half])
			v2, e2 := mn.encode(texts[half:])
			return append(v1, v2...), append(e1, e2...)
		}
		for i := range errs {
			errs[i] = err
		}
		return vecs, errs
	}
	for i, text := range texts {
		v := Quantize(fs[i])
		if v == nil {
			continue
		}
		vecs[i] = v
		row := store.SentenceVector{Text: text, Model: mn.model, Vec: int8ToBytes(v)}
		errs[i] = mn.repo.Put(context.Background(), row)
	}
	return vecs, errs
}

// Quantize scales a unit vector to int8 (nil stays nil).
func Quantize(v []float32) []int8 {
	if v == nil {
		return nil
	}
	out := make([]int8, len(v))
	for i, x := range v {
		out[i] = int8(max(-127, min(127, math.Round(float64(x)*127))))
	}
	return out
}

func int8ToBytes(v []int8) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(x)
	}
	return b
}

func bytesToInt8(b []byte) []int8 {
	v := make([]int8, len(b))
	for i, x := range b {
		v[i] = int8(x)
	}
	return v
}
