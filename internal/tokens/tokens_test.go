package tokens

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestWeights(t *testing.T) {
	for i, w := range weights {
		if w < 0 || w > 4 {
			t.Errorf("%s weighs %v tokens", Names[i], w)
		}
	}
}

// TestCount: what the estimate gives for texts of each kind, against the
// counts cl100k_base gives them (in the comments); the fit's own table is
// in docs/BENCHMARKS.md.
func TestCount(t *testing.T) {
	b := make([]byte, 3000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	tests := []struct {
		name     string
		text     string
		min, max int
	}{
		{"empty", "", 0, 0},
		{"a word", "hello", 1, 3},
		{"a sentence", "The quick brown fox jumps over the lazy dog.", 10, 16},                 // 10
		{"base64", base64.StdEncoding.EncodeToString(b), 2700, 3600},                           // 4,000 bytes: about 2,900 (bytes/4 said 1,000)
		{"Chinese", strings.Repeat("我们今天去公园散步。", 40), 380, 560},                                // 400 characters: about 430 (bytes/4 said 300)
		{"JSON", strings.Repeat(`{"id": 12, "ok": true, "tags": ["a", "b"]}, `, 20), 380, 620}, // about 440 (bytes/4 said 225)
	}
	for _, tt := range tests {
		if n := Count(tt.text); n < tt.min || n > tt.max {
			t.Errorf("%s: %d tokens, want %d to %d", tt.name, n, tt.min, tt.max)
		}
	}
}

// TestCountAdds: the estimate of two texts together is within a token of
// the sum of theirs, and never below either (a prompt grows with its
// messages).
func TestCountAdds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	parts := []string{"word ", "Ünïcode ", "日本語", "42", "\n", "{\"a\":1}", "aB3xZ9", "😀", "Привет ", "مرحبا"}
	gen := func() string {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		return b.String()
	}
	for range 2000 {
		a, b := gen(), gen()
		ab, na, nb := Count(a+b), Count(a), Count(b)
		if ab < max(na, nb) || ab > na+nb+2 {
			t.Fatalf("%q + %q: %d, apart %d and %d", a, b, ab, na, nb)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	text := strings.Repeat("func main() { fmt.Println(\"hello, world\") } // 日本語\n", 20000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Count(text)
	}
}

// TestAddAtLineEnds: features of texts joined after a line break add up.
func TestAddAtLineEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	parts := []string{"word", "Ünïcode", "日本語", "42", "{\"a\":1}", "aB3xZ9", "😀", " ", "Привет"}
	gen := func() string {
		var b strings.Builder
		for range r.IntN(20) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		return b.String() + "\n"
	}
	for range 2000 {
		a, b := gen(), gen()
		if Of(a).Add(Of(b)) != Of(a+b) {
			t.Fatalf("%q + %q: %v + %v != %v", a, b, Of(a), Of(b), Of(a+b))
		}
	}
}
