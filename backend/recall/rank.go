package recall

import (
	"cmp"
	"math"
	"slices"

	"github.com/shrimp-harness/shrimp/backend/spell"
)

// Candidate is a procedure as ranking sees it.
type Candidate struct {
	ID       string
	Uses     int
	Variants []Text   // the trigger variants, analysed
	Vectors  [][]int8 // each variant's sentence vector (unit, scaled by 127), nil when not computed
	// Cosines, when set, are each variant's cosine with the request
	// computed elsewhere (another encoder's, calibrated to the built-in
	// one's scale), used instead of Vectors.
	Cosines []float64
	// Recallable is false for forgotten procedures and those naming a
	// missing tool: they are ranked (a request about one must not fall to
	// its sibling) but never returned.
	Recallable bool
	// Words, when set (PrepareWords), are each variant's word features,
	// computed ahead of the sentence vector; else Compute computes them.
	Words []Features
}

// PrepareWords computes c's word features for the request's words, so
// that they can be computed while the request is still being encoded.
func (c *Candidate) PrepareWords(q Text) {
	c.Words = make([]Features, len(c.Variants))
	for i, v := range c.Variants {
		c.Words[i] = wordFeatures(q, v)
	}
}

// Query is a request as ranking sees it.
type Query struct {
	Text   Text
	Form   []string  // FormOf the request
	Vector []float32 // unit sentence vector; nil when not available in time
}

// Features of one candidate for one query, each in [0, 1].
type Features struct {
	Cover   float64 // weighted share of the trigger's words the request has (same stem or a slip)
	Soft    float64 // the same, counting words close in meaning by their closeness
	Explain float64 // weighted share of the request's words the trigger explains, by meaning
	Bag     float64 // cosine of the two texts' weighted mean word vectors
	Cosine  float64 // the sentence vectors' cosine (0 without vectors)
}

// Vector returns the features in model order; withCosine selects the full
// model's inputs.
func (f Features) Vector(withCosine bool) []float64 {
	if withCosine {
		return []float64{f.Cover, f.Soft, f.Explain, f.Bag, f.Cosine}
	}
	return []float64{f.Cover, f.Soft, f.Explain, f.Bag}
}

// Ranked is one ranked candidate.
type Ranked struct {
	ID         string
	Features   Features
	Score      float64 // the fused score: the ranking model's log-odds
	Recallable bool
	Repeat     bool // the request is one of its trigger variants word for word (as typed, or corrected)
	// Probability that it is the request's task, set by Decide: work ×
	// acceptance for the best, the ranking model's for the rest.
	Probability float64
	uses        int
}

// Compute returns the features of c for q and its score, from the trigger
// variant whose features sum highest (a choice that does not depend on
// the model's weights, so refitting them reproduces them).
func (m *Model) Compute(q Query, c Candidate) (Features, float64) {
	var best Features
	bestSum := -1.0
	for i, v := range c.Variants {
		var f Features
		if len(c.Words) == len(c.Variants) {
			f = c.Words[i]
		} else {
			f = wordFeatures(q.Text, v)
		}
		switch {
		case q.Vector == nil:
		case i < len(c.Cosines):
			f.Cosine = max(0, min(1, c.Cosines[i]))
		case i < len(c.Vectors) && c.Vectors[i] != nil:
			f.Cosine = max(0, Cosine(q.Vector, c.Vectors[i]))
		}
		if sum := f.Cover + f.Soft + f.Explain + f.Bag + f.Cosine; sum > bestSum {
			best, bestSum = f, sum
		}
	}
	return best, m.rankScore(best, q.Vector != nil)
}

// Rank scores every candidate and orders them best first; uses break ties.
func (m *Model) Rank(q Query, cs []Candidate) []Ranked {
	out := make([]Ranked, 0, len(cs))
	for _, c := range cs {
		f, s := m.Compute(q, c)
		repeat := q.Text.Corrected != "" && slices.ContainsFunc(c.Variants, func(v Text) bool {
			return v.Corrected == q.Text.Corrected || v.Typed == q.Text.Typed
		})
		out = append(out, Ranked{ID: c.ID, Features: f, Score: s, Recallable: c.Recallable, Repeat: repeat, uses: c.Uses})
	}
	sortRanked(out)
	return out
}

// Rescore returns a copy of rs scored again from their features by this
// model (without the cosine unless withCosine) and ordered again: how a
// refitted model would rank the same candidates.
func (m *Model) Rescore(rs []Ranked, withCosine bool) []Ranked {
	out := slices.Clone(rs)
	for i := range out {
		if !withCosine {
			out[i].Features.Cosine = 0
		}
		out[i].Score = m.rankScore(out[i].Features, withCosine)
	}
	sortRanked(out)
	return out
}

func sortRanked(out []Ranked) {
	slices.SortStableFunc(out, func(a, b Ranked) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return cmp.Compare(b.uses, a.uses)
	})
}

