package procedures

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/shrimp-harness/shrimp/backend/instruction"
	"github.com/shrimp-harness/shrimp/backend/procedures/chain"
	"github.com/shrimp-harness/shrimp/backend/recall"
	"github.com/shrimp-harness/shrimp/backend/sentence"
	"github.com/shrimp-harness/shrimp/backend/spell"
	"github.com/shrimp-harness/shrimp/backend/vectors"
)

// model is recall's fitted ranking and acceptance model.
var model = recall.Default()

// EncodeBudget is how long a recall waits for the request's sentence
// vector (counted from its start) before it ranks by words alone: the
// encoding takes 0.5 ms on this project's CI machine, 3-5 ms on CPUs
// with AVX2 only, and much longer on a busy one.
var EncodeBudget = 8 * time.Millisecond

// mergeCertainty is the probability a request must have of being an
// existing procedure's task for Learn to merge it in: a wrong merge keeps
// a wrong wording as a trigger for good, so it costs far more than a
// near duplicate (a 9:1 ratio of costs).
const mergeCertainty = 0.9

// searchLimit is how many candidates one index search returns.
const searchLimit = 40

// nearLimit is how many more candidates the nearest sentence vectors
// add, from a shortlist of nearShortlist vectors (see vectors.Store.Nearest):
// the index's candidates miss the right procedure for 2.4% of the
// studied sets' answerable requests, those that share no word that
// matters with it.
//
// nearFloor is the cosine below which a vector adds no candidate: the
// right procedure's cosine with the request is below 0.39 for only 0.5%
// of the studied sets' answerable requests (median 0.80), and those few
// share words with it that the index finds.
const (
	nearLimit     = 10
	nearShortlist = 64
	nearFloor     = 0.4
)

// Hit is one recalled procedure.
type Hit struct {
	Procedure Procedure `json:"procedure"`
	// Score is the probability (0..1) that the procedure is the
	// request's task: the acceptance model's for the best, the ranking
	// model's for the others.
	Score float64 `json:"score"`
}

// Recall returns up to limit procedures for request, best first: none
// unless recall's acceptance model takes the best for the same task,
// never a forgotten procedure or one that names a tool for which has
// reports false.
func (m *Memory) Recall(ctx context.Context, request string, has func(string) bool, limit int) ([]Hit, error) {
	if limit <= 0 {
		return nil, nil
	}
	q, ranked, procs, err := m.rank(ctx, request, has, *cmp.Or(m.budget, &EncodeBudget))
	if err != nil || len(ranked) == 0 {
		return nil, err
	}
	chosen := model.Decide(q, ranked, q.Vector != nil, limit)
	hits := make([]Hit, len(chosen))
	for i, r := range chosen {
		p := procs[r.ID]
		p.keys, p.texts, p.srcs = nil, nil, nil
		hits[i] = Hit{Procedure: p, Score: r.Probability}
	}
	return hits, nil
}

// Rank returns the request as recall reads it and its candidates ranked,
// forgotten and stale ones among them (Recallable false), waiting for the
// request's sentence vector however long it takes: what the acceptance
// model decides from, for fitting it (scripts/fit-recall).
func (m *Memory) Rank(ctx context.Context, request string, has func(string) bool) (recall.Query, []recall.Ranked, error) {
	q, ranked, _, err := m.rank(ctx, request, has, time.Hour)
	return q, ranked, err
}

