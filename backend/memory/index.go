package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/ngram"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// maxSearchTerms caps the words of one index search.
const maxSearchTerms = 4

// mappingVersion changes whenever the document or the mapping changes; an
// index of another version is rebuilt from SQLite. The vocabulary is part
// of it, by digest: documents hold synonym group numbers, joined words,
// numerals and stems, so editing the groups, the joins, the number words,
// the irregular verbs or the stop words can never leave a stale index; the
// number before the digest changes with the rules of words() (7: joins
// across a hyphen and of three words; 8: number words and times as
// numerals; 9: a joined word may join again; 10: joins take a plural last
// word; 11: numbers in two words are one numeral; 12: a phrasal verb around
// its object pronoun, a number and its unit apart; 13: a slip in a common
// word beside a sure partner; 14: a slip in a three-word join; 15: two
// dimensions apart, "1200x400"; 16: a join's first word in its other
// forms).
var mappingVersion = func() string {
	h := sha256.New()
	h.Write([]byte(synonymGroups))
	for _, k := range slices.Sorted(maps.Keys(joins)) {
		fmt.Fprintf(h, "\n%s=%s", k, joins[k])
	}
	for _, k := range slices.Sorted(maps.Keys(numberWords)) {
		fmt.Fprintf(h, "\n%s#%s", k, numberWords[k])
	}
	h.Write([]byte(irregularVerbs))
	for _, w := range slices.Sorted(maps.Keys(stopWords)) {
		fmt.Fprintf(h, "\n-%s", w)
	}
	return "16." + hex.EncodeToString(h.Sum(nil)[:6])
}()

var (
	keyVersion   = []byte("shrimp.mapping_version")
	keyWatermark = []byte("shrimp.watermark")
)

// doc is what the index holds for one procedure. Everything in it can be
// rebuilt from the store.
type doc struct {
	Text   string   `json:"text"`   // all trigger variants (stemmed)
	Grams  string   `json:"grams"`  // the same, as character trigrams (typos)
	Syn    []string `json:"syn"`    // synonym group ids of the trigger words
	Tools  []string `json:"tools"`  // tool names
	Verbs  string   `json:"verbs"`  // the tool names' words ("calendar add"), a weak extra signal
	Active bool     `json:"active"` // not forgotten
}

// trigrams returns the character trigrams of a lower-case word, as the
// "grams" analyzer makes them.
func trigrams(w string) []string {
	r := []rune(w)
	var out []string
	for i := 0; i+3 <= len(r); i++ {
		out = append(out, string(r[i:i+3]))
	}
	return out
}

// gramKey is how a trigram is counted in the memory's vocabulary tally,
// apart from word stems.
func gramKey(g string) string { return "\x00" + g }

// groupKey is how a synonym group id is counted in the tally.
func groupKey(id string) string { return "\x01" + id }

func newDoc(p *Procedure) doc {
	// The triggers as recall reads them (phrasal verbs joined: "log in"
	// is "login"), so that the index's words are the request's words.
	variants := make([]string, len(p.Triggers))
	for i, t := range p.Triggers {
		variants[i] = strings.Join(words(t), " ")
	}
	text := strings.Join(variants, " . ")
	var syn []string
	seen := map[int]bool{}
	for _, t := range terms(text) {
		for _, g := range synonyms[t.stem] {
			if !seen[g] {
				seen[g] = true
				syn = append(syn, "g"+strconv.Itoa(g))
			}
		}
	}
	var verbs []string
	for _, t := range p.Tools {
		verbs = append(verbs, strings.FieldsFunc(t, func(r rune) bool { return r == '.' || r == '_' })...)
	}
	return doc{Text: text, Grams: text, Syn: syn, Tools: p.Tools, Verbs: strings.Join(verbs, " "), Active: p.recallable()}
}

func indexMapping() (mapping.IndexMapping, error) {
	m := bleve.NewIndexMapping()
	if err := m.AddCustomTokenFilter("tri", map[string]any{"type": ngram.Name, "min": 3.0, "max": 3.0}); err != nil {
		return nil, err
	}
	if err := m.AddCustomAnalyzer("grams", map[string]any{
		"type": custom.Name, "tokenizer": unicode.Name, "token_filters": []any{lowercase.Name, "tri"},
	}); err != nil {
		return nil, err
	}
	dm := bleve.NewDocumentStaticMapping()
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store, text.IncludeTermVectors, text.IncludeInAll = false, false, false
	grams := bleve.NewTextFieldMapping()
	grams.Analyzer = "grams"
	grams.Store, grams.IncludeTermVectors, grams.IncludeInAll = false, false, false
	kw := bleve.NewTextFieldMapping()
	kw.Analyzer = keyword.Name
	kw.Store, kw.IncludeTermVectors, kw.IncludeInAll = false, false, false
	syn := bleve.NewTextFieldMapping()
	syn.Analyzer = keyword.Name
	syn.Store, syn.IncludeTermVectors, syn.IncludeInAll = false, false, false
	active := bleve.NewBooleanFieldMapping()
	active.Store, active.IncludeInAll = false, false
	dm.AddFieldMappingsAt("text", text)
	dm.AddFieldMappingsAt("grams", grams)
	verbs := bleve.NewTextFieldMapping()
	verbs.Analyzer = en.AnalyzerName
	verbs.Store, verbs.IncludeTermVectors, verbs.IncludeInAll = false, false, false
	dm.AddFieldMappingsAt("verbs", verbs)
	dm.AddFieldMappingsAt("syn", syn)
	dm.AddFieldMappingsAt("tools", kw)
	dm.AddFieldMappingsAt("active", active)
	m.DefaultMapping = dm
	m.DefaultAnalyzer = en.AnalyzerName
	return m, nil
}

