package memory

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/backend/lexicon"
	"github.com/shrimp-harness/shrimp/backend/sentence"
)

// lex is the word lexicon recall uses for words close in meaning.
var lex = lexicon.Default

// Threshold is the confidence a procedure needs to be recalled. The
// confidence is made of shares of words (0..1), not of index scores, so it
// means the same with ten procedures stored or a hundred thousand.
const Threshold = 0.5

// Hit is one recalled procedure.
type Hit struct {
	Procedure Procedure `json:"procedure"`
	Score     float64   `json:"score"` // the confidence, 0..1
	// order is how far the trigger keeps the request's words in the same
	// order (0..1): it breaks ties between triggers with the same words
	// ("convert the pdf into word" / "convert the word file into a pdf").
	order float64
}

// minTriggerShare is the least share of a trigger's (weighted) words a
// request must cover, however well the trigger explains the request.
// Measured in docs/BENCHMARKS.md: 0.25 and 0.3 remove the same false
// positives and no recall on any set; 0.35 starts to cost recall.
const minTriggerShare = 0.25

// match weights for a trigger word found in the request.
const (
	wExact   = 1.0
	wSynonym = 0.85
	wTypo    = 0.85
	wPrefix  = 0.75
	// wRealWordTypo is the credit for a "typo" between two common words:
	// sometimes a slip ("pairs" for "paris"), more often two different
	// words ("better", "letter"). Below wPrefix, so it never counts as a
	// strong match.
	wRealWordTypo = 0.5
	// wNear is the credit for a word the lexicon puts at cosine simNear of
	// a trigger word; it rises by the cosine above simNear, up to wSynonym.
	// At 0.55 the lexicon's neighbours are mostly the same thing in other
	// words (thesis/dissertation, luggage/suitcase, vehicle/car) with some
	// siblings (friday/thursday); below it, associations ("bring"/"spend")
	// start to outnumber them. Measured in docs/BENCHMARKS.md.
	wNear   = 0.6
	simNear = 0.55
	// everydayWords is how many of the lexicon's most frequent words
	// (it is ordered by frequency) have vectors too diffuse for a strong
	// match by meaning with each other. Measured in docs/BENCHMARKS.md:
	// 500 costs no hit on any set; 1,000 and more start to.
	everydayWords = 500
)

// pairMatch is how well two words match, the same either way round: one
// word (or stem), one word written as two ("sun set", "sunset"), a
// curated synonym, a typo, another form of the word, or a word close in
// meaning; byMeaning says it is only the last.
func pairMatch(a, b term) (v float64, byMeaning bool) {
	if compound(a, b) {
		return wExact, false
	}
	return wordMatch(a, b)
}

// compound reports whether one of two words is the other written with the
// word that follows it ("sun set", "sunset").
func compound(a, b term) bool { return a.closed == b.stem || b.closed == a.stem }

// wordMatch is pairMatch for the words alone, without the words that
// follow them.
func wordMatch(a, b term) (v float64, byMeaning bool) {
	switch {
	case a.stem == b.stem || a.word == b.word:
		return wExact, false
	case synonymous(a.stem, b.stem):
		return wSynonym, false
	}
	best := 0.0
	lim := min(typoLimit(a.word), typoLimit(b.word))
	switch {
	case lim == 0 && (shortSlip(a.word, b.word) || shortSlip(b.word, a.word)):
		lim = 1
	case lim == 1 && min(len(a.word), len(b.word)) >= 6 && !(commonWord(a.word) && commonWord(b.word)):
		// Six letters and not a word: two slips ("aroort", "airport").
		lim = 2
	}
	switch {
	case negated(a.word, b.word) || negated(b.word, a.word):
		// Two edits apart, but not a slip: checked before typos.
		best = wPrefix
	case editDistance(a.word, b.word, lim) <= lim:
		// Two common words an edit apart ("better", "letter") are
		// usually two words, not a typo.
		switch words := commonWord(a.word) && commonWord(b.word); {
		case !words:
			best = wTypo
		case transposed(a.word, b.word):
			// Two letters swapped ("pest", "pets") is the commonest
			// slip of all, even when it makes another word: a match
			// that counts, if not as much as a curated synonym.
			best = wPrefix
		case related(a.stem, b.stem):
			best = wPrefix // "bake", "baker": one word's forms
		default:
			best = wRealWordTypo
		}
	case related(a.stem, b.stem) || compoundHead(a.word, b.word) || compoundHead(b.word, a.word) ||
		superlative(a.word, b.word) || superlative(b.word, a.word):
		best = wPrefix
	}
	// Close in meaning: the lexicon's cosine, a weaker match than a
	// curated synonym. Generic words are left out (their lex is -1):
	// their neighbours are everything. So are two words of one contrast
	// class (weekdays, languages): alike to the vectors, not the same.
	if best < wSynonym && a.lex >= 0 && b.lex >= 0 && (contrast[a.stem] == 0 || contrast[a.stem] != contrast[b.stem]) {
		if sim := float64(lex().SimilarityID(a.lex, b.lex)); sim >= simNear {
			near := min(wSynonym, wNear+(sim-simNear))
			if a.lex < everydayWords && b.lex < everydayWords {
				// Two of the most frequent words sit near many others
				// ("move" and "decision" at 0.77): never a strong match.
				near = min(near, wPrefix-0.05)
			}
			if near > best {
				return near, true
			}
		}
	}
	return best, false
}

