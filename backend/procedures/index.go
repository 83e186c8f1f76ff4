package procedures

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/shrimp-harness/shrimp/backend/lexicon"
	"github.com/shrimp-harness/shrimp/backend/recall"
	"github.com/shrimp-harness/shrimp/internal/bleveindex"
)

// maxSearchTerms caps the words of one index search, by kind (the
// request's own words, corrections of its slips, words close in meaning).
const maxSearchTerms = 4

// mappingVersion changes whenever the document or the mapping changes; an
// index of another version is rebuilt from SQLite. 17: the trigger
// variants as recall reads them (slips corrected), Bleve's English
// analyser, no synonym groups or trigrams.
const mappingVersion = "17"

var keyWatermark = []byte("shrimp.watermark")

// doc is what the index holds for one procedure. Everything in it can be
// rebuilt from the store.
type doc struct {
	Text   string   `json:"text"`   // all trigger variants, slips corrected
	Tools  []string `json:"tools"`  // tool names
	Active bool     `json:"active"` // not forgotten
}

func newDoc(p *Procedure) doc {
	return doc{Text: strings.Join(p.keys, " . "), Tools: p.Tools, Active: p.Recallable()}
}

func indexMapping() mapping.IndexMapping {
	m := bleve.NewIndexMapping()
	dm := bleve.NewDocumentStaticMapping()
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store, text.IncludeTermVectors, text.IncludeInAll = false, false, false
	kw := bleve.NewTextFieldMapping()
	kw.Analyzer = keyword.Name
	kw.Store, kw.IncludeTermVectors, kw.IncludeInAll = false, false, false
	active := bleve.NewBooleanFieldMapping()
	active.Store, active.IncludeInAll = false, false
	dm.AddFieldMappingsAt("text", text)
	dm.AddFieldMappingsAt("tools", kw)
	dm.AddFieldMappingsAt("active", active)
	m.DefaultMapping = dm
	m.DefaultAnalyzer = en.AnalyzerName
	return m
}

// index is the Bleve index of procedures, on disk in the data dir (a
// *bleveindex.Index, owned by one process) or in memory (path "").
type index struct {
	path string
	idx  bleve.Index
}

// ErrLocked means another process owns the procedure index.
var ErrLocked = errors.New("procedure memory is in use by another Shrimp process")

// openIndex opens the index at path, creating it when missing and
// recreating it when it is corrupt or of another mapping version; rebuilt
// reports whether the caller must fill it from the store.
func openIndex(path string) (ix *index, rebuilt bool, err error) {
	idx, rebuilt, err := bleveindex.Open(path, mappingVersion, indexMapping)
	if errors.Is(err, bleveindex.ErrLocked) {
		return nil, false, fmt.Errorf("%w (%s is locked): close the other Shrimp window or command, or use another --data-dir", ErrLocked, path)
	}
	if err != nil {
		return nil, false, err
	}
	return &index{path: path, idx: idx}, rebuilt, nil
}

// openMemIndex returns an in-memory index (evaluation, tests).
func openMemIndex() (*index, error) {
	idx, err := bleve.NewMemOnly(indexMapping())
	if err != nil {
		return nil, err
	}
	return &index{idx: idx}, nil
}

// Close closes the index; one on disk first waits for what was indexed
// to reach it (bleveindex), so the next Open need not index it again.
func (ix *index) Close() error { return ix.idx.Close() }

// watermark is the highest procedure change (Seq) the index has applied.
func (ix *index) watermark() int64 {
	v, _ := ix.idx.GetInternal(keyWatermark)
	n, _ := strconv.ParseInt(string(v), 10, 64) // 0 when missing
	return n
}

// put indexes procedures and advances the watermark in one batch.
func (ix *index) put(ps []*Procedure, watermark int64) error {
	b := ix.idx.NewBatch()
	for _, p := range ps {
		if err := b.Index(p.ID, newDoc(p)); err != nil {
			return fmt.Errorf("index procedure %s: %w", p.ID, err)
		}
	}
	if watermark > 0 {
		b.SetInternal(keyWatermark, []byte(strconv.FormatInt(watermark, 10)))
	}
	if err := ix.idx.Batch(b); err != nil {
		return fmt.Errorf("index %d procedures: %w", len(ps), err)
	}
	return nil
}

// putAll indexes procedures ordered by Seq in batches of 1,000, advancing
// the watermark with each batch.
func (ix *index) putAll(ps []*Procedure) error {
	for len(ps) > 0 {
		n := min(len(ps), 1000)
		if err := ix.put(ps[:n], ps[n-1].Seq); err != nil {
			return err
		}
		ps = ps[n:]
	}
	return nil
}

// search returns up to n procedures (of any status) whose triggers share
// words with the request: its rarest words the store knows, likely
// corrections of words it does not (fuzzy terms), and words close in
// meaning (the lexicon's neighbours). df counts the triggers that hold a
// stem; words in more than one trigger in 50 are this store's stop words
// for searching, when the request has rarer ones (searching them walks a
// large share of the index and barely changes the candidates: ranking
// still weighs every word).
func (ix *index) search(q recall.Text, df func(stem string) int, total, n int) ([]string, error) {
	common := max(50, total/50)
	rare := slices.Clone(q.Words)
	slices.SortStableFunc(rare, func(a, b recall.Word) int { return df(a.Stem) - df(b.Stem) })
	var should []query.Query
	var plain, fuzzy, near int
	seen := map[string]bool{}
	term := func(stem string, boost float64) {
		seen[stem] = true
		tq := bleve.NewTermQuery(stem)
		tq.SetField("text")
		tq.SetBoost(boost)
		should = append(should, tq)
	}
	for _, w := range rare {
		switch d := df(w.Stem); {
		case seen[w.Stem]:
		case d > 0 && plain < maxSearchTerms && (d <= common || plain == 0):
			plain++
			term(w.Stem, 3)
		// No misspelt word is over 32 bytes, and Bleve fails a search whose fuzzy
		// automaton passes 10,000 states (a run of 20,000 letters did).
		case d == 0 && len(w.Stem) >= 4 && len(w.Stem) <= 32 && fuzzy < maxSearchTerms:
			fuzzy++
			fq := bleve.NewFuzzyQuery(w.Stem)
			fq.SetField("text")
			fq.SetFuzziness(min(2, len(w.Stem)/4))
			should = append(should, fq)
		}
	}
	l := lexicon.Default()
	for _, w := range rare {
		if l == nil || w.Lex < 0 || near >= maxSearchTerms {
			break
		}
		for _, nb := range l.Neighbors(w.Text) {
			if nb.Sim < nearSim || near >= maxSearchTerms {
				break
			}
			st := recall.Stem(nb.Word)
			if d := df(st); d > 0 && d <= common && !seen[st] {
				near++
				term(st, 1)
			}
		}
	}
	if len(should) == 0 {
		return nil, nil
	}
	bq := bleve.NewBooleanQuery()
	bq.AddShould(should...)
	bq.SetMinShould(1)
	return ix.ids(bq, n)
}

// nearSim is the least lexicon cosine for a word to be searched for
// another: above it GloVe's neighbours are mostly the same thing in other
// words (thesis/dissertation, luggage/suitcase).
const nearSim = 0.55

// ids runs a search and returns the hits' ids, best first.
func (ix *index) ids(qr query.Query, n int) ([]string, error) {
	res, err := ix.idx.Search(bleve.NewSearchRequestOptions(qr, n, 0, false))
	if err != nil {
		return nil, fmt.Errorf("search procedures: %w", err)
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids, nil
}
