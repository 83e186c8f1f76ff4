package lexicon

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestDefaultSimilarity(t *testing.T) {
	l := Default()
	if l.Len() < 50000 {
		t.Fatalf("lexicon has %d words, want the shipped 100,000", l.Len())
	}
	// Words that mean the same thing must be closer than words that do not.
	for _, tc := range []struct{ a, b, unrelated string }{
		{"dissertation", "thesis", "banana"},
		{"luggage", "suitcase", "algebra"},
		{"vehicle", "car", "poem"},
		{"processor", "cpu", "holiday"},
		{"vacation", "holiday", "compiler"},
	} {
		near, far := l.Similarity(tc.a, tc.b), l.Similarity(tc.a, tc.unrelated)
		if near < 0.55 || far >= near {
			t.Errorf("%s: %s=%.2f, %s=%.2f; want the first ≥ 0.55 and above the second", tc.a, tc.b, near, tc.unrelated, far)
		}
	}
	if s := l.Similarity("thesis", "thesis"); s != 1 {
		t.Errorf("a word with itself = %v, want 1", s)
	}
	if s := l.Similarity("thesis", "qzxqzxq"); s != 0 {
		t.Errorf("unknown word = %v, want 0", s)
	}
	if l.Neighbors("qzxqzxq") != nil || l.Has("qzxqzxq") || !l.Has("thesis") {
		t.Error("unknown words must have no neighbours")
	}
}

func TestNeighborsBestFirst(t *testing.T) {
	nb := Default().Neighbors("suitcase")
	if len(nb) == 0 {
		t.Fatal("suitcase has no neighbours")
	}
	found := false
	for i, n := range nb {
		if i > 0 && n.Sim > nb[i-1].Sim+1e-6 {
			t.Errorf("neighbours not best first: %v", nb)
		}
		found = found || n.Word == "luggage"
	}
	if !found {
		t.Errorf("luggage not among suitcase's neighbours: %v", nb)
	}
}

// file builds a lexicon file by hand.
func file(magicStr string, n, dim, k uint32, words string, vecs []int8, nb []uint32) []byte {
	var raw bytes.Buffer
	raw.WriteString(magicStr)
	for _, v := range []uint32{n, dim, k, uint32(len(words))} {
		_ = binary.Write(&raw, binary.LittleEndian, v)
	}
	raw.WriteString(words)
	_ = binary.Write(&raw, binary.LittleEndian, vecs)
	_ = binary.Write(&raw, binary.LittleEndian, nb)
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	_, _ = w.Write(raw.Bytes())
	_ = w.Close()
	return z.Bytes()
}

