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

// trie finds every vocabulary piece that starts a string.
type trie struct {
	next map[rune]*trie
	id   int // piece id ending here, or -1
}

func newTrie(pieces []piece) *trie {
	root := &trie{id: -1}
	for id := reserved; id < len(pieces); id++ {
		n := root
		for _, r := range pieces[id].text {
			c := n.next[r]
			if c == nil {
				if n.next == nil {
					n.next = map[rune]*trie{}
				}
				c = &trie{id: -1}
				n.next[r] = c
			}
			n = c
		}
		n.id = id
	}
	return root
}

// match is a piece found ending at some position: its id and score.
type match struct {
	id    int
	score float64
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
	// ends[j] lists the matches ending at j, by start then length.
	ends := make([][]match, n+1)
	starts := make([][]int, n+1) // start of each entry in ends[j], parallel
	for i := range n {
		found := false
		node := e.trie.next[symbols[i]]
		for j := i; j < n && node != nil; j++ {
			if node.id >= 0 {
				p := e.pieces[node.id]
				ends[j+1] = append(ends[j+1], match{node.id, p.score})
				starts[j+1] = append(starts[j+1], i)
				found = true
			}
			if j+1 < n {
				node = node.next[symbols[j+1]]
			}
		}
		if !found {
			ends[i+1] = append(ends[i+1], match{0, 0})
			starts[i+1] = append(starts[i+1], i)
		}
	}
	best := make([]float64, n+1)
	words := make([]int, n+1)
	for end := 0; end <= n; end++ {
		// The reference walks starts in ascending order; entries were
		// appended by ascending start already.
		for k, m := range ends[end] {
			score := m.score + best[starts[end][k]]
			if best[end] == 0 || score >= best[end] {
				best[end] = score
				words[end] = m.id
			}
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