// transposed reports whether a and b differ only by two adjacent letters
// swapped.
func transposed(a, b string) bool {
	if len(a) != len(b) || a == b {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

// shortSlip reports whether w, three letters and not a common word, may
// be a slip of the longer word long ("bns" for "bins").
func shortSlip(w, long string) bool {
	return len(w) == 3 && len(long) == 4 && !commonWord(w)
}

// commonWord reports whether w is among the lexicon's 50,000 most frequent
// words. Rarer entries include frequent misspellings ("calender",
// "seperate"), which are typos after all.
func commonWord(w string) bool {
	id := lex().ID(w)
	return id >= 0 && id < 50_000
}

// related reports whether two stems are forms of one word the stemmer kept
// apart ("transcrib"/"transcript", "automat"/"automaticali"): they share a
// prefix of at least 5 letters that leaves at most 2 letters of the
// shorter one.
func related(a, b string) bool {
	if doer(a, b) || doer(b, a) {
		return true
	}
	if len(a) < 5 || len(b) < 5 {
		return false
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n >= 5 && n >= min(len(a), len(b))-2
}

// doer reports whether w names who or what does base, a verb of four
// letters ("walker", "baker"); longer verbs are related by their prefix.
func doer(w, base string) bool {
	return len(base) == 4 && (w == base+"er" || strings.HasSuffix(base, "e") && w == base+"r")
}

// compoundHead reports whether w is a closed compound whose head is
// head ("houseplants"/"plants", "bookshelf"/"shelf"): w ends with head,
// a word of at least 5 letters, and what comes before is a common word.
func compoundHead(w, head string) bool {
	if len(head) < 5 || len(w) < len(head)+3 || !strings.HasSuffix(w, head) {
		return false
	}
	return commonWord(w[:len(w)-len(head)])
}

// superlative reports whether w is the superlative of base ("fastest",
// "largest", "biggest", "easiest"), which the stemmer keeps whole. The
// comparative in -er is left out: it is also the agent noun of a verb
// ("driver", "printer", "speaker").
func superlative(w, base string) bool {
	if len(base) < 3 || !strings.HasSuffix(w, "st") || !commonWord(base) {
		return false
	}
	switch {
	case w == base+"est", strings.HasSuffix(base, "e") && w == base+"st":
		return true
	case strings.HasSuffix(base, "y") && w == base[:len(base)-1]+"iest":
		return true
	}
	return w == base+base[len(base)-1:]+"est" // big, biggest
}

// negated reports whether w is "un" before a participle or adjective in
// -d ("uncommitted", "unpaid", "unread") and base is that word: negations
// are stop words, so "not committed" reads as "committed". Verbs with
// "un" undo their base ("unlock", "uninstall", "unzip") and do not end in
// -d, so they are left out.
func negated(w, base string) bool {
	return len(base) >= 4 && strings.HasSuffix(base, "d") && len(w) == len(base)+2 && strings.HasPrefix(w, "un") && w[2:] == base
}

// matcher scores trigger words against one request, remembering each
// trigger word's matches: the same words recur across candidates.
type matcher struct {
	q    []term
	rows map[string]int // trigger word -> its row in list
	list []matchRow
	// closed says some request word makes a compound with the next one.
	closed bool

	// Scratch space for confidence, reused across candidates.
	covered []float64
	nearTo  []int
	tt      []matchRow

	// Storage for matchRows (see newRow): used values are taken.
	slabV    []float64
	slabNear []bool
	used     int
}

// matchRow is one trigger word's pairMatch with each request term, and
// which of those matches are by meaning only.
type matchRow struct {
	v    []float64
	near []bool
}

// newMatcher returns a matcher for request terms q, reusing a released
// one's storage: a recall meets hundreds of trigger words, and their rows
// were most of its garbage. Release it when done with its rows.
func newMatcher(q []term) *matcher {
	m := matcherPool.Get().(*matcher)
	m.q = q
	m.closed = slices.ContainsFunc(q, func(x term) bool { return x.closed != "" })
	clear(m.rows)
	m.list = m.list[:0]
	m.used = 0
	m.covered = slices.Grow(m.covered[:0], len(q))[:len(q)]
	m.nearTo = slices.Grow(m.nearTo[:0], len(q))[:len(q)]
	return m
}

var matcherPool = sync.Pool{New: func() any { return &matcher{rows: map[string]int{}} }}

// release gives m back for another recall; m and its rows must not be
// used after.
func (m *matcher) release() {
	m.q = nil
	matcherPool.Put(m)
}

// newRow returns a zeroed matchRow cut from the matcher's slab, which a
// new, larger one replaces when it is full (the rows already cut keep the
// old one).
func (m *matcher) newRow() matchRow {
	n := len(m.q)
	if len(m.slabV)-m.used < n {
		size := max(2*len(m.slabV), 64*n)
		m.slabV, m.slabNear, m.used = make([]float64, size), make([]bool, size), 0
	}
	r := matchRow{v: m.slabV[m.used : m.used+n : m.used+n], near: m.slabNear[m.used : m.used+n : m.used+n]}
	m.used += n
	clear(r.v)
	clear(r.near)
	return r
}

// row is trigger word t's matchRow. The word's own matches are memoised
// by word; a compound with the next word, which depends on the trigger it
// is in, is checked each time and copies the row only when it matches.
func (m *matcher) row(t term) matchRow {
	var r matchRow
	if i, ok := m.rows[t.word]; ok {
		r = m.list[i]
	} else {
		r = m.newRow()
		for i, x := range m.q {
			r.v[i], r.near[i] = wordMatch(x, t)
		}
		m.rows[t.word] = len(m.list)
		m.list = append(m.list, r)
	}
	if t.closed == "" && !m.closed {
		return r
	}
	copied := false
	for i, x := range m.q {
		if r.v[i] < wExact && compound(x, t) {
			if !copied {
				r = matchRow{v: slices.Clone(r.v), near: slices.Clone(r.near)}
				copied = true
			}
			r.v[i], r.near[i] = wExact, false
		}
	}
	return r
}

// confidence is, for the best-matching trigger variant, the mean of two
// shares: of the trigger's words the request covers (weighted, generic
// words counting less) and of the request's distinctive words the trigger
// covers, provided the first is at least minTriggerShare. A request
// word's match by meaning counts for one trigger word only, its closest:
// a word means one thing, and vectors put a common word ("come",
// "meeting") near several words of a long trigger at once. It needs at
// least two distinctive (non-generic) trigger words matched, or all of
// them when the trigger has fewer.
func confidence(mt *matcher, variants [][]term) float64 {
	best := 0.0
	// Per request term: its best match in the trigger, and the trigger
	// word its match by meaning goes to.
	covered, nearTo := mt.covered, mt.nearTo
	for _, tt := range variants {
		rows := mt.tt[:0]
		for _, t := range tt {
			rows = append(rows, mt.row(t))
		}
		mt.tt = rows
		clear(covered)
		for i := range nearTo {
			nearTo[i] = -1
			closest := 0.0
			for j, r := range rows {
				if r.near[i] && r.v[i] > closest {
					closest, nearTo[i] = r.v[i], j
				}
			}
		}
		var got, total float64
		strong, distinct := 0, 0
		for j, t := range tt {
			w := 1.0
			if t.generic {
				w = 0.35
			} else {
				distinct++
			}
			m := 0.0
			for i, v := range rows[j].v {
				if rows[j].near[i] && nearTo[i] != j {
					continue
				}
				m = max(m, v)
				covered[i] = max(covered[i], v)
			}
			got += w * m
			total += w
			if !t.generic && m >= wPrefix {
				strong++
			}
		}
		if total == 0 || strong < min(2, distinct) {
			continue
		}
		c := got / total
		// A request fully explained by two words of a long trigger ("where
		// does the word email come from" against a complaint that mentions
		// an email) has not asked for the trigger's method.
		if c < minTriggerShare {
			continue
		}
		// How much of what was asked the trigger explains: averaged in,
		// a trigger whose few words all appear in a request about
		// something else scores lower.
		var asked float64
		n := 0
		for i, x := range mt.q {
			if !x.generic {
				asked += covered[i]
				n++
			}
		}
		if n > 0 {
			c = (c + asked/float64(n)) / 2
		}
		best = max(best, c)
	}
	return best
}

// Recall returns up to limit procedures whose confidence for request is at
// least Threshold, best first, skipping forgotten procedures and those that
// name a tool for which has reports false.
func (m *Memory) Recall(ctx context.Context, request string, has func(string) bool, limit int) ([]Hit, error) {
	return m.recall(ctx, request, has, limit, Threshold)
}

func (m *Memory) recall(ctx context.Context, request string, has func(string) bool, limit int, threshold float64) ([]Hit, error) {
	q := terms(request)
	if len(q) == 0 || limit <= 0 || asksWhatItIs(request) {
		return nil, nil
	}
	// The request is encoded on another goroutine while the words are
	// searched, in case they find nothing: a rescue then waits only for
	// the rest of the encoding. When they find something, the encoding is
	// stopped. The model is fetched there too: a recall right after Open,
	// while it is still loading, need not wait for it.
	var vector func() []float32
	if !m.wordsOnly && m.meanings.some() {
		ctx, stop := context.WithCancel(ctx)
		defer stop()
		done := make(chan []float32, 1)
		go func() {
			var v []float32
			if enc := sentence.Default(); enc != nil {
				v, _ = enc.EncodeContext(ctx, request)
			}
			done <- v
		}()
		vector = sync.OnceValue(func() []float32 { return <-done })
	}
	hits, unsure, err := m.recallWords(q, has, threshold)
	if err != nil {
		return nil, err
	}
	if len(hits) == 0 && len(unsure) > 0 && vector != nil {
		blocked := func() ([]Procedure, error) { return m.blocked(q, has) }
		if hits, err = m.recallMeaning(vector, unsure, blocked); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if d := b.Score - a.Score; d > 1e-9 || d < -1e-9 {
			if d > 0 {
				return 1
			}
			return -1
		}
		if a.order != b.order {
			return cmp.Compare(b.order, a.order)
		}
		return b.Procedure.Uses - a.Procedure.Uses
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// recallWords returns the candidates whose confidence reaches threshold,
// and, only when there are none, the other recallable candidates (copies,
// for recallMeaning).
func (m *Memory) recallWords(q []term, has func(string) bool, threshold float64) (hits []Hit, unsure []Procedure, err error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var missing []string
	for t, n := range m.tools {
		if n > 0 && !has(t) {
			missing = append(missing, t)
		}
	}
	ids, err := m.index.candidates(q, m.docFreq, len(m.procs), missing, 30)
	if err != nil {
		return nil, nil, err
	}
	mt := newMatcher(q)
	defer mt.release()
	var others []*Procedure
	for _, id := range ids {
		p, ok := m.procs[id]
		// Check against the source of truth: the index may lag.
		if !ok || !p.usable(has) {
			continue
		}
		if c := confidence(mt, p.terms); c >= threshold {
			hits = append(hits, Hit{Procedure: *p, Score: c, order: inOrder(q, p.terms)})
		} else {
			others = append(others, p)
		}
	}
	if len(hits) > 0 {
		return hits, nil, nil // no rescue: no copies
	}
	unsure = make([]Procedure, len(others))
	for i, p := range others {
		unsure[i] = *p
	}
	return hits, unsure, nil
}

// inOrder is the share of pairs of the request's words, among those a
// trigger variant has, that the variant has in the same order (the best
// variant; 0.5 when fewer than two are shared).
func inOrder(q []term, variants [][]term) float64 {
	best := -1.0
	for _, v := range variants {
		var pos []int
		for _, a := range q {
			if i := slices.IndexFunc(v, func(b term) bool { return b.stem == a.stem }); i >= 0 {
				pos = append(pos, i)
			}
		}
		if len(pos) < 2 {
			continue
		}
		same, pairs := 0, 0
		for i := range pos {
			for j := i + 1; j < len(pos); j++ {
				pairs++
				if pos[i] < pos[j] {
					same++
				}
			}
		}
		best = max(best, float64(same)/float64(pairs))
	}
	if best < 0 {
		return 0.5
	}
	return best
}

// docFreq is how many triggers hold a stem (or a synonym group or
// trigram key): the index's measure of how common a search term is. The
// caller holds m.mu.
func (m *Memory) docFreq(stem string) int { return m.vocab[stem] }

// blocked returns the procedures related to q that recall may not return
// (forgotten, or naming a tool that is missing now).
func (m *Memory) blocked(q []term, has func(string) bool) ([]Procedure, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	ids, err := m.index.unfiltered(q, m.docFreq, len(m.procs), 30)
	if err != nil {
		return nil, err
	}
	var out []Procedure
	for _, id := range ids {
		if p, ok := m.procs[id]; ok && !p.usable(has) {
			out = append(out, *p)
		}
	}
	return out, nil
}

// recallMeaning picks, among candidates that no word match recalled, the
// one closest in meaning to request, if it is within minMeaning and
// meaningMargin clear of the next (see minMeaning). Its score is the
// cosine. The procedures recall may not return (blocked, looked up only
// when a rescue is due) compete too: a request closest in meaning to a
// forgotten or stale procedure is about that procedure, and a sibling of
// it would be a false positive. (The margin is taken over the candidates
// only: a blocked procedure merely near the best one, a generic "files"
// chore beside a config-file one, says nothing.) vector is the request's
// vector, encoded beside the word search (0.4-0.8 ms on AMX tiles,
// 0.5-1.1 ms with VNNI, 3-7 ms with the float kernels, 11-24 ms with the
// portable loops); it runs
// only when the words found nothing, and without the memory's lock.
func (m *Memory) recallMeaning(vector func() []float32, candidates []Procedure, blocked func() ([]Procedure, error)) ([]Hit, error) {
	// The closest of a procedure's trigger variants, -1 when none has a
	// vector yet.
	var qv []float32
	closest := func(p Procedure) float64 {
		c := -1.0
		for _, t := range p.Triggers {
			if v := m.meanings.get(t); v != nil {
				c = max(c, cosine(qv, v))
			}
		}
		return c
	}
	if !slices.ContainsFunc(candidates, func(p Procedure) bool {
		return slices.ContainsFunc(p.Triggers, func(t string) bool { return m.meanings.get(t) != nil })
	}) {
		return nil, nil
	}
	if qv = vector(); qv == nil {
		return nil, nil
	}
	top, best, next := -1, -1.0, 0.0
	for i, p := range candidates {
		switch c := closest(p); {
		case c > best || (c == best && top >= 0 && p.ID < candidates[top].ID):
			next = max(next, best)
			top, best = i, c
		case c > next:
			next = c
		}
	}
	if best < minMeaning || best-next < meaningMargin {
		return nil, nil
	}
	// Only now, as rescues are rare: is the request closer still to a
	// procedure recall may not return?
	bs, err := blocked()
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		if closest(b) >= best {
			return nil, nil
		}
	}
	return []Hit{{Procedure: candidates[top], Score: best}}, nil
}

// Learned says what Learn did.
type Learned struct {
	Procedure  Procedure `json:"procedure"`
	Merged     bool      `json:"merged"`     // an existing procedure was reused
	Suppressed bool      `json:"suppressed"` // it matches a forgotten procedure: nothing was learned
}

// Learn records that request was handled with chain (tool names in call
// order; examples are their arguments). A procedure with the same chain
// that the request recalls above the threshold is merged into (its uses
// grow and the wording is kept as a variant) instead of adding a near
// duplicate.
func (m *Memory) Learn(ctx context.Context, request string, chain []string, examples []json.RawMessage, session string) (Learned, error) {
	q := terms(request)
	m.mu.Lock()
	defer m.mu.Unlock()
	// Merge candidates come from the index, as for recall, so learning
	// costs the same with ten procedures or a hundred thousand.
	ids, err := m.index.candidates(q, m.docFreq, len(m.procs), nil, 40)
	if err != nil {
		return Learned{}, err
	}
	// The search includes forgotten procedures: a request that matches one
	// the user forgot must not bring it back as a new procedure.
	forgottenIDs, err := m.index.forgotten(q, m.docFreq, len(m.procs), 20)
	if err != nil {
		return Learned{}, err
	}
	var best *Procedure
	bestScore := 0.0
	mt := newMatcher(q)
	defer mt.release()
	for _, id := range append(ids, forgottenIDs...) {
		p, ok := m.procs[id]
		if !ok || !slices.Equal(p.Tools, chain) {
			continue
		}
		if c := confidence(mt, p.terms); c >= Threshold && c > bestScore {
			best, bestScore = p, c
		}
	}
	if best != nil && !best.recallable() {
		return Learned{Procedure: *best, Suppressed: true}, nil
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
		ID: newID(), Trigger: request, Triggers: []string{request}, Tools: slices.Clone(chain), Examples: examples,
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
