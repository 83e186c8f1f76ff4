package sentence

import (
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// separator is SentencePiece's word-start mark, written for every space.
const separator = '\u2581'

// reserved is how many pieces at the start of the vocabulary (unknown,
// sentence marks, spare ids) are never produced by matching text.
const reserved = 6

// piece is one entry of the SentencePiece vocabulary.
type piece struct {
	text  string
	score float64
	units int // length in UTF-16 code units, as the reference backtracks
}

// trie finds every vocabulary piece that starts a string. Its nodes are
// numbers (the root is 0) and its edges one map from node and rune to
// node, so it holds no pointers for the garbage collector to trace (a
// pointer per node made every collection cycle ~1 ms longer).
type trie struct {
	next map[uint64]int32 // node<<32 | rune -> child node
	ids  []int32          // piece id ending at each node, or -1
}

func newTrie(pieces []piece) *trie {
	t := &trie{next: map[uint64]int32{}, ids: []int32{-1}}
	for id := reserved; id < len(pieces); id++ {
		n := int32(0)
		for _, r := range pieces[id].text {
			c, ok := t.next[edge(n, r)]
			if !ok {
				c = int32(len(t.ids))
				t.ids = append(t.ids, -1)
				t.next[edge(n, r)] = c
			}
			n = c
		}
		t.ids[n] = int32(id)
	}
	return t
}

// edge is the key of node n's edge for rune r.
func edge(n int32, r rune) uint64 { return uint64(n)<<32 | uint64(uint32(r)) }

// child is node n's child by rune r, or -1.
func (t *trie) child(n int32, r rune) int32 {
	if c, ok := t.next[edge(n, r)]; ok {
		return c
	}
	return -1
}

// tokenize splits text into piece ids the way the model's own JavaScript
// tokenizer does (a unigram Viterbi search over the pieces' scores), so that
// the ids, and the vectors, are the same: NFKC, a separator before the text
// and for every space, the best-scoring split, runs of unknown characters
// as one unknown piece. Its quirks are kept on purpose: a best score of
// exactly 0 counts as unset, and ties go to the later candidate.
func (e *Encoder) tokenize(text string) []int {
	text = norm.NFKC.String(text)
	if text == "" {
		return nil
	}
	symbols := []rune(string(separator) + strings.ReplaceAll(text, " ", string(separator)))
	n := len(symbols)
	// best[j] is the best score of a split of symbols[:j], words[j] the id
	// of its last piece. The reference takes, for each end, the matches
	// by ascending start; going forward by start offers them to each end
	// in that same order, and best[i] is final when start i is reached.
	best := make([]float64, n+1)
	words := make([]int, n+1)
	offer := func(end, id int, score float64) {
		if best[end] == 0 || score >= best[end] {
			best[end], words[end] = score, id
		}
	}
	for i := range n {
		found := false
		node := e.trie.child(0, symbols[i])
		for j := i; j < n && node >= 0; j++ {
			if id := int(e.trie.ids[node]); id >= 0 {
				offer(j+1, id, e.pieces[id].score+best[i])
				found = true
			}
			if j+1 < n {
				node = e.trie.child(node, symbols[j+1])
			}
		}
		if !found {
			offer(i+1, 0, best[i]) // unknown, score 0
		}
	}
	var ids []int
	for at := n; at > 0; {
		id := words[at]
		ids = append(ids, id)
		at -= e.pieces[id].units
	}
	// Reverse, dropping an unknown piece that follows another.
	out := make([]int, 0, len(ids))
	for i := len(ids) - 1; i >= 0; i-- {
		if ids[i] == 0 && i+1 < len(ids) && ids[i+1] == 0 {
			continue
		}
		out = append(out, ids[i])
	}
	return out
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
