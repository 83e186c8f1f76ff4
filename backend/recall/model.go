package recall

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

// Model holds the fitted weights: a ranking model (log-odds that a
// candidate is the request's task, from its features), an acceptance model
// (that the best candidate is, if the request asks for work) and a work
// model (that it does), each with and without the sentence cosine (a
// recall that cannot encode the request in time answers from its words
// alone).
type Model struct {
	Features []string `json:"features"`
	// RankFull and RankWords: bias then one weight per feature.
	RankFull  []float64 `json:"rank_full"`
	RankWords []float64 `json:"rank_words"`
	// AcceptFull and AcceptWords: bias, then one weight per feature of
	// the best candidate, one for its margin to the next and (full) one
	// for the cosine's margin. They give the probability that the best
	// candidate is the request's task if the request asks for work.
	// WorkFull ([bias, intent, form]) and WorkWords ([bias, form]) give
	// the probability that it does (not a knowledge question or
	// chit-chat); a candidate is recalled on the product of the two.
	AcceptFull  []float64 `json:"accept_full"`
	AcceptWords []float64 `json:"accept_words"`
	// MergeWords has AcceptWords' inputs and says whether the request is
	// the best candidate's task when the store may well not hold it at
	// all: fitted with, beside the acceptance rows, each answerable
	// request against its store without its task. Learning merges on it
	// (see Merge); recall answers requests that mostly do have their
	// task stored, and is scored so.
	MergeWords []float64 `json:"merge_words"`
	WorkFull   []float64 `json:"work_full"`
	WorkWords  []float64 `json:"work_words"`
	// Intent is a logistic classifier on the request's sentence vector
	// (bias first) that tells requests for work from knowledge questions
	// and chit-chat, fitted on the studied sets' queries. Its log-odds are
	// an input of the full work model.
	Intent []float64 `json:"intent"`
	// Form is a logistic classifier on the request's function words (its
	// stop words, the first two words when they are stop words, a question
	// mark) that tells requests for work from questions and chit-chat by
	// their form, whatever their topic; "" is its bias. Fitted like the
	// rest; its log-odds are an input of the work models.
	Form map[string]float64 `json:"form"`
	// Threshold is the probability (work × acceptance) a candidate must
	// reach; ThresholdWords the same for the words-only model. 0.5, the
	// Bayes threshold for equal costs (fit-recall can instead choose them
	// for a false-positive rate: -threshold 0 -max-fp R).
	Threshold      float64 `json:"threshold"`
	ThresholdWords float64 `json:"threshold_words"`
	// NextFloorFull and NextFloorWords are the median score of the
	// runner-up in the studied sets (by each ranking model): the margin of
	// the best candidate is taken to the runner-up or to this, whichever
	// is higher, so it means the same with five procedures stored or five
	// thousand.
	NextFloorFull  float64 `json:"next_floor_full"`
	NextFloorWords float64 `json:"next_floor_words"`
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
	if len(m.RankFull) != n+1 || len(m.RankWords) != n || len(m.AcceptFull) != n+3 || len(m.AcceptWords) != n+1 || len(m.MergeWords) != n+1 || len(m.WorkFull) != 3 || len(m.WorkWords) != 2 {
		return nil, fmt.Errorf("recall model: want %d+1 full and %d words ranking weights, %d+3 and %d+1 acceptance weights, %d+1 merge weights, 3 and 2 work weights", n, n, n, n, n)
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

// pick returns full for the model with the sentence cosine, else words.
func pick[T any](withCosine bool, full, words T) T {
	if withCosine {
		return full
	}
	return words
}

// threshold is the acceptance threshold of the full or words-only model.
func (m *Model) threshold(withCosine bool) float64 {
	return pick(withCosine, m.Threshold, m.ThresholdWords)
}

func (m *Model) rankScore(f Features, withCosine bool) float64 {
	return linear(pick(withCosine, m.RankFull, m.RankWords), f.Vector(withCosine))
}

// Accept is the probability, from AcceptInputs, that the best candidate
// is the request's task, if the request asks for work (see Work).
func (m *Model) Accept(in []float64, withCosine bool) float64 {
	return sigmoid(linear(pick(withCosine, m.AcceptFull, m.AcceptWords), in))
}

// Merge is the probability, by words alone, that a request just handled
// with tools is ranked[0]'s task, not a task the store does not hold.
func (m *Model) Merge(q Query, ranked []Ranked) float64 {
	if len(ranked) == 0 {
		return 0
	}
	return sigmoid(linear(m.MergeWords, m.AcceptInputs(q, ranked, 0, false)))
}

// AcceptInputs are the acceptance model's inputs for ranked[top]: its
// features, its score's margin to the next candidate of any kind (or to a
// typical runner-up), capped, and with the cosine the cosine's own margin.
func (m *Model) AcceptInputs(q Query, ranked []Ranked, top int, withCosine bool) []float64 {
	// The next candidate scores at least as a typical competitor does
	// (Model.NextFloor): in a store of a few procedures the best must not
	// win by a margin no store of the studied sets' size would give it.
	s, next := ranked[top].Score, pick(withCosine, m.NextFloorFull, m.NextFloorWords)
	for i, r := range ranked {
		if i != top {
			next = max(next, r.Score)
			break
		}
	}
	margin := min(s-next, maxMargin)
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
		in = append(in, ranked[top].Features.Cosine-other)
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

// WorkInputs are the work model's inputs: the intent classifier's
// log-odds (with the cosine model) and the form classifier's.
func (m *Model) WorkInputs(q Query, withCosine bool) []float64 {
	if withCosine {
		return []float64{m.intent(q.Vector), m.FormScore(q.Form)}
	}
	return []float64{m.FormScore(q.Form)}
}

// Work is the probability that the request asks for work: not a
// knowledge question or chit-chat.
func (m *Model) Work(q Query, withCosine bool) float64 {
	return sigmoid(linear(pick(withCosine, m.WorkFull, m.WorkWords), m.WorkInputs(q, withCosine)))
}

// FormScore is the form classifier's log-odds that a request with these
// form features (see FormOf) asks for work.
func (m *Model) FormScore(form []string) float64 {
	s := m.Form[""]
	for _, f := range form {
		s += m.Form[f]
	}
	return s
}
