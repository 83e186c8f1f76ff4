package recall

import (
	"math"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/spell"
)

func TestAnalyse(t *testing.T) {
	text := Analyse("Back up my mum's THESIS folder to the USB stick", nil, nil)
	var got []string
	for _, w := range text.Words {
		got = append(got, w.Text+"/"+w.Stem)
		if w.Weight <= 0 {
			t.Errorf("%q has weight %v, want > 0", w.Text, w.Weight)
		}
	}
	if want := "back/back mum/mum thesis/thesi folder/folder usb/usb stick/stick"; strings.Join(got, " ") != want {
		t.Errorf("words %q, want %q", strings.Join(got, " "), want)
	}
	// Rarer words say more.
	w := map[string]float64{}
	for _, x := range text.Words {
		w[x.Text] = x.Weight
	}
	if w["thesis"] <= w["back"] {
		t.Errorf("thesis weighs %.2f, back %.2f: the rarer word should weigh more", w["thesis"], w["back"])
	}
	if got := Analyse("chekc the batery", spell.Default(), nil).Corrected; got != "check the battery" {
		t.Errorf("Corrected = %q", got)
	}
}

func TestWordFeatures(t *testing.T) {
	trigger := Analyse("check the battery health of my laptop", nil, nil)
	for _, tc := range []struct {
		request       string
		minCover      float64
		maxCover      float64
		wantSoftAbove bool // soft coverage above exact coverage
	}{
		{"check the battery health of my laptop", 1, 1, false},
		{"laptop battery health check please", 1, 1, false},
		{"how healthy is my notebook's battery", 0.1, 0.5, true},
		{"write a poem about the sea", 0, 0, false},
	} {
		f := wordFeatures(Analyse(tc.request, nil, nil), trigger)
		if f.Cover < tc.minCover-1e-9 || f.Cover > tc.maxCover+1e-9 {
			t.Errorf("%q: cover %.3f, want in [%.2f, %.2f]", tc.request, f.Cover, tc.minCover, tc.maxCover)
		}
		if f.Soft < f.Cover-1e-9 || f.Soft > 1+1e-9 || f.Explain < 0 || f.Explain > 1+1e-9 {
			t.Errorf("%q: soft %.3f, explain %.3f out of range (cover %.3f)", tc.request, f.Soft, f.Explain, f.Cover)
		}
		if tc.wantSoftAbove && f.Soft <= f.Cover {
			t.Errorf("%q: soft %.3f not above cover %.3f: no credit for words close in meaning", tc.request, f.Soft, f.Cover)
		}
	}
}

// Word features prepared ahead of the sentence vector rank a candidate
// exactly as computing them in Compute does, with and without the vector;
// prepared for other variants than it has, they are computed again.
func TestPreparedWordsRankTheSame(t *testing.T) {
	m := Default()
	variants := []Text{Analyse("check the battery health of my laptop", nil, nil), Analyse("battery health", nil, nil)}
	vec := make([]float32, intentDim)
	vec[0], vec[1] = 0.6, 0.8
	v8 := make([]int8, intentDim)
	v8[0], v8[1] = 127, 0
	for _, tc := range []struct {
		name  string
		query Query
	}{
		{"words only", Query{Text: Analyse("how healthy is my notebook's battery", nil, nil)}},
		{"with the vector", Query{Text: Analyse("how healthy is my notebook's battery", nil, nil), Vector: vec}},
		{"nothing in common", Query{Text: Analyse("write a poem about the sea", nil, nil), Vector: vec}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := Candidate{ID: "p", Variants: variants, Vectors: [][]int8{v8, nil}, Recallable: true}
			prepared := plain
			prepared.PrepareWords(tc.query.Text)
			f1, s1 := m.Compute(tc.query, plain)
			f2, s2 := m.Compute(tc.query, prepared)
			if f1 != f2 || s1 != s2 {
				t.Errorf("computed %+v (%.4f), prepared %+v (%.4f)", f1, s1, f2, s2)
			}
			stale := prepared
			stale.Words = stale.Words[:1] // prepared for fewer variants
			if f3, _ := m.Compute(tc.query, stale); f3 != f1 {
				t.Errorf("with words for one variant of two: %+v, want %+v", f3, f1)
			}
		})
	}
}

func TestCosineOfQuantised(t *testing.T) {
	v := make([]float32, 8)
	v[0], v[1] = 0.6, 0.8
	q := func(x []float32) []int8 {
		out := make([]int8, len(x))
		for i, f := range x {
			out[i] = int8(math.Round(float64(f) * 127))
		}
		return out
	}
	w := []float32{0.8, 0.6, 0, 0, 0, 0, 0, 0}
	for _, tc := range []struct {
		a, b []float32
		want float64
	}{{v, v, 1}, {v, w, 0.96}, {v, make([]float32, 8), 0}} {
		if got := Cosine(tc.a, q(tc.b)); math.Abs(got-tc.want) > 0.01 {
			t.Errorf("cosine = %.3f, want %.2f", got, tc.want)
		}
	}
}

