package procedures

import (
	"context"
	"slices"
	"time"

	"github.com/shrimp-harness/shrimp/backend/recall"
	"github.com/shrimp-harness/shrimp/backend/vectors"
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

// EmbedBatch is how many wordings one background call to the embedding
// model carries: Ollama computes an /api/embed call's inputs together, so
// a store's first embedding takes fewer round trips (a variable for
// measurements).
var EmbedBatch = 16

// embedTimeout bounds one background call (the first loads the model).
const embedTimeout = 2 * time.Minute

// embedProbe is the text whose vector tells whether the embedding model is
// still the one the stored vectors came from (vectors.OpenChecked): a
// model pulled again under the same name may give others.
const embedProbe = "sort the bank statements from the shared drive into folders by year"

// SetEmbedder makes recall compare meanings with e's vectors; nil goes
// back to the built-in encoder alone. The triggers' vectors are computed
// in the background, EmbedBatch at a time, from the triggers as written, and
// stored under VectorsName(e); stored ones
// are read back once e still gives a probe text the vector stored with
// them (else they are computed again). Until enough exist to calibrate,
// and whenever e fails or is late for a request, recall uses the built-in
// encoder.
func (m *Memory) SetEmbedder(ctx context.Context, e Embedder) error {
	m.mu.Lock()
	old := m.extra
	m.extra, m.embedder, m.calib = nil, nil, vectors.Calibration{}
	m.mu.Unlock()
	old.Close()
	if e == nil {
		return nil
	}
	embed := func(keys []string) ([][]float32, error) {
		ctx, cancel := context.WithTimeout(context.Background(), embedTimeout)
		defer cancel()
		texts := make([]string, len(keys))
		for i, k := range keys {
			texts[i] = m.source(k)
		}
		vs, err := e.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			recall.Normalise(v)
		}
		return vs, nil
	}
	mn, err := vectors.OpenChecked(ctx, m.vecRepo, VectorsName(e), embed, EmbedBatch, embedProbe)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.extra, m.embedder = mn, e
	for _, p := range m.procs {
		mn.Want(p.keys...)
	}
	return nil
}

// VectorsName is the name e's vectors are stored under: its own, marked
// as made from the requests as written (an embedding model reads text as
// people write it, and its vocabulary knows "rebase" and "heic", which the
// built-in encoder's spelling correction would turn into "rebate" and
// "heir").
func VectorsName(e Embedder) string { return e.Name() + "+typed" }

// source returns the text a trigger variant's key (its corrected form) was
// written as; the key itself when no stored procedure has it (the probe).
func (m *Memory) source(key string) string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, id := range m.byKey[key] {
		if p := m.procs[id]; p != nil {
			if j := slices.Index(p.keys, key); j >= 0 && j < len(p.srcs) {
				return p.srcs[j]
			}
		}
	}
	return key
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
	return mn.Wait(ctx)
}

// RetryEmbedder embeds now the wordings whose embedding failed, without
// waiting for their retry: the app calls it when Ollama comes back or its
// model list changes (the model was just pulled).
func (m *Memory) RetryEmbedder() {
	m.mu.RLock()
	extra := m.extra
	m.mu.RUnlock()
	extra.RetryNow()
}

// EmbedderStatus says how far the embedding model has come with the
// stored procedures' wordings and whether recall compares meanings with it.
type EmbedderStatus struct {
	Name     string    // the vectors' model name ("ollama:…"); "" when none is set
	Wordings int       // the stored procedures' distinct wordings (each needs a vector)
	Embedded int       // of those, the ones with the model's vector
	InUse    bool      // calibrated: recall compares meanings with the model
	Pending  int       // wordings queued or being embedded now
	Failed   int       // wordings whose embedding failed, tried again at Retry
	Retry    time.Time // zero when none wait
	Err      error     // the last failure since the last success
}

// EmbedderStatus reports the embedding model's progress (shrimp doctor and
// Settings show it). Recall uses the model once vectors.MinCalibration
// wordings have its vectors and the built-in encoder's.
func (m *Memory) EmbedderStatus() EmbedderStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.extra == nil || m.embedder == nil {
		return EmbedderStatus{}
	}
	st := m.extra.Status()
	out := EmbedderStatus{Name: m.embedder.Name(), InUse: m.calibrated().N > 0,
		Pending: st.Pending, Failed: st.Failed, Retry: st.Retry, Err: st.Err}
	seen := map[string]bool{} // procedures may share a wording; it has one vector
	for _, p := range m.procs {
		for _, k := range p.keys {
			if seen[k] {
				continue
			}
			seen[k] = true
			out.Wordings++
			if m.extra.Get(k) != nil {
				out.Embedded++
			}
		}
	}
	return out
}

// calibrated returns the calibration of the embedding model's cosines
// (see vectors.Recalibrate). The caller holds m.mu for writing.
func (m *Memory) calibrated() vectors.Calibration {
	if m.extra == nil {
		return vectors.Calibration{}
	}
	m.calib = vectors.Recalibrate(m.calib, m.meanings, m.extra, func(yield func(string) bool) {
		for _, p := range m.procs {
			for _, k := range p.keys {
				if !yield(k) {
					return
				}
			}
		}
	})
	return m.calib
}

// extraCosines sets each candidate's Cosines: its variants' calibrated
// cosines with v under the embedding model. It reports false, leaving
// some unset, when a variant has no vector from that model yet.
func (m *Memory) extraCosines(v []float32, c vectors.Calibration, cands []recall.Candidate, byID map[string]Procedure) bool {
	for i := range cands {
		p := byID[cands[i].ID]
		cs := make([]float64, len(p.keys))
		for j, k := range p.keys {
			o := m.extra.Get(k)
			if o == nil || len(o) != len(v) {
				return false
			}
			cs[j] = c.Map(recall.Cosine(v, o))
		}
		cands[i].Cosines = cs
	}
	return true
}
