package procedures

import (
	"context"
	"math"
	"time"

	"github.com/shrimp-harness/shrimp/backend/recall"
)

// Embedder computes sentence vectors with a model outside the binary: an
// Ollama embedding model (nomic-embed-text, embeddinggemma, all-minilm).
// Name is stored with its vectors, so each model keeps its own.
type Embedder interface {
	Name() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedderBudget is how long a recall waits for the embedding model's
// vector of the request (counted from the recall's start) before it
// compares meanings with the built-in encoder instead.
var EmbedderBudget = 500 * time.Millisecond

// embedTimeout bounds one background trigger encoding (the first loads the
// model).
const embedTimeout = 2 * time.Minute

// minCalibration is how many triggers need vectors from both encoders
// before the embedding model's cosines are used.
const minCalibration = 20

// calibration maps the embedding model's cosines onto the built-in
// encoder's scale (the scale recall's model was fitted on): a·c + b, with
// a and b matching the two encoders' mean and spread of cosines over
// pairs of the store's own triggers. Each embedding model puts unrelated
// sentences at its own cosine (0.1-0.4 for the built-in one, 0.3-0.5 for
// nomic-embed-text).
type calibration struct {
	a, b float64
	n    int // triggers it was computed from; 0: not yet
	seen int // the embedding model's vectors when it was last tried
}

// SetEmbedder makes recall compare meanings with e's vectors; nil goes
// back to the built-in encoder alone. The triggers' vectors are computed
// in the background, one at a time, and stored under e.Name(); stored ones
// are read back. Until enough exist to calibrate, and whenever e fails or
// is late for a request, recall uses the built-in encoder.
func (m *Memory) SetEmbedder(ctx context.Context, e Embedder) error {
	m.mu.Lock()
	old := m.extra
	m.extra, m.embedder, m.calib = nil, nil, calibration{}
	m.mu.Unlock()
	old.close()
	if e == nil {
		return nil
	}
	embed := func(text string) ([]float32, error) {
		ctx, cancel := context.WithTimeout(context.Background(), embedTimeout)
		defer cancel()
		vs, err := e.Embed(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		recall.Normalise(vs[0])
		return vs[0], nil
	}
	mn, err := startMeanings(ctx, m.vecRepo, e.Name(), 0, embed, 1)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.extra, m.embedder = mn, e
	for _, p := range m.procs {
		mn.want(p.keys...)
	}
	return nil
}

// SettleEmbedder waits until every trigger has the embedding model's
// vector (tests).
func (m *Memory) SettleEmbedder(ctx context.Context) error {
	m.mu.RLock()
	mn := m.extra
	m.mu.RUnlock()
	if mn == nil {
		return nil
	}
	return mn.wait(ctx)
}

// calibrated returns the calibration, computing it again when the
// triggers with both vectors have grown by a quarter. The caller holds
// m.mu for writing.
func (m *Memory) calibrated() calibration {
	if m.extra == nil {
		return calibration{}
	}
	// Only when the embedding model has a quarter more vectors than at
	// the last try: a recall must not walk the store.
	have := m.extra.count()
	if have < max(minCalibration, m.calib.seen*5/4) {
		return m.calib
	}
	m.calib.seen = have
	var keys []string
	var base, other [][]int8
	for _, p := range m.procs {
		for _, k := range p.keys {
			if b, o := m.meanings.get(k), m.extra.get(k); b != nil && o != nil {
				keys = append(keys, k)
				if len(base) < 40 {
					base, other = append(base, b), append(other, o)
				}
			}
		}
	}
	if len(keys) < minCalibration {
		return m.calib
	}
	var cb, co []float64
	for i := range base {
		for j := i + 1; j < len(base); j++ {
			cb, co = append(cb, cosine8(base[i], base[j])), append(co, cosine8(other[i], other[j]))
		}
	}
	mb, sb := meanStd(cb)
	mo, so := meanStd(co)
	if so == 0 {
		return m.calib
	}
	a := sb / so
	m.calib = calibration{a: a, b: mb - a*mo, n: len(keys), seen: m.calib.seen}
	return m.calib
}

// extraCosines sets each candidate's Cosines: its variants' calibrated
// cosines with v under the embedding model. It reports false, leaving
// some unset, when a variant has no vector from that model yet.
func (m *Memory) extraCosines(v []float32, c calibration, cands []recall.Candidate, byID map[string]Procedure) bool {
	for i := range cands {
		p := byID[cands[i].ID]
		cs := make([]float64, len(p.keys))
		for j, k := range p.keys {
			o := m.extra.get(k)
			if o == nil || len(o) != len(v) {
				return false
			}
			cs[j] = c.a*recall.Cosine(v, o) + c.b
		}
		cands[i].Cosines = cs
	}
	return true
}

func meanStd(xs []float64) (mean, std float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}

// cosine8 of two quantised vectors.
func cosine8(a, b []int8) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