// rank analyses request, searches the index for candidates and ranks
// them, waiting up to budget (from its start) for the request's sentence
// vector; it also returns copies of the candidates' procedures.
func (m *Memory) rank(ctx context.Context, request string, has func(string) bool, budget time.Duration) (recall.Query, []recall.Ranked, map[string]Procedure, error) {
	start := time.Now()
	var q recall.Query
	request = instruction.Of(request)
	if strings.TrimSpace(request) == "" {
		return q, nil, nil, nil
	}
	sp := spell.Default()
	m.mu.Lock()
	_ = m.refresh(ctx) // failing, recall goes on with what this process knows
	q.Text = recall.Analyse(request, sp, m.words)
	q.Form = recall.FormOf(request)
	corrected := q.Text.Corrected
	m.mu.Unlock()
	if len(q.Text.Words) == 0 {
		return q, nil, nil, nil
	}
	// With an embedding model configured and calibrated, the request is
	// embedded by it too (as written, like the triggers), on another
	// goroutine.
	var calib vectors.Calibration
	var extra *vectors.Model
	m.mu.RLock()
	if m.extra != nil {
		calib, extra = m.calibrated(), m.extra
	}
	m.mu.RUnlock()
	var extraVec <-chan []float32
	if calib.N > 0 && !m.wordsOnly {
		extraVec = extra.Request(ctx, strings.TrimSpace(request))
	}
	// The index is searched and its candidates compared word by word on
	// another goroutine while this one encodes the request (the longer
	// branch, so it starts at once); past the budget, ranking goes on without it.
	var ids []string
	var cands []recall.Candidate
	var err error
	byID := make(map[string]Procedure, searchLimit+nearLimit)
	words := func() {
		m.mu.RLock()
		ids, err = m.index.search(q.Text, m.docFreq, len(m.procs), searchLimit)
		cands = m.candidates(ids, has, make([]recall.Candidate, 0, len(ids)+nearLimit), byID)
		m.mu.RUnlock()
		for i := range cands {
			cands[i].PrepareWords(q.Text)
		}
	}
	if m.wordsOnly || !m.meanings.Any() {
		words()
	} else {
		done := make(chan struct{})
		go func() {
			defer close(done)
			words()
		}()
		if enc := sentence.Default(); enc != nil {
			ectx, stop := context.WithDeadline(ctx, start.Add(budget))
			q.Vector, _ = enc.EncodeContext(ectx, corrected)
			stop()
		}
		<-done
	}
	if err := cmp.Or(err, ctx.Err()); err != nil {
		return q, nil, nil, err
	}
	var near []vectors.Near
	if q.Vector != nil {
		near = m.meanings.Nearest(q.Vector, nearShortlist)
	}
	m.mu.RLock()
	known := len(cands)
	if more := m.withNearest(ids, near)[len(ids):]; len(more) > 0 {
		cands = m.candidates(more, has, cands, byID)
	}
	missing := false
	if q.Vector != nil {
		for i := range cands {
			keys := byID[cands[i].ID].keys
			cands[i].Vectors = make([][]int8, len(keys))
			for j, k := range keys {
				if cands[i].Vectors[j] = m.meanings.Get(k); cands[i].Vectors[j] == nil {
					missing = true
				}
			}
		}
	}
	m.mu.RUnlock()
	if len(cands) == 0 {
		return q, nil, nil, nil
	}
	for i := range cands[known:] {
		cands[known+i].PrepareWords(q.Text)
	}
	if missing {
		// A trigger still being encoded would have no cosine where the
		// others have one: rank them all by words until it is there.
		q.Vector = nil
	}
	if extraVec != nil && q.Vector != nil {
		if v := await(ctx, extraVec, start.Add(budget+EmbedderBudget)); v != nil {
			for i := range cands {
				cs, ok := extra.Cosines(v, calib, byID[cands[i].ID].keys)
				if !ok {
					for i := range cands {
						cands[i].Cosines = nil // all or none
					}
					break
				}
				cands[i].Cosines = cs
			}
		}
	}
	return q, model.Rank(q, cands), byID, nil
}

// await returns what ch sends before deadline; nil when it sends nothing
// by then, or when ctx is done first.
func await(ctx context.Context, ch <-chan []float32, deadline time.Time) []float32 {
	wait := time.NewTimer(max(0, time.Until(deadline)))
	defer wait.Stop()
	select {
	case v := <-ch:
		return v
	case <-wait.C:
	case <-ctx.Done():
	}
	return nil
}

// candidates appends to cands the procedures of ids that the store holds
// (the index may lag it: those it does not are skipped, never
// contradicting it) and records a copy of each in byID. Their variants
// are the procedures' own slices, which analyse replaces and never
// changes, so they may be read after m.mu is released. The caller holds
// m.mu.
func (m *Memory) candidates(ids []string, has func(string) bool, cands []recall.Candidate, byID map[string]Procedure) []recall.Candidate {
	for _, id := range ids {
		p, ok := m.procs[id]
		if !ok {
			continue
		}
		cands = append(cands, recall.Candidate{ID: id, Uses: p.Uses, Variants: p.texts, Recallable: p.usable(has)})
		byID[id] = *p
	}
	return cands
}

