package recall

import (
	"hash/maphash"
	"slices"
	"sync"
)

// Speller corrects words the lexicon does not know to the likeliest word it
// does, SymSpell-style: every dictionary word is stored under itself and
// each of its one-letter deletions; a misspelt word's deletions of up to two
// letters are looked up there, and the words found are checked by
// Damerau-Levenshtein distance. That finds every word one edit away and most
// two away (all but two substitutions) in microseconds, with no table of
// every two-letter deletion. A Speller is read-only and safe for concurrent
// use.
type Speller struct {
	seed maphash.Seed
	keys []uint64 // sorted hashes of words and their deletions
	ids  []int32  // lexicon ID for each key
	word func(int32) string
	rank func(string) int32
}

// Dictionary limits.
const (
	// spellWords is how many of the lexicon's most frequent words are
	// correction targets; its tail is rich in misspellings.
	spellWords = 60000
	// trustedRank: a word below this rank is taken as meant. A rarer word
	// the lexicon knows is corrected only to a word of the caller's
	// vocabulary or one far more frequent.
	trustedRank = 30000
	// rareRatio: how much more frequent a correction of a rare known word
	// must be.
	rareRatio   = 50
	minSpellLen = 4
)

var (
	spellerOnce sync.Once
	speller     *Speller
)

// DefaultSpeller returns the speller over the built-in lexicon, built on
// first use; nil when the lexicon could not be loaded.
func DefaultSpeller() *Speller {
	spellerOnce.Do(func() {
		l := lex()
		if l == nil {
			return
		}
		words := make([]string, min(spellWords, l.Len()))
		for i := range words {
			words[i] = l.Word(i)
		}
		speller = NewSpeller(words, func(w string) int32 { return l.ID(w) })
	})
	return speller
}

// NewSpeller builds a speller over words, most frequent first; rank gives
// any word's frequency rank (-1 unknown).
func NewSpeller(words []string, rank func(string) int32) *Speller {
	sp := &Speller{seed: maphash.MakeSeed(), rank: rank}
	type kv struct {
		k  uint64
		id int32
	}
	var all []kv
	for i, w := range words {
		if len(w) < minSpellLen-1 || !letters(w) {
			continue
		}
		all = append(all, kv{sp.hash(w), int32(i)})
		for j := range len(w) {
			all = append(all, kv{sp.hash(w[:j] + w[j+1:]), int32(i)})
		}
	}
	slices.SortFunc(all, func(a, b kv) int {
		if a.k != b.k {
			if a.k < b.k {
				return -1
			}
			return 1
		}
		return int(a.id - b.id)
	})
	sp.keys = make([]uint64, len(all))
	sp.ids = make([]int32, len(all))
	for i, e := range all {
		sp.keys[i], sp.ids[i] = e.k, e.id
	}
	sp.word = func(id int32) string { return words[id] }
	return sp
}

func (sp *Speller) hash(s string) uint64 { return maphash.String(sp.seed, s) }

func letters(w string) bool {
	for i := range len(w) {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// Correct returns the word w was probably meant to be, or w. known, when
// not nil, names the caller's vocabulary (the stored triggers' words): a
// correction to one of them is preferred at the same distance.
func (sp *Speller) Correct(w string, known func(string) bool) string {
	if sp == nil || len(w) < minSpellLen || !letters(w) || (known != nil && known(w)) {
		return w
	}
	r := sp.rank(w)
	if r >= 0 && r < trustedRank {
		return w
	}
	// A word of the caller's vocabulary one edit away comes first, even
	// one the lexicon does not know ("dropbx" for "dropbox").
	if known != nil {
		for _, e := range edits1(w) {
			if known(e) {
				return e
			}
		}
	}
	maxDist := 1
	if len(w) >= 6 {
		maxDist = 2
	}
	best, bestKey := w, [3]int{maxDist + 1, 1, 1 << 30}
	seen := map[int32]bool{}
	for _, d := range deletions(w, maxDist) {
		h := sp.hash(d)
		i, _ := slices.BinarySearch(sp.keys, h)
		for ; i < len(sp.keys) && sp.keys[i] == h; i++ {
			id := sp.ids[i]
			if seen[id] {
				continue
			}
			seen[id] = true
			c := sp.word(id)
			dist := osa(w, c, maxDist)
			if dist > maxDist || dist == 0 {
				continue
			}
			hinted := known != nil && known(c)
			if r >= 0 && !hinted && (dist > 1 || int(id)*rareRatio > int(r)) {
				continue // a rare real word: only a clear improvement
			}
			key := [3]int{dist, 1, int(id)}
			if hinted {
				key[1] = 0
			}
			if less(key, bestKey) {
				best, bestKey = c, key
			}
		}
	}
	return best
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// deletions returns w and every string made by deleting up to n letters.
func deletions(w string, n int) []string {
	out := []string{w}
	level := []string{w}
	seen := map[string]bool{w: true}
	for range n {
		var next []string
		for _, s := range level {
			for j := range len(s) {
				d := s[:j] + s[j+1:]
				if !seen[d] && len(d) >= minSpellLen-2 {
					seen[d] = true
					next = append(next, d)
				}
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// osa is the optimal string alignment distance of a and b (edits: insert,
// delete, substitute, swap two neighbours), or limit+1 once it exceeds
// limit.
func osa(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// edits1 returns the strings one edit from w (a letter deleted, swapped
// with the next, replaced or inserted), deletions and swaps first.
func edits1(w string) []string {
	var out []string
	for i := range len(w) {
		out = append(out, w[:i]+w[i+1:])
	}
	for i := 0; i+1 < len(w); i++ {
		out = append(out, w[:i]+string(w[i+1])+string(w[i])+w[i+2:])
	}
	for i := range len(w) + 1 {
		for c := byte('a'); c <= 'z'; c++ {
			if i < len(w) && c != w[i] {
				out = append(out, w[:i]+string(c)+w[i+1:])
			}
			out = append(out, w[:i]+string(c)+w[i:])
		}
	}
	return out
}
