package recall

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
)

// Model holds the fitted weights: a ranking model (log-odds that a
// candidate is the request's task, from its features) and an acceptance
// model (log-odds that the best candidate is, from its score and its margin
// to the next), each with and without the sentence cosine (a recall that
// cannot encode the request in time answers from its words alone).
type Model struct {
	Features []string `json:"features"`
	// RankFull and RankWords: bias then one weight per feature.
	RankFull  []float64 `json:"rank_full"`
	RankWords []float64 `json:"rank_words"`
	// AcceptFull and AcceptWords: bias, then one weight per feature of
	// the best candidate and one for its margin to the next.
	AcceptFull  []float64 `json:"accept_full"`
	AcceptWords []float64 `json:"accept_words"`
	// Intent is a logistic classifier on the request's sentence vector
	// (bias first) that tells requests for work from knowledge questions
	// and chit-chat, fitted on the studied sets' queries. Its log-odds are
	// an acceptance input (with the cosine model only).
	Intent []float64 `json:"intent"`
	// Threshold is the probability the acceptance model must reach;
	// ThresholdWords the same for the words-only model. Each is chosen by
	// the fit for the same false-positive rate on the studied sets.
	Threshold      float64 `json:"threshold"`
	ThresholdWords float64 `json:"threshold_words"`
	// Spread is how far below the best candidate's score (in log-odds)
	// another may be and still be offered beside it, when the best is
	// accepted.
	Spread float64 `json:"spread"`
	// Fitted says from what and how the weights were fitted.
	Fitted string `json:"fitted"`
}

//go:embed model.json
var modelJSON []byte

// Default returns the shipped model.
func Default() *Model {
	m, err := ParseModel(modelJSON)
	if err != nil {
		panic("recall: model.json: " + err.Error())
	}
	return m
}

// ParseModel reads a model and checks its shape.
func ParseModel(b []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("parse recall model: %w", err)
	}
	n := len(Features{}.Vector(true))
	if len(m.RankFull) != n+1 || len(m.RankWords) != n || len(m.AcceptFull) != n+4 || len(m.AcceptWords) != n+1 {
		return nil, fmt.Errorf("recall model: want %d+1 full and %d words ranking weights, %d+4 and %d+1 acceptance weights", n, n, n, n)
	}
	if len(m.Intent) != 0 && len(m.Intent) != intentDim+1 {
		return nil, fmt.Errorf("recall model: intent has %d weights, want %d+1", len(m.Intent), intentDim)
	}
	for _, t := range []float64{m.Threshold, m.ThresholdWords} {
		if t <= 0 || t >= 1 {
			return nil, fmt.Errorf("recall model: threshold %v is not a probability", t)
		}
	}
	return &m, nil
}

// threshold is the acceptance threshold of the full or words-only model.
func (m *Model) threshold(withCosine bool) float64 {
	if withCosine {
		return m.Threshold
	}
	return m.ThresholdWords
}

func (m *Model) rankScore(f Features, withCosine bool) float64 {
	w := m.RankWords
	if withCosine {
		w = m.RankFull
	}
	return linear(w, f.Vector(withCosine))
}

// Accept is the probability, from AcceptInputs, that the best candidate
// is the request's task.
func (m *Model) Accept(in []float64, withCosine bool) float64 {
	w := m.AcceptWords
	if withCosine {
		w = m.AcceptFull
	}
	return sigmoid(linear(w, in))
}

// AcceptInputs are the acceptance model's inputs for ranked[top]: its
// features, its score's margin to the next candidate of any kind, capped
// (no next candidate is a wide margin, not an infinite one), and with the
// cosine model the request's intent (see Model.Intent).
func (m *Model) AcceptInputs(q Query, ranked []Ranked, top int, withCosine bool) []float64 {
	s, next := ranked[top].Score, math.Inf(-1)
	for i, r := range ranked {
		if i != top {
			next = r.Score
			break
		}
	}
	margin := s - next
	if math.IsInf(next, -1) || margin > maxMargin {
		margin = maxMargin
	}
	in := append(ranked[top].Features.Vector(withCosine), margin)
	if withCosine {
		// The cosine's own margin: the sentence encoder puts some
		// requests near everything.
		other := 0.0
		for i, r := range ranked {
			if i != top {
				other = max(other, r.Features.Cosine)
			}
		}
		in = append(in, ranked[top].Features.Cosine-other, m.intent(q.Vector))
	}
	return in
}

const maxMargin = 10

func linear(w, x []float64) float64 {
	z := w[0]
	for i, v := range x {
		z += w[i+1] * v
	}
	return z
}

// intentDim is the sentence vectors' length.
const intentDim = 512

// intent is the intent classifier's log-odds that v asks for work.
func (m *Model) intent(v []float32) float64 {
	if len(v)+1 != len(m.Intent) {
		return 0
	}
	s := m.Intent[0]
	for i, x := range v {
		s += float64(x) * m.Intent[i+1]
	}
	return s
}
