// Package spell corrects misspelt words, SymSpell-style, against a word
// list ranked by frequency: the lexicon's, by default (Default).
//
// Its contract: Correct returns the word a misspelling was probably meant
// to be, or the word itself when it is a common word, too short, not plain
// lower-case letters, or has no close enough candidate; a word of the
// caller's own vocabulary one edit away comes first. It never allocates
// per call beyond the result and is safe for concurrent use. OSA is the
// edit distance it checks candidates by, for callers that compare words
// for slips themselves.
package spell

import (
	"hash/maphash"
	"slices"
	"sync"

	"github.com/shrimp-harness/shrimp/backend/lexicon"
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
	// TrustedRank: a word below this frequency rank is taken as meant. A
	// rarer word the lexicon knows is corrected only to a word of the
	// caller's vocabulary or one far more frequent.
	TrustedRank = 30000
	// rareRatio: how much more frequent a correction of a rare known word
	// must be.
	rareRatio   = 50
	minSpellLen = 4
)

var (
	spellerOnce sync.Once
	speller     *Speller
)

// Default returns the speller over the built-in lexicon, built on first
// use; nil when the lexicon could not be loaded.
func Default() *Speller {
	spellerOnce.Do(func() {
		l := lexicon.Default()
		if l == nil {
			return
		}
		words := make([]string, min(spellWords, l.Len()))
		for i := range words {
			words[i] = l.Word(i)
		}
		speller = New(words, func(w string) int32 { return l.ID(w) })
	})
	return speller
}

// New builds a speller over words, most frequent first; rank gives
// any word's frequency rank (-1 unknown).
func New(words []string, rank func(string) int32) *Speller {
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

// Vocabulary is the caller's words (the stored triggers'), with counts;
// a word is in it when its count is positive. Correct prefers them.
type Vocabulary = map[string]int

// Correct returns the word w was probably meant to be, or w. known, when
// not nil, is the caller's vocabulary: a word of it one edit away comes
// first, and at the same distance a correction to one of its words wins.
func (sp *Speller) Correct(w string, known Vocabulary) string {
	if sp == nil || len(w) < minSpellLen || !letters(w) || known[w] > 0 {
		return w
	}
	r := sp.rank(w)
	if r >= 0 && r < TrustedRank {
		return w
	}
	// A word of the caller's vocabulary one edit away comes first, even
	// one the lexicon does not know ("dropbx" for "dropbox").
	if len(known) > 0 {
		if e, ok := edit1In(w, known); ok {
			return e
		}
	}
	maxDist := 1
	if len(w) >= 6 {
		maxDist = 2
	}
	best, bestKey := w, [3]int{maxDist + 1, 1, 1 << 30}
	var seen []int32
	deletions(w, maxDist, func(d []byte) {
		h := maphash.Bytes(sp.seed, d)
		i, _ := slices.BinarySearch(sp.keys, h)
		for ; i < len(sp.keys) && sp.keys[i] == h; i++ {
			id := sp.ids[i]
			if slices.Contains(seen, id) {
				continue
			}
			seen = append(seen, id)
			c := sp.word(id)
			dist := OSA(w, c, maxDist)
			if dist > maxDist || dist == 0 {
				continue
			}
			hinted := known[c] > 0
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
	})
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

// deletions calls f with w and every string made by deleting up to n
// (at most 2) of its letters, in one reused buffer (f must not keep it);
// some strings come more than once.
func deletions(w string, n int, f func([]byte)) {
	var buf [64]byte
	b := append(buf[:0], w...)
	f(b)
	if n < 1 || len(w) > len(buf) {
		return
	}
	var one [64]byte
	for i := range len(w) {
		d1 := append(append(one[:0], w[:i]...), w[i+1:]...)
		if len(d1) >= minSpellLen-2 {
			f(d1)
		}
		if n < 2 {
			continue
		}
		var two [64]byte
		for j := i; j < len(d1); j++ {
			d2 := append(append(two[:0], d1[:j]...), d1[j+1:]...)
			if len(d2) >= minSpellLen-2 {
				f(d2)
			}
		}
	}
}

// OSA is the optimal string alignment distance of a and b (edits: insert,
// delete, substitute, swap two neighbours), or limit+1 once it exceeds
// limit. Words up to 31 letters need no allocation.
func OSA(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	var rows [3][32]int
	var prev2, prev, cur []int
	if len(b) < 32 {
		prev2, prev, cur = rows[0][:len(b)+1], rows[1][:len(b)+1], rows[2][:len(b)+1]
	} else {
		prev2, prev, cur = make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	}
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

// edit1In returns a word of known one edit from w (a letter deleted,
// two neighbours swapped, one replaced or one inserted; tried in that
// order), looked up from one reused buffer.
func edit1In(w string, known Vocabulary) (string, bool) {
	var buf [80]byte
	try := func(b []byte) (string, bool) {
		if known[string(b)] > 0 { // no allocation for the lookup
			return string(b), true
		}
		return "", false
	}
	if len(w)+1 > len(buf) {
		return "", false
	}
	for i := range len(w) {
		if e, ok := try(append(append(buf[:0], w[:i]...), w[i+1:]...)); ok {
			return e, true
		}
	}
	for i := 0; i+1 < len(w); i++ {
		b := append(buf[:0], w...)
		b[i], b[i+1] = b[i+1], b[i]
		if e, ok := try(b); ok {
			return e, true
		}
	}
	for i := range len(w) + 1 {
		for c := byte('a'); c <= 'z'; c++ {
			if i < len(w) && c != w[i] {
				b := append(buf[:0], w...)
				b[i] = c
				if e, ok := try(b); ok {
					return e, true
				}
			}
			if e, ok := try(append(append(append(buf[:0], w[:i]...), c), w[i:]...)); ok {
				return e, true
			}
		}
	}
	return "", false
}
