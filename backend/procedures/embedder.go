package procedures

import (
	"context"
	"slices"
	"time"

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
// model carries (fewer round trips to Ollama; a variable for measurements).
var EmbedBatch = 16

// embedTimeout bounds one background call (the first loads the model).
const embedTimeout = 2 * time.Minute

// embedProbe is the text whose vector tells whether the embedding model is
// still the one the stored vectors came from (vectors.OpenChecked): a
// model pulled again under the same name may give others.
const embedProbe = "sort the bank statements from the shared drive into folders by year"

// SetEmbedder makes recall compare meanings with e's vectors; nil goes
// back to the built-in encoder alone. The triggers' vectors are computed
// in the background (vectors.OpenModel), stored under VectorsName(e), and
// read back once e still gives a probe text the vector stored with them.
// Until enough exist to calibrate, and whenever e fails or is late for a
// request, recall uses the built-in encoder.
func (m *Memory) SetEmbedder(ctx context.Context, e Embedder) error {
	m.mu.Lock()
	old := m.extra
	m.extra = nil
	m.mu.Unlock()
	old.Close()
	if e == nil {
		return nil
	}
	mn, err := vectors.OpenModel(ctx, m.vecRepo, VectorsName(e), m.meanings, e.Embed, m.source, EmbedBatch, embedTimeout, embedProbe)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.extra = mn
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
func (m *Memory) SettleEmbedder(ctx context.Context) error { return m.embedding().Wait(ctx) }

// RetryEmbedder embeds now the wordings whose embedding failed, without
// waiting for their retry: the app calls it when Ollama comes back or its
// model list changes (the model was just pulled).
func (m *Memory) RetryEmbedder() { m.embedding().RetryNow() }

// embedding returns the embedding model, nil when none is set.
func (m *Memory) embedding() *vectors.Model {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.extra
}

// EmbedderStatus says how far the embedding model has come with the
// stored procedures' wordings and whether recall compares meanings with it.
type EmbedderStatus struct {
	Name     string // the vectors' model name (VectorsName); "" when none is set
	Wordings int    // the stored procedures' distinct wordings (each needs a vector)
	Embedded int    // of those, the ones with the model's vector
	InUse    bool   // calibrated: recall compares meanings with the model
	// The wordings queued or being embedded, failed and to be tried again
	// at Retry, and the last failure.
	vectors.Status
}

// EmbedderStatus reports the embedding model's progress (shrimp doctor and
// Settings show it). Recall uses the model once vectors.MinCalibration
// wordings have its vectors and the built-in encoder's.
func (m *Memory) EmbedderStatus() EmbedderStatus {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.extra == nil {
		return EmbedderStatus{}
	}
	out := EmbedderStatus{Name: m.extra.Name(), InUse: m.calibrated().N > 0, Status: m.extra.Status()}
	for k := range m.byKey { // each wording once, however many procedures hold it
		out.Wordings++
		if m.extra.Get(k) != nil {
			out.Embedded++
		}
	}
	return out
}

// calibrated returns the calibration of the embedding model's cosines
// (see vectors.Recalibrate). The caller holds m.mu for reading.
func (m *Memory) calibrated() vectors.Calibration {
	return m.extra.Calibration(func(yield func(string) bool) {
		for _, p := range m.procs {
			for _, k := range p.keys {
				if !yield(k) {
					return
				}
			}
		}
	})
}