// withNearest adds to ids the first nearLimit procedures that hold one of
// near's texts (best first, down to nearFloor) and are not among them.
// The caller holds m.mu.
func (m *Memory) withNearest(ids []string, near []vectors.Near) []string {
	known := len(ids)
	for _, n := range near {
		if n.Cosine < nearFloor {
			break
		}
		for _, id := range m.byKey[n.Text] {
			if len(ids)-known == nearLimit {
				return ids
			}
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// SetEncodeBudget replaces EncodeBudget for this memory: evaluation waits
// as long as the encoding takes (its scores must not depend on how busy
// the machine is), a test of the words-only path waits not at all.
func (m *Memory) SetEncodeBudget(d time.Duration) { m.budget = &d }

// WaitForMeaning is SetEncodeBudget(an hour).
func (m *Memory) WaitForMeaning() { m.SetEncodeBudget(time.Hour) }

// docFreq is how many procedures' triggers hold stem. The caller holds
// m.mu.
func (m *Memory) docFreq(stem string) int { return m.vocab[stem] }

// Learned says what Learn did.
type Learned struct {
	Procedure  Procedure `json:"procedure"`
	Merged     bool      `json:"merged"`     // an existing procedure was reused
	Suppressed bool      `json:"suppressed"` // it matches a forgotten procedure: nothing was learned
}

// Learn records that request was handled with tools (tool names in call
// order; examples are their arguments). When the request is taken for a
// procedure's task whose chain has the same shape (chain.Same: by words,
// as learning does not wait for an encoding; and as work, which a run of
// tools was), nothing is learned if that procedure was forgotten; it is
// merged into (its uses grow and the wording is kept as a variant) instead
// of a near duplicate when recall's merge model (recall.Model.Merge, which
// does not assume the store holds the task) gives it probability 0.9. A
// request that carries pasted material is learned by its instruction
// (instruction.Of), as recall reads it.
func (m *Memory) Learn(ctx context.Context, request string, tools []string, examples []json.RawMessage, session string) (Learned, error) {
	request = instruction.Of(request) // the trigger is what was asked, not what was pasted
	m.mu.Lock()
	defer m.mu.Unlock()
	return anew(func() (Learned, error) { return m.learn(ctx, request, tools, examples, session) })
}

// learn is Learn under m.mu, from what the store holds now.
func (m *Memory) learn(ctx context.Context, request string, tools []string, examples []json.RawMessage, session string) (Learned, error) {
	if err := m.refresh(ctx); err != nil {
		return Learned{}, err
	}
	sp := spell.Default()
	q := recall.Query{Text: recall.Analyse(request, sp, m.words)} // no Form: a run of tools was work
	// Merge candidates come from the index, as for recall, so learning
	// costs the same with ten procedures or a hundred thousand. The search
	// includes forgotten procedures: a request that matches one the user
	// forgot must not bring it back as a new procedure.
	ids, err := m.index.search(q.Text, m.docFreq, len(m.procs), searchLimit)
	if err != nil {
		return Learned{}, err
	}
	// Ranked among all candidates, so that the margin means what it
	// means in recall; merged only into one with the same chain.
	var cands []recall.Candidate
	for _, id := range ids {
		if p, ok := m.procs[id]; ok {
			cands = append(cands, recall.Candidate{ID: id, Uses: p.Uses, Variants: p.texts, Recallable: true})
		}
	}
	var best *Procedure
	ranked := model.Rank(q, cands)
	if same := model.DecideForWork(q, ranked, false, 1); len(same) > 0 && chain.Same(m.procs[same[0].ID].Tools, tools) {
		switch p := m.procs[same[0].ID]; {
		case !p.Recallable():
			// The user forgot this task's procedure: it is not learned
			// again.
			return Learned{Procedure: *p, Suppressed: true}, nil
		case same[0].ID == ranked[0].ID && model.Merge(q, ranked) >= mergeCertainty:
			// Merged only when the request is that task even though the
			// store need not hold it: recall's acceptance assumes it
			// does, and merged a dozen different file chores with one
			// chain into one procedure (the #20 bench).
			best = p
		}
	}
	now := time.Now().UTC()
	if best != nil {
		p := *best
		p.Triggers = slices.Clone(p.Triggers)
		p.Sessions = slices.Clone(p.Sessions)
		p.Uses++
		p.LastUsed = now
		if !slices.ContainsFunc(p.Triggers, func(t string) bool { return strings.EqualFold(strings.TrimSpace(t), strings.TrimSpace(request)) }) && len(p.Triggers) < 20 {
			p.Triggers = append(p.Triggers, request)
		}
		if session != "" && !slices.Contains(p.Sessions, session) {
			p.Sessions = append(p.Sessions, session)
		}
		if err := m.save(ctx, &p); err != nil {
			return Learned{}, err
		}
		return Learned{Procedure: p, Merged: true}, nil
	}
	p := Procedure{
		ID: newID(), Trigger: request, Triggers: []string{request}, Tools: slices.Clone(tools), Examples: examples,
		Created: now, LastUsed: now,
	}
	if session != "" {
		p.Sessions = []string{session}
	}
	if err := m.save(ctx, &p); err != nil {
		return Learned{}, err
	}
	return Learned{Procedure: p}, nil
}

func newID() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return "p-" + hex.EncodeToString(b[:])
}