// Decide returns the recallable candidates to offer, best first, at most
// limit: none unless the request asks for work and the acceptance model
// says the best recallable one is its task (the product of the two
// probabilities reaches the threshold); then it and the others whose score
// is within Model.Spread of its own (close calls, offered together). The
// margin is taken to the next candidate of any kind, so a request nearer a
// forgotten procedure is not answered by a sibling. A word-for-word repeat
// of the first one's trigger asks for work, however it reads ("what is
// eating up all my disk space"): that wording was handled with tools before.
func (m *Model) Decide(q Query, ranked []Ranked, withCosine bool, limit int) []Ranked {
	if len(ranked) > 0 && ranked[0].Repeat {
		return m.decide(q, ranked, withCosine, limit, 1)
	}
	return m.decide(q, ranked, withCosine, limit, m.Work(q, withCosine))
}

// DecideForWork is Decide for a request known to ask for work (one just
// handled with tools: the learner's), so the work model is not asked.
func (m *Model) DecideForWork(q Query, ranked []Ranked, withCosine bool, limit int) []Ranked {
	return m.decide(q, ranked, withCosine, limit, 1)
}

func (m *Model) decide(q Query, ranked []Ranked, withCosine bool, limit int, work float64) []Ranked {
	threshold := m.threshold(withCosine)
	top := slices.IndexFunc(ranked, func(r Ranked) bool { return r.Recallable })
	if top < 0 || limit <= 0 {
		return nil
	}
	if top > 0 && work*m.Accept(m.AcceptInputs(q, ranked, 0, withCosine), withCosine) >= threshold {
		// The request is about a forgotten or stale procedure: its
		// nearest sibling is not what was asked for.
		return nil
	}
	p := work * m.Accept(m.AcceptInputs(q, ranked, top, withCosine), withCosine)
	if p < threshold {
		return nil
	}
	best := ranked[top]
	best.Probability = p
	out := []Ranked{best}
	for _, r := range ranked[top+1:] {
		if len(out) == limit || best.Score-r.Score > m.Spread {
			break
		}
		if r.Recallable {
			r.Probability = sigmoid(r.Score)
			out = append(out, r)
		}
	}
	return out
}

// wordFeatures compares the request's words with one trigger's.
func wordFeatures(q, t Text) Features {
	var f Features
	if len(q.Words) == 0 || len(t.Words) == 0 {
		return f
	}
	// For each trigger word, its best partner in the request.
	var tw, exact, soft float64
	qBest := make([]float64, len(q.Words))
	for _, a := range t.Words {
		e, s := 0.0, 0.0
		for j, b := range q.Words {
			sim := similarity(a, b)
			if sim >= 1 {
				e = 1
			}
			s = max(s, sim)
			qBest[j] = max(qBest[j], sim)
		}
		tw += a.Weight
		exact += a.Weight * e
		soft += a.Weight * s
	}
	var qw, explained float64
	for j, b := range q.Words {
		qw += b.Weight
		explained += b.Weight * qBest[j]
	}
	f.Cover, f.Soft = exact/tw, soft/tw
	if q.Bag != nil && t.Bag != nil {
		var d float32
		for i, x := range q.Bag {
			d += x * t.Bag[i]
		}
		f.Bag = max(0, float64(d))
	}
	if qw > 0 {
		f.Explain = explained / qw
	}
	return f
}

// meaningFloor is the lexicon cosine below which two words count as
// unrelated; above it their similarity rises linearly to 1. GloVe's
// cosines between unrelated everyday words sit around 0.1-0.3.
const meaningFloor = 0.3

// similarity of two words in [0, 1]: 1 for one stem or a slip of the
// keyboard between longer words, else their closeness in meaning.
func similarity(a, b Word) float64 {
	if a.Stem == b.Stem || a.Text == b.Text {
		return 1
	}
	if n := min(len(a.Text), len(b.Text)); n >= 5 && (a.Lex < 0 || b.Lex < 0 || a.Lex >= spell.TrustedRank || b.Lex >= spell.TrustedRank) {
		limit := 1
		if n >= 8 {
			limit = 2
		}
		if spell.OSA(a.Text, b.Text, limit) <= limit {
			return 1
		}
	}
	if a.Lex < 0 || b.Lex < 0 {
		return 0
	}
	l := lex()
	if l == nil {
		return 0
	}
	c := float64(l.SimilarityID(a.Lex, b.Lex))
	return max(0, (c-meaningFloor)/(1-meaningFloor))
}

// Cosine is the cosine of a unit vector and a quantised one.
func Cosine(q []float32, v []int8) float64 {
	var dot, norm float64
	for i, x := range v {
		dot += float64(q[i]) * float64(x)
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return 0
	}
	return dot / math.Sqrt(norm)
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
