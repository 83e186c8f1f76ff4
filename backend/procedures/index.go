package procedures

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/shrimp-harness/shrimp/backend/lexicon"
	"github.com/shrimp-harness/shrimp/backend/recall"
)

// maxSearchTerms caps the words of one index search, by kind (the
// request's own words, corrections of its slips, words close in meaning).
const maxSearchTerms = 4

// mappingVersion changes whenever the document or the mapping changes; an
// index of another version is rebuilt from SQLite. 17: the trigger
// variants as recall reads them (slips corrected), Bleve's English
// analyser, no synonym groups or trigrams.
const mappingVersion = "17"

var (
	keyVersion   = []byte("shrimp.mapping_version")
	keyWatermark = []byte("shrimp.watermark")
)

// indexRuntime is the store's run-time configuration, made anew for each
// open: Bleve writes the store's path into the map it is given, and a
// shared map sent every later open in the process to the first index's
// folder (a second data folder read the first one's index, and a removed
// folder was made again). A batch returns once searchable, not once on
// disk: one lost to a crash leaves an older watermark, and Open indexes it
// again (catchUp).
func indexRuntime() map[string]any { return map[string]any{"unsafe_batch": true} }

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
	idx, err := bleve.OpenUsing(path, indexRuntime())
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
	idx, err = bleve.NewUsing(path, indexMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, indexRuntime())
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
	idx, err := bleve.NewMemOnly(indexMapping())
	if err != nil {
		return nil, err
	}
	return &index{idx: idx}, nil
}

const (
	// flushWait bounds how long Close waits for what was indexed to
	// reach the disk.
	flushWait  = 5 * time.Second
	notFlushed = "procedure index: not all written out before closing; the next start indexes the last changes again from the store"
)

// Close closes the index, first waiting (at most flushWait) until what
// was indexed is on disk: a batch returns once searchable, and Bleve's
// Close drops what its persister had not written yet, so a command that
// learned and exited left the next Open to index its last procedures
// again, and a new index closed at once lost its version and was built
// again from the store.
func (ix *index) Close() error {
	var err error
	if ix.idx != nil {
		if ix.lock != nil {
			ix.flush()
		}
		err = ix.idx.Close()
	}
	if ix.lock != nil {
		_ = syscall.Flock(int(ix.lock.Fd()), syscall.LOCK_UN)
		ix.lock.Close()
	}
	return err
}

// flush waits until a batch, and so every batch before it, is on disk.
func (ix *index) flush() {
	persisted := make(chan error, 1)
	b := ix.idx.NewBatch()
	b.SetInternal(keyVersion, []byte(mappingVersion))
	b.SetPersistedCallback(func(err error) { persisted <- err })
	if err := ix.idx.Batch(b); err != nil {
		slog.Warn(notFlushed, "path", ix.path, "err", err)
		return
	}
	select {
	case err := <-persisted:
		if err != nil {
			slog.Warn(notFlushed, "path", ix.path, "err", err)
		}
	case <-time.After(flushWait):
		slog.Warn(notFlushed, "path", ix.path, "waited", flushWait)
	}
}

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