// index is the Bleve index of procedures, on disk in the data dir and
// owned by one process (a lock file next to it).
type index struct {
	path string
	idx  bleve.Index
	lock *os.File
}

// ErrLocked means another process owns the procedure index.
var ErrLocked = errors.New("procedure memory is in use by another Shrimp process")

// openIndex opens the index at path, creating it when missing and
// recreating it when it is corrupt or of another mapping version; rebuilt
// reports whether the caller must fill it from the store.
func openIndex(path string) (ix *index, rebuilt bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, err
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, false, fmt.Errorf("%w (%s is locked): close the other Shrimp window or command, or use another --data-dir", ErrLocked, path)
	}
	ix = &index{path: path, lock: lock}
	idx, err := bleve.Open(path)
	if err == nil {
		v, verr := idx.GetInternal(keyVersion)
		if verr == nil && string(v) == mappingVersion {
			ix.idx = idx
			return ix, false, nil
		}
		idx.Close()
	}
	// Missing, corrupt or of another version: start over; SQLite has it all.
	if err := os.RemoveAll(path); err != nil {
		ix.Close()
		return nil, false, fmt.Errorf("remove old index %s: %w", path, err)
	}
	m, err := indexMapping()
	if err != nil {
		ix.Close()
		return nil, false, err
	}
	idx, err = bleve.New(path, m)
	if err != nil {
		ix.Close()
		return nil, false, fmt.Errorf("create index %s: %w", path, err)
	}
	if err := idx.SetInternal(keyVersion, []byte(mappingVersion)); err != nil {
		idx.Close()
		ix.Close()
		return nil, false, err
	}
	ix.idx = idx
	return ix, true, nil
}

// openMemIndex returns an in-memory index (evaluation, tests).
func openMemIndex() (*index, error) {
	m, err := indexMapping()
	if err != nil {
		return nil, err
	}
	idx, err := bleve.NewMemOnly(m)
	if err != nil {
		return nil, err
	}
	return &index{idx: idx}, nil
}

func (ix *index) Close() error {
	var err error
	if ix.idx != nil {
		err = ix.idx.Close()
	}
	if ix.lock != nil {
		_ = syscall.Flock(int(ix.lock.Fd()), syscall.LOCK_UN)
		ix.lock.Close()
	}
	return err
}