func TestLoad(t *testing.T) {
	good := file(magic, 2, 2, 1, "up\ndown", []int8{127, 0, 90, 90}, []uint32{1, none})
	l, err := Load(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if s := l.Similarity("up", "down"); s < 0.70 || s > 0.71 {
		t.Errorf("cos(45°) = %v", s)
	}
	if nb := l.Neighbors("up"); len(nb) != 1 || nb[0].Word != "down" || len(l.Neighbors("down")) != 0 {
		t.Errorf("neighbours: %v / %v", nb, l.Neighbors("down"))
	}

	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"not gzip":      {[]byte("plain text"), "read lexicon"},
		"wrong magic":   {file("SOMETHING\n", 2, 2, 1, "up\ndown", []int8{1, 0, 0, 1}, []uint32{1, 0}), "not a Shrimp word-vector file"},
		"word count":    {file(magic, 3, 2, 1, "up\ndown", []int8{1, 0, 0, 1, 1, 1}, []uint32{1, 0, 0}), "header says 3"},
		"truncated":     {file(magic, 2, 2, 1, "up\ndown", []int8{1, 0}, nil), "vectors"},
		"bad neighbour": {file(magic, 2, 2, 1, "up\ndown", []int8{1, 0, 0, 1}, []uint32{7, 0}), "out of range"},
		"absurd sizes":  {file(magic, 1<<30, 2, 1, "", nil, nil), "implausible"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(bytes.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func BenchmarkSimilarity(b *testing.B) {
	l := Default()
	for b.Loop() {
		l.Similarity("dissertation", "thesis")
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(bytes.NewReader(embedded)); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLookupFallbacks(t *testing.T) {
	l := Default()
	for _, tc := range []struct{ word, as string }{
		{"thesis", "thesis"},
		{"summarise", "summarize"},  // British spelling
		{"favourited", "favourite"}, // inflected; the British form is known
		{"bookmarked", "bookmark"},  // inflected
		{"logins", "login"},         // plural
		{"maxing", "max"},           // doubled consonant
		{"centre", "centre"},        // known as written: no fallback
		{"copied", "copied"},
	} {
		if got, want := l.Lookup(tc.word), l.ID(tc.as); want < 0 || got != want {
			t.Errorf("Lookup(%q) = %d, want the ID of %q (%d)", tc.word, got, tc.as, want)
		}
	}
	if id := l.Lookup("qzxqzxqing"); id != -1 {
		t.Errorf("an unknown word with an -ing ending found %q", l.Word(int(id)))
	}
}

// TestWordTable: every word of the embedded lexicon is found under its own
// ID (or its first copy's), IDs turn back into the words, and unknown
// words, out-of-range IDs and a lexicon that failed to load give none.
func TestWordTable(t *testing.T) {
	l := Default()
	if l.Len() < 1000 {
		t.Fatalf("embedded lexicon has %d words", l.Len())
	}
	for i := range l.Len() {
		w := l.Word(i)
		id := l.ID(w)
		if id < 0 || l.Word(int(id)) != w || int(id) > i {
			t.Fatalf("word %d %q: ID %d (%q)", i, w, id, l.Word(int(id)))
		}
	}
	dup := file(magic, 3, 2, 1, "up\ndown\nup", []int8{127, 0, 90, 90, 0, 127}, []uint32{1, none, none})
	d, err := Load(bytes.NewReader(dup))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		word string
		id   int32
	}{{"up", 0}, {"down", 1}, {"sideways", -1}, {"", -1}, {"u", -1}, {"upx", -1}} {
		if got := d.ID(tc.word); got != tc.id || d.Has(tc.word) != (tc.id >= 0) {
			t.Errorf("ID(%q) = %d, Has %v; want %d", tc.word, got, d.Has(tc.word), tc.id)
		}
	}
	if d.Word(-1) != "" || d.Word(3) != "" || d.Word(2) != "up" {
		t.Errorf("Word(-1), Word(3), Word(2) = %q, %q, %q", d.Word(-1), d.Word(3), d.Word(2))
	}
	var empty Lexicon
	if empty.Len() != 0 || empty.ID("up") != -1 || empty.Neighbors("up") != nil || empty.Word(0) != "" {
		t.Error("an empty lexicon knows something")
	}
}

// TestDot holds the SIMD dot product to the plain loop, bit for bit, on
// lengths around its 16-byte steps and on the extremes of int8.
func TestDot(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	fill := func(n int, f func(int) int8) []int8 {
		v := make([]int8, n)
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	random := func(int) int8 { return int8(r.IntN(256) - 128) }
	for _, tc := range []struct {
		name string
		x, y []int8
	}{
		{"empty", nil, nil},
		{"one", []int8{-128}, []int8{-128}},
		{"fifteen", fill(15, random), fill(15, random)},
		{"sixteen", fill(16, random), fill(16, random)},
		{"seventeen", fill(17, random), fill(17, random)},
		{"lexicon's 100", fill(100, random), fill(100, random)},
		{"1024 of -128", fill(1024, func(int) int8 { return -128 }), fill(1024, func(int) int8 { return -128 })},
		{"1024 of -128 and 127", fill(1024, func(int) int8 { return -128 }), fill(1024, func(int) int8 { return 127 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want int32
			for i := range tc.x {
				want += int32(tc.x[i]) * int32(tc.y[i])
			}
			if got := dot(tc.x, tc.y); got != want {
				t.Fatalf("dot = %d, want %d (AVX2: %v)", got, want, hasAVX2)
			}
		})
	}
	if !hasAVX2 {
		t.Log("no AVX2 here: only the Go loop was tested")
	}
}

// BenchmarkSimilarityID is the inner step of ranking: two known words'
// cosine.
func BenchmarkSimilarityID(b *testing.B) {
	l := Default()
	i, j := l.ID("dissertation"), l.ID("thesis")
	for b.Loop() {
		l.SimilarityID(i, j)
	}
}
