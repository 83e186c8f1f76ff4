package recall

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/shrimp-harness/shrimp/backend/lexicon"
	"github.com/shrimp-harness/shrimp/backend/spell"
)

// Word is one content word of a text, as the features compare it.
type Word struct {
	Text   string  // lower case, as written (or as corrected)
	Stem   string  // Snowball English stem
	Lex    int32   // lexicon ID, -1 when unknown
	Weight float64 // how much the word says: rarer words say more
}

// Text is an analysed text: its content words, in order, their weighted
// mean word vector (unit length; nil without the lexicon), and the text
// as the sentence encoder reads it.
type Text struct {
	Words []Word
	Bag   []float32
	// Corrected is every token (stop words too) in lower case, misspelt
	// ones replaced, joined by spaces.
	Corrected string
	// Typed is every token in lower case as written, joined by spaces:
	// what a word-for-word repeat is known by whatever the corrections
	// (which depend on the store's words when it was read, and turn
	// another language's words into English ones: "fais" into "fans").
	Typed string
}

var (
	analysisOnce sync.Once
	stopWords    analysis.TokenMap
	stemmer      analysis.TokenFilter
)

func tools() {
	analysisOnce.Do(func() {
		cache := registry.NewCache()
		m, err := cache.TokenMapNamed(en.StopName)
		if err != nil {
			panic("recall: bleve's english stop words: " + err.Error())
		}
		stopWords = m
		stemmer = en.NewEnglishStemmerFilter()
	})
}

// lex is the word lexicon: frequencies (its order) and meanings.
var lex = lexicon.Default

// Stem returns the Snowball English stem of a lower-case word.
func Stem(w string) string {
	tools()
	out := stemmer.Filter(analysis.TokenStream{{Term: []byte(w)}})
	return string(out[0].Term)
}

// IsStop reports whether w is one of Bleve's English stop words.
func IsStop(w string) bool {
	tools()
	_, ok := stopWords[w]
	return ok
}

// tokens splits text into lower-case words: letters and digits, with an
// apostrophe's possessive or contraction dropped ("mum's" → "mum").
func tokens(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	}) {
		f = strings.Trim(f, "'’")
		if i := strings.IndexAny(f, "'’"); i > 0 {
			f = f[:i]
		}
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// weight is how much a word says, from its rank in the lexicon (ordered by
// frequency): by Zipf's law a word's frequency falls as 1/rank, so its
// inverse document frequency grows as log(rank). A word the lexicon does not
// know is taken as rare.
func weight(id int32) float64 {
	rank := float64(lexiconSize)
	if id >= 0 {
		rank = float64(id)
	}
	return math.Log(1 + rank/weightScale)
}

const (
	weightScale = 100
	lexiconSize = 100000
)

// Analyse returns the content words of text and its corrected form, each
// misspelt word corrected when the speller knows a likely intended word
// (sp and hint may be nil; see spell.Speller.Correct).
func Analyse(text string, sp *spell.Speller, hint spell.Vocabulary) Text {
	var t Text
	l := lex()
	toks := tokens(text)
	corrected := make([]string, len(toks))
	for i, w := range toks {
		c := w
		if sp != nil {
			c = sp.Correct(w, hint)
		}
		corrected[i] = c
		if IsStop(w) || IsStop(c) {
			continue
		}
		id := int32(-1)
		if l != nil {
			id = l.Lookup(c)
		}
		t.Words = append(t.Words, Word{Text: c, Stem: Stem(c), Lex: id, Weight: weight(id)})
	}
	t.Corrected = strings.Join(corrected, " ")
	t.Typed = strings.Join(toks, " ")
	if l != nil {
		t.Bag = make([]float32, l.Dim())
		for _, w := range t.Words {
			l.AddVector(t.Bag, w.Lex, float32(w.Weight))
		}
		Normalise(t.Bag)
	}
	return t
}

// Normalise scales v to unit length in place (a zero vector stays zero).
func Normalise(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	k := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= k
	}
}

// FormOf returns the form features of a request: each distinct stop word
// it holds ("w:how"), its first two words when they are stop words
// ("1:how", "2:do"; "1:-" for a content word), and "?" when it asks. They
// say how a request is put, not what it is about.
func FormOf(text string) []string {
	ws := tokens(text)
	var out []string
	seen := map[string]bool{}
	for _, w := range ws {
		if IsStop(w) && !seen[w] {
			seen[w] = true
			out = append(out, "w:"+w)
		}
	}
	for i := range min(2, len(ws)) {
		w := ws[i]
		if !IsStop(w) {
			w = "-"
		}
		out = append(out, fmt.Sprintf("%d:%s", i+1, w))
	}
	if strings.Contains(text, "?") {
		out = append(out, "?")
	}
	return out
}
