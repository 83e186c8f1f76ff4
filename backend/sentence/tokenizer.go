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
		node := e.trie.next[symbols[i]]
		for j := i; j < n && node != nil; j++ {
			if node.id >= 0 {
				offer(j+1, node.id, e.pieces[node.id].score+best[i])
				found = true
			}
			if j+1 < n {
				node = node.next[symbols[j+1]]
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