// watermark is the highest procedure change (Seq) the index has applied.
func (ix *index) watermark() int64 {
	v, err := ix.idx.GetInternal(keyWatermark)
	if err != nil || len(v) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(string(v), 10, 64)
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

// forgotten returns up to n inactive procedures whose triggers share the
// query's rarer words.
func (ix *index) forgotten(q []term, df func(stem string) int, total, n int) ([]string, error) {
	var plain []string
	rare := slices.Clone(q)
	slices.SortStableFunc(rare, func(a, b term) int { return df(a.stem) - df(b.stem) })
	for _, t := range rare {
		if !t.generic && df(t.stem) > 0 && len(plain) < maxSearchTerms {
			plain = append(plain, t.word)
		}
	}
	if len(plain) == 0 {
		return nil, nil
	}
	mq := bleve.NewMatchQuery(strings.Join(plain, " "))
	mq.SetField("text")
	inactive := bleve.NewBoolFieldQuery(false)
	inactive.SetField("active")
	ids, err := ix.ids(bleve.NewConjunctionQuery(inactive, mq), n)
	if err != nil {
		return nil, fmt.Errorf("forgotten: %w", err)
	}
	return ids, nil
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

// appendMatch adds a match query for words on field, with boost, when
// there are words.
func appendMatch(should []query.Query, words []string, field string, boost float64) []query.Query {
	if len(words) == 0 {
		return should
	}
	mq := bleve.NewMatchQuery(strings.Join(words, " "))
	mq.SetField(field)
	mq.SetBoost(boost)
	return append(should, mq)
}

// candidates returns up to n ids whose triggers share words, synonyms or
// trigram-level spellings with the query, excluding inactive procedures and
// those naming one of the missing tools.
func (ix *index) candidates(q []term, df func(stem string) int, total int, missing []string, n int) ([]string, error) {
	should := ix.related(q, df, total)
	if len(should) == 0 {
		return nil, nil
	}
	// Exclusions are must-not clauses: they touch only the few inactive or
	// stale documents, where a must on "active" would walk all of them.
	inactive := bleve.NewBoolFieldQuery(false)
	inactive.SetField("active")
	bq := bleve.NewBooleanQuery()
	bq.AddMustNot(inactive)
	bq.AddShould(should...)
	bq.SetMinShould(1)
	for _, tool := range missing {
		tq := bleve.NewTermQuery(tool)
		tq.SetField("tools")
		bq.AddMustNot(tq)
	}
	return ix.ids(bq, n)
}

// unfiltered is candidates without the exclusions: forgotten and stale
// procedures too (for the rescue by meaning, which must not pick a
// sibling of the procedure a request is really about).
func (ix *index) unfiltered(q []term, df func(stem string) int, total int, n int) ([]string, error) {
	should := ix.related(q, df, total)
	if len(should) == 0 {
		return nil, nil
	}
	bq := bleve.NewBooleanQuery()
	bq.AddShould(should...)
	bq.SetMinShould(1)
	return ix.ids(bq, n)
}

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

// related returns the search clauses for triggers that share words,
// synonyms, related words or spellings with the query.
func (ix *index) related(q []term, df func(stem string) int, total int) []query.Query {
	known := func(stem string) bool { return df(stem) > 0 }
	// Words (and synonym groups and trigrams) in more than 1 trigger of 50
	// are this store's stop words for finding candidates, when the query
	// has rarer ones: searching them walks a large share of the index.
	common := max(50, total/50)
	var should []query.Query
	var plain, unknown, toolWords []string
	// The rarest words find a trigger best; frequent ones would make the
	// search walk most of the index and barely change the candidates (the
	// confidence still weighs every word).
	rare := slices.Clone(q)
	slices.SortStableFunc(rare, func(a, b term) int { return df(a.stem) - df(b.stem) })
	for _, t := range rare {
		if !t.generic && known(t.stem) && len(plain) < maxSearchTerms && (df(t.stem) <= common || len(plain) == 0) {
			plain = append(plain, t.word)
		}
		// Trigrams only for words no trigger contains: likely typos. Known
		// words are found through the stemmed field, and their trigram
		// postings would make every search walk most of the index.
		if !known(t.stem) && len([]rune(t.word)) >= 4 {
			unknown = append(unknown, t.word)
		}
		// The tool chain as an extra field, weakly, for the distinctive
		// words no trigger has: "calendar" in a request then points at
		// procedures that use calendar.* tools. Words a trigger has
		// already find their procedures, and tool words are in a large
		// share of documents, so searching them there too would walk
		// most of the index for nothing.
		if !t.generic && !known(t.stem) && len(toolWords) < maxSearchTerms {
			toolWords = append(toolWords, t.word)
		}
	}
	should = appendMatch(should, plain, "text", 3)
	should = appendMatch(should, toolWords, "verbs", 0.5)
	// The rarest trigrams of the unknown words, as term queries: common
	// ones ("ing", "the") are in most triggers.
	var grams []string
	for _, w := range unknown {
		for _, g := range trigrams(w) {
			if df(gramKey(g)) > 0 && !slices.Contains(grams, g) {
				grams = append(grams, g)
			}
		}
	}
	slices.SortStableFunc(grams, func(a, b string) int { return df(gramKey(a)) - df(gramKey(b)) })
	for i, g := range grams {
		if i == 3*maxSearchTerms || (df(gramKey(g)) > common && (i > 0 || len(plain) > 0)) {
			break
		}
		tq := bleve.NewTermQuery(g)
		tq.SetField("grams")
		should = append(should, tq)
	}
	// Words close in meaning, from the lexicon: the rarest few that some
	// trigger contains.
	type nearWord struct {
		word string
		df   int
	}
	var near []nearWord
	for _, t := range q {
		if t.lex < 0 {
			continue
		}
		for _, nb := range lex().Neighbors(t.word) {
			if float64(nb.Sim) < simNear {
				break
			}
			if n := df(stem(nb.Word)); n > 0 && n <= common && !slices.ContainsFunc(near, func(x nearWord) bool { return x.word == nb.Word }) && !slices.Contains(plain, nb.Word) {
				near = append(near, nearWord{nb.Word, n})
			}
		}
	}
	slices.SortStableFunc(near, func(a, b nearWord) int { return a.df - b.df })
	var nearWords []string
	for _, n := range near[:min(len(near), maxSearchTerms)] {
		nearWords = append(nearWords, n.word)
	}
	should = appendMatch(should, nearWords, "text", 1)
	// Synonym groups, rarest first and few: a group of common words is in
	// most triggers.
	var groups []string
	for _, t := range q {
		for _, g := range synonyms[t.stem] {
			id := "g" + strconv.Itoa(g)
			if df(groupKey(id)) > 0 && !slices.Contains(groups, id) {
				groups = append(groups, id)
			}
		}
	}
	slices.SortStableFunc(groups, func(a, b string) int { return df(groupKey(a)) - df(groupKey(b)) })
	for i, id := range groups {
		if i == maxSearchTerms || (df(groupKey(id)) > common && (i > 0 || len(plain) > 0)) {
			break
		}
		tq := bleve.NewTermQuery(id)
		tq.SetField("syn")
		should = append(should, tq)
	}
	return should
}