func TestParseModel(t *testing.T) {
	if _, err := ParseModel(modelJSON); err != nil {
		t.Fatalf("the shipped model: %v", err)
	}
	for _, bad := range []string{
		`not json`,
		`{"rank_full":[1],"rank_words":[1],"accept_full":[1],"accept_words":[1],"threshold":0.5,"threshold_words":0.5}`,
		`{"rank_full":[0,0,0,0,0,0],"rank_words":[0,0,0,0,0],"accept_full":[0,0,0,0,0,0,0,0],"accept_words":[0,0,0,0,0,0],"merge_words":[0,0,0,0,0,0],"work_full":[0,0,0],"work_words":[0,0],"threshold":1.5,"threshold_words":0.5}`,
		`{"rank_full":[0,0,0,0,0,0],"rank_words":[0,0,0,0,0],"accept_full":[0,0,0,0,0,0,0,0],"accept_words":[0,0,0,0,0,0],"merge_words":[0,0,0,0,0,0],"work_full":[0,0,0],"work_words":[0,0],"threshold":0.5,"threshold_words":0.5,"intent":[1,2]}`,
		`{"rank_full":[0,0,0,0,0,0],"rank_words":[0,0,0,0,0],"accept_full":[0,0,0,0,0,0,0,0],"accept_words":[0,0,0,0,0,0],"merge_words":[0,0,0,0,0,0],"work_full":[0,0],"work_words":[0,0],"threshold":0.5,"threshold_words":0.5}`,
	} {
		if _, err := ParseModel([]byte(bad)); err == nil {
			t.Errorf("ParseModel(%.40s…) accepted a bad model", bad)
		}
	}
}

// toyModel ranks by Cover alone and accepts a best candidate whose Cover
// is above one half, margin aside, for a request of any form that has no
// "w:what" (a question, to the toy's form classifier).
func toyModel() *Model {
	return &Model{
		RankFull: []float64{0, 10, 0, 0, 0, 0}, RankWords: []float64{0, 10, 0, 0, 0},
		AcceptFull: []float64{-5, 10, 0, 0, 0, 0, 0, 0}, AcceptWords: []float64{-5, 10, 0, 0, 0, 0},
		WorkFull: []float64{0, 0, 1}, WorkWords: []float64{0, 1},
		Form:      map[string]float64{"": 10, "w:what": -20},
		Threshold: 0.5, ThresholdWords: 0.5, Spread: 2,
	}
}

func TestDecide(t *testing.T) {
	m := toyModel()
	r := func(id string, cover float64, ok bool) Ranked {
		return Ranked{ID: id, Features: Features{Cover: cover}, Recallable: ok}
	}
	for _, tc := range []struct {
		name  string
		cands []Ranked
		want  string
	}{
		{"accepted", []Ranked{r("a", 0.9, true), r("b", 0.2, true)}, "a"},
		{"close second offered too", []Ranked{r("a", 0.9, true), r("b", 0.8, true), r("c", 0.1, true)}, "a b"},
		{"below the threshold", []Ranked{r("a", 0.3, true)}, ""},
		{"a forgotten one is the request's", []Ranked{r("f", 0.95, false), r("a", 0.9, true)}, ""},
		{"a forgotten one, unsure", []Ranked{r("f", 0.4, false), r("a", 0.9, true)}, "a"},
		{"nothing recallable", []Ranked{r("f", 0.9, false)}, ""},
		{"nothing", nil, ""},
	} {
		for i := range tc.cands {
			tc.cands[i].Score = m.rankScore(tc.cands[i].Features, false)
		}
		sortRanked(tc.cands)
		var got []string
		for _, h := range m.Decide(Query{}, tc.cands, false, 5) {
			got = append(got, h.ID)
			if h.Probability <= 0 || h.Probability > 1 {
				t.Errorf("%s: %s has probability %v", tc.name, h.ID, h.Probability)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, strings.Join(got, " "), tc.want)
		}
	}
	if got := m.Decide(Query{}, []Ranked{r("a", 0.9, true)}, false, 0); got != nil {
		t.Errorf("limit 0: got %v", got)
	}
	// The same best candidate, for a request put as a question: the work
	// model turns it down.
	best := []Ranked{r("a", 0.9, true)}
	best[0].Score = m.rankScore(best[0].Features, false)
	if got := m.Decide(Query{Form: FormOf("what is a pdf")}, best, false, 5); got != nil {
		t.Errorf("a question: got %v", got)
	}
}

func TestFormOf(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"How do I convert a PDF?", "w:how w:do w:i w:a 1:how 2:do ?"},
		{"convert the pdf to word", "w:the w:to 1:- 2:the"},
		{"", ""},
	} {
		if got := strings.Join(FormOf(tc.text), " "); got != tc.want {
			t.Errorf("FormOf(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// FuzzReadRequest: any text analyses into lower-case content words, and a
// text matches itself fully.
func FuzzReadRequest(f *testing.F) {
	for _, s := range []string{
		"set up two-factor authentication on my e-mail account",
		"what is a robot vacuum?", "every third day at 8am", "log -- in, out of office",
		"Back up my phone photos to the external drive and delete the duplicates",
		"ünïcödé — naïve café’s to-do list", "", "2 2 2 2 two two", "'''", "a-b-c-d", "chekc teh batery",
	} {
		f.Add(s)
	}
	sp := spell.Default()
	f.Fuzz(func(t *testing.T, s string) {
		text := Analyse(s, sp, nil)
		for _, w := range text.Words {
			if w.Text == "" || w.Text != strings.ToLower(w.Text) || IsStop(w.Text) || w.Weight <= 0 {
				t.Fatalf("Analyse(%q) gave %+v", s, w)
			}
		}
		if got, want := len(strings.Fields(text.Corrected)), len(tokens(s)); got != want {
			t.Fatalf("Analyse(%q).Corrected = %q: %d tokens, want %d", s, text.Corrected, got, want)
		}
		if len(text.Words) == 0 {
			return
		}
		f := wordFeatures(text, text)
		if f.Cover < 1-1e-9 || f.Soft < 1-1e-9 || f.Explain < 1-1e-9 {
			t.Fatalf("%q matches itself at %+v, want 1", s, f)
		}
	})
}
