package vectors

import (
	"context"
	"iter"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/backend/recall"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// Model is an encoder outside the binary (an Ollama embedding model)
// beside the built-in one: a checked Store of its vectors, computed in
// batches from each text as written, and its cosines mapped onto the
// built-in encoder's scale (Recalibrate), so that a ranking fitted on the
// built-in cosines can use them.
type Model struct {
	*Store
	base    *Store
	embed   func(ctx context.Context, texts []string) ([][]float32, error)
	timeout time.Duration

	mu    sync.Mutex
	calib Calibration
}

// OpenModel opens name's stored vectors beside base (the built-in
// encoder's) and starts computing missing ones with embed, batch texts a
// call, each call bounded by timeout; source gives the text to embed for
// a stored text (its wording as written). Stored vectors are checked
// against probe first (OpenChecked).
func OpenModel(ctx context.Context, repo store.VectorRepo, name string, base *Store, embed func(ctx context.Context, texts []string) ([][]float32, error), source func(string) string, batch int, timeout time.Duration, probe string) (*Model, error) {
	m := &Model{base: base, embed: embed, timeout: timeout}
	st, err := OpenChecked(ctx, repo, name, func(keys []string) ([][]float32, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		texts := make([]string, len(keys))
		for i, k := range keys {
			texts[i] = source(k)
		}
		return m.unit(ctx, texts)
	}, batch, probe)
	if err != nil {
		return nil, err
	}
	m.Store = st
	return m, nil
}

// unit embeds texts and scales each vector to unit length.
func (m *Model) unit(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := m.embed(ctx, texts)
	for _, v := range vs {
		recall.Normalise(v)
	}
	return vs, err
}

// Calibration returns the mapping of the model's cosines onto the
// built-in scale over texts (recomputed as its vectors grow; N is 0 until
// MinCalibration of them have both vectors).
func (m *Model) Calibration(texts iter.Seq[string]) Calibration {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calib = Recalibrate(m.calib, m.base, m.Store, texts)
	return m.calib
}

// Request embeds a request (as written) on another goroutine and sends
// its unit vector, nil if the model failed. The call runs to its end
// (within the timeout) even when the caller stops waiting: a model Ollama
// had unloaded and is loading for it is then warm for the next request.
func (m *Model) Request(ctx context.Context, text string) <-chan []float32 {
	out := make(chan []float32, 1)
	ctx, stop := context.WithTimeout(context.WithoutCancel(ctx), m.timeout)
	go func() {
		defer stop()
		vs, err := m.unit(ctx, []string{text})
		if err != nil || len(vs) != 1 {
			out <- nil
			return
		}
		out <- vs[0]
	}()
	return out
}

// Cosines returns v's cosines with the stored vectors of texts, mapped by
// c; false when one of them has no vector from the model yet.
func (m *Model) Cosines(v []float32, c Calibration, texts []string) ([]float64, bool) {
	cs := make([]float64, len(texts))
	for j, t := range texts {
		o := m.Get(t)
		if o == nil || len(o) != len(v) {
			return nil, false
		}
		cs[j] = c.Map(recall.Cosine(v, o))
	}
	return cs, true
}

// Close stops the model's workers; a nil Model is closed.
func (m *Model) Close() {
	if m != nil {
		m.Store.Close()
	}
}

// Wait is Store.Wait; a nil Model has nothing to wait for.
func (m *Model) Wait(ctx context.Context) error {
	if m == nil {
		return nil
	}
	return m.Store.Wait(ctx)
}

// RetryNow is Store.RetryNow; a nil Model has nothing to retry.
func (m *Model) RetryNow() {
	if m != nil {
		m.Store.RetryNow()
	}
}
