// Package procedures is Shrimp's procedural memory. After a request that was
// answered with 3 or more tool calls, the learner writes down the request
// (the trigger) and the tool chain; before a later request, recall finds
// the procedures that handled similar requests and the agent hands them to
// the model as a hint.
//
// # Contract
//
//   - SQLite (the store's procedures table) is the source of truth. The
//     Bleve index is derived: rebuilt when missing, corrupt or of another
//     mapping version, and caught up after a crash from a watermark (the
//     highest change it applied). Recall checks every hit against the
//     store's current state, so a lagging index can miss, never contradict.
//   - One process owns the index; a second one gets [ErrLocked] at once,
//     and may open its own in memory ([OpenInMemory]: `shrimp chat` while
//     the window is open). Each applies the other's changes from the store
//     before it recalls, learns, lists or changes procedures, and makes a
//     change again when the other's came between (store.ErrChanged).
//   - Recall filters before it ranks: never a forgotten procedure
//     (demerits - uses >= 3, or forgotten by the user), never one whose
//     chain names a tool the registry does not have now.
//   - Ranking and the decision to recall are package recall's: one fused
//     score from a small fitted model, and a decision that the request
//     asks for work and the best candidate is its task. Candidates come from
//     the index (words, corrected slips, words close in meaning) and from
//     the nearest trigger sentence vectors (a sign-bit scan), ranked
//     with forgotten and stale ones among them, so a request about a
//     forgotten procedure is not answered by its sibling; those are then
//     dropped. The decision does not depend on how many procedures are
//     stored; ties go to the more used procedure.
//   - Sentence vectors (package vectors, encoded by package sentence) are
//     derived data like the index: computed in the background, stored,
//     computed again if lost. A recall whose request cannot be encoded in
//     time ranks by words alone. The agent loop's side (hint, forget tool,
//     learner, events) is package procedures/agentmem.
package procedures

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/backend/recall"
	"github.com/shrimp-harness/shrimp/backend/sentence"
	"github.com/shrimp-harness/shrimp/backend/spell"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/backend/vectors"
)

// ForgetThreshold: a procedure drops out of recall when demerits - uses
// reaches it.
const ForgetThreshold = 3

// MinChain is how many tool calls a request needs before it is learned.
const MinChain = 3

// Procedure is one learned procedure.
type Procedure struct {
	ID        string            `json:"id"`
	Trigger   string            `json:"trigger"`
	Triggers  []string          `json:"triggers"`
	Tools     []string          `json:"tools"`
	Examples  []json.RawMessage `json:"examples"`
	Sessions  []string          `json:"sessions"`
	Uses      int               `json:"uses"`
	Demerits  int               `json:"demerits"`
	Forgotten bool              `json:"forgotten"`
	Seq       int64             `json:"-"`
	Created   time.Time         `json:"created"`
	LastUsed  time.Time         `json:"last_used"`

	// Per trigger variant, cached: the text with its slips corrected
	// (what the index and the sentence vectors hold), its analysis and
	// the text as written (what an embedding model is given).
	keys  []string
	texts []recall.Text
	srcs  []string
}

// Recallable reports whether p may be recalled, tools aside: not
// forgotten by the user, and demerits net of uses below ForgetThreshold.
func (p *Procedure) Recallable() bool {
	return !p.Forgotten && p.Demerits-p.Uses < ForgetThreshold
}

// usable reports whether p may be recalled now: recallable, and every tool
// of its chain registered (has).
func (p *Procedure) usable(has func(string) bool) bool {
	return p.Recallable() && !slices.ContainsFunc(p.Tools, func(t string) bool { return !has(t) })
}

// analyse prepares the trigger variants for matching. A long trigger also
// counts by its first clause: people put the request first and the detail
// after a comma ("write a complaint to the airline about my lost luggage,
// it's been five days, ...").
func (p *Procedure) analyse() {
	p.keys, p.texts, p.srcs = nil, nil, nil
	sp := spell.Default()
	add := func(t string) {
		a := recall.Analyse(t, sp, nil)
		if !slices.Contains(p.keys, a.Corrected) {
			p.keys = append(p.keys, a.Corrected)
			p.texts = append(p.texts, a)
			p.srcs = append(p.srcs, strings.TrimSpace(t))
		}
	}
	for _, t := range p.Triggers {
		add(t)
		if i := strings.IndexAny(t, ",;.!?"); i > 0 && len(recall.Analyse(t[:i], nil, nil).Words) >= 3 {
			add(t[:i])
		}
	}
}

// Status values.
const (
	StatusActive    = "active"
	StatusForgotten = "forgotten"
	StatusStale     = "stale" // names a tool that no longer exists
)

// Memory is the procedure store, index and recall of one data dir.
type Memory struct {
	repo     store.ProcedureRepo
	vecRepo  store.VectorRepo
	index    *index
	meanings *vectors.Store
	extra    *vectors.Model // the configured embedding model; nil: none
	// wordsOnly ranks by words alone (benchmarks measure recall both
	// ways); budget, when set, replaces EncodeBudget.
	wordsOnly bool
	budget    *time.Duration

	mu    sync.RWMutex
	procs map[string]*Procedure
	seq   int64               // every change up to this one in the store is applied
	vocab map[string]int      // every trigger stem, with how many procedures hold it
	words map[string]int      // every trigger word, with counts (the speller's hint)
	byKey map[string][]string // trigger variant (its key) -> the procedures holding it
}

// count adds (d=1) or removes (d=-1) p's words and trigger variants from
// the tallies.
func (m *Memory) count(p *Procedure, d int) {
	for _, k := range p.keys {
		ids := slices.DeleteFunc(m.byKey[k], func(id string) bool { return id == p.ID })
		if d > 0 {
			ids = append(ids, p.ID)
		}
		if len(ids) == 0 {
			delete(m.byKey, k)
			continue
		}
		m.byKey[k] = ids
	}
	stems := map[string]bool{}
	for _, t := range p.texts {
		for _, w := range t.Words {
			m.words[w.Text] += d
			stems[w.Stem] = true
		}
	}
	for st := range stems {
		m.vocab[st] += d
	}
}

// Open opens the procedural memory of st, with its index under dir. It
// rebuilds or catches up the index as needed.
func Open(ctx context.Context, st *store.Store, dir string) (*Memory, error) {
	// The word lexicon and the speller take ~200 ms to load; do it now,
	// beside the index, rather than in the first request's recall.
	go spell.Default()
	go sentence.Default()
	ix, rebuilt, err := openIndex(filepath.Join(dir, "procedures.bleve"))
	if err != nil {
		return nil, err
	}
	from := ix.watermark()
	if rebuilt {
		from = 0
	}
	return start(ctx, st, ix, from)
}

// OpenInMemory returns a memory over st with an in-memory index: for the
// evaluation and tests, and for a process beside the one that owns the
// index on disk.
func OpenInMemory(ctx context.Context, st *store.Store) (*Memory, error) {
	ix, err := openMemIndex()
	if err != nil {
		return nil, err
	}
	return start(ctx, st, ix, 0)
}

// start loads the store's procedures into a memory over ix and indexes
// those changed after watermark; on failure it closes ix.
func start(ctx context.Context, st *store.Store, ix *index, watermark int64) (*Memory, error) {
	m := &Memory{repo: st.Procedures(), vecRepo: st.Vectors(), index: ix}
	if err := m.load(ctx); err != nil {
		ix.Close()
		return nil, err
	}
	if err := m.catchUp(watermark); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// Close stops the sentence-vector workers and closes the index.
func (m *Memory) Close() error {
	m.meanings.Close()
	m.extra.Close()
	return m.index.Close()
}

// Settle waits until every trigger has its sentence vector (the evaluation
// and tests; the agent recalls with what is there).
func (m *Memory) Settle(ctx context.Context) error { return m.meanings.Wait(ctx) }

func (m *Memory) load(ctx context.Context) error {
	rows, err := m.repo.All(ctx)
	if err != nil {
		return err
	}
	m.procs = make(map[string]*Procedure, len(rows))
	m.vocab, m.words, m.byKey = map[string]int{}, map[string]int{}, map[string][]string{}
	if m.meanings, err = vectors.OpenBuiltIn(ctx, m.vecRepo); err != nil {
		return err
	}
	for _, r := range rows {
		p, err := fromRow(r)
		if err != nil {
			m.meanings.Close()
			return err
		}
		m.seq = max(m.seq, p.Seq)
		m.apply(p)
	}
	return nil
}

// catchUp indexes every procedure changed after watermark.
func (m *Memory) catchUp(watermark int64) error {
	var batch []*Procedure
	for _, p := range m.procs {
		if p.Seq > watermark {
			batch = append(batch, p)
		}
	}
	slices.SortFunc(batch, func(a, b *Procedure) int { return int(a.Seq - b.Seq) })
	return m.index.putAll(batch)
}

func fromRow(r store.Procedure) (*Procedure, error) {
	p := &Procedure{ID: r.ID, Trigger: r.Trigger, Uses: r.Uses, Demerits: r.Demerits, Forgotten: r.Forgotten, Seq: r.Seq, Created: r.CreatedAt, LastUsed: r.LastUsed}
	for _, f := range []struct {
		src string
		dst any
	}{{r.Triggers, &p.Triggers}, {r.Tools, &p.Tools}, {r.Examples, &p.Examples}, {r.Sessions, &p.Sessions}} {
		if f.src == "" {
			continue
		}
		if err := json.Unmarshal([]byte(f.src), f.dst); err != nil {
			return nil, fmt.Errorf("procedure %s: %w", r.ID, err)
		}
	}
	if len(p.Triggers) == 0 {
		p.Triggers = []string{p.Trigger}
	}
	p.analyse()
	return p, nil
}

func toRow(p *Procedure) store.Procedure {
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	ex, sess := append([]json.RawMessage{}, p.Examples...), append([]string{}, p.Sessions...) // none: [], not null
	return store.Procedure{ID: p.ID, Trigger: p.Trigger, Triggers: enc(p.Triggers), Tools: enc(p.Tools), Examples: enc(ex), Sessions: enc(sess),
		Uses: p.Uses, Demerits: p.Demerits, Forgotten: p.Forgotten, Seq: p.Seq, CreatedAt: p.Created, LastUsed: p.LastUsed}
}

// save writes p to SQLite (the acknowledgement point), then to the index.
// The caller holds m.mu.
func (m *Memory) save(ctx context.Context, p *Procedure) error {
	seq, err := m.repo.Save(ctx, toRow(p))
	if err != nil {
		return err
	}
	if p.Seq = seq; seq == m.seq+1 {
		m.seq = seq // else another process's change came between: refresh applies it
	}
	p.analyse()
	m.apply(p)
	// A failure here only makes the index lag; the next Open catches up.
	return m.index.put([]*Procedure{p}, m.seq)
}

// apply takes p (analysed) for the procedure of its id. The caller holds
// m.mu.
func (m *Memory) apply(p *Procedure) {
	if old, ok := m.procs[p.ID]; ok {
		m.count(old, -1)
	}
	m.count(p, 1)
	m.procs[p.ID] = p
	m.meanings.Want(p.keys...)
	if m.extra != nil {
		m.extra.Want(p.keys...)
	}
}

// refresh applies what another process (the window, or `shrimp chat`
// beside it) changed in the store since this one last looked: procedures
// learned, used or forgotten there. The caller holds m.mu.
func (m *Memory) refresh(ctx context.Context) error {
	rows, err := m.repo.Since(ctx, m.seq)
	if err != nil || len(rows) == 0 {
		return err
	}
	var batch []*Procedure
	for _, r := range rows {
		m.seq = max(m.seq, r.Seq)
		if old, ok := m.procs[r.ID]; ok && old.Seq >= r.Seq {
			continue // this process's own change
		}
		p, err := fromRow(r)
		if err != nil {
			return err
		}
		m.apply(p)
		batch = append(batch, p)
	}
	return m.index.put(batch, m.seq)
}

// ErrNotFound means no procedure has that id.
var ErrNotFound = errors.New("no such procedure")

// Get returns a copy of one procedure.
func (m *Memory) Get(id string) (Procedure, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	p, ok := m.procs[id]
	if !ok {
		return Procedure{}, fmt.Errorf("%w %q (see `shrimp procedures list`)", ErrNotFound, id)
	}
	return *p, nil
}

// List returns every procedure, most recently used first, another
// process's changes included.
func (m *Memory) List() []Procedure {
	m.mu.Lock()
	defer m.mu.Unlock()
	_ = m.refresh(context.Background()) // failing, what this process knows
	out := make([]Procedure, 0, len(m.procs))
	for _, p := range m.procs {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b Procedure) int {
		if c := b.LastUsed.Compare(a.LastUsed); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// Status returns a procedure's status against the tools registered now,
// and the tools it names that are missing.
func Status(p Procedure, has func(string) bool) (string, []string) {
	var missing []string
	for _, t := range p.Tools {
		if !has(t) && !slices.Contains(missing, t) {
			missing = append(missing, t)
		}
	}
	switch {
	case !p.Recallable():
		return StatusForgotten, missing
	case len(missing) > 0:
		return StatusStale, missing
	}
	return StatusActive, missing
}

// Forget adds a demerit (the model's forget) or, byUser, drops the
// procedure from recall at once until it is restored.
func (m *Memory) Forget(ctx context.Context, id string, byUser bool) (Procedure, error) {
	return m.update(ctx, id, func(p *Procedure) {
		if byUser {
			p.Forgotten = true
		} else {
			p.Demerits++
		}
	})
}

// Restore brings a forgotten procedure back: the user's forget is undone
// and its demerits are cleared.
func (m *Memory) Restore(ctx context.Context, id string) (Procedure, error) {
	return m.update(ctx, id, func(p *Procedure) { p.Forgotten, p.Demerits = false, 0 })
}

// update changes a copy of one procedure and saves it.
func (m *Memory) update(ctx context.Context, id string, change func(*Procedure)) (Procedure, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return anew(func() (Procedure, error) {
		if err := m.refresh(ctx); err != nil {
			return Procedure{}, err
		}
		p, ok := m.procs[id]
		if !ok {
			return Procedure{}, fmt.Errorf("%w %q (see `shrimp procedures list`)", ErrNotFound, id)
		}
		q := *p
		change(&q)
		return q, m.save(ctx, &q)
	})
}

// anew runs a change again, from what the store then holds, while another
// process changed its procedure between this one's read and its write
// (after a pause of up to try ms, so neither starves the other).
func anew[T any](change func() (T, error)) (T, error) {
	for try := 1; ; try++ {
		if v, err := change(); try == 50 || !errors.Is(err, store.ErrChanged) {
			return v, err
		}
		time.Sleep(rand.N(time.Duration(try) * time.Millisecond))
	}
}

// Add stores a new procedure as given (dataset loading); it is not
// merged.
func (m *Memory) Add(ctx context.Context, p Procedure) error { return m.AddAll(ctx, []Procedure{p}) }

// AddAll stores many procedures in one transaction and one index batch
// (dataset loading, benchmarks, an import). One without an ID is given
// one, written back into ps.
func (m *Memory) AddAll(ctx context.Context, ps []Procedure) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now().UTC()
	rows := make([]store.Procedure, len(ps))
	ptrs := make([]*Procedure, len(ps))
	for i := range ps {
		ps[i].ID = cmp.Or(ps[i].ID, newID())
		p := ps[i]
		p.Created = cmp.Or(p.Created, now)
		p.LastUsed = cmp.Or(p.LastUsed, p.Created)
		if len(p.Triggers) == 0 {
			p.Triggers = []string{p.Trigger}
		}
		p.analyse()
		rows[i] = toRow(&p)
		ptrs[i] = &p
	}
	if err := m.refresh(ctx); err != nil {
		return err
	}
	if err := m.repo.AddAll(ctx, rows); err != nil {
		return err
	}
	for i, p := range ptrs {
		if p.Seq = rows[i].Seq; p.Seq == m.seq+1 {
			m.seq = p.Seq
		}
		m.apply(p)
	}
	return m.index.putAll(ptrs)
}

// Rebuild drops the index and indexes every procedure again from the
// store. When the index cannot be made again on disk (a full disk, a
// folder made read-only), recall goes on from an index in memory until
// the next Open or Rebuild, and the error says so.
func (m *Memory) Rebuild(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	path := m.index.path
	m.index.Close()
	ix, err := openMemIndex()
	if err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	ix.path = path // a later Rebuild tries the disk again
	var diskErr error
	if path != "" {
		if diskErr = os.RemoveAll(path); diskErr == nil {
			var disk *index
			if disk, _, diskErr = openIndex(path); diskErr == nil {
				ix.Close()
				ix = disk
			}
		}
	}
	m.index = ix
	if err := m.catchUp(0); err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	if diskErr != nil {
		return fmt.Errorf("rebuild the index at %s: %w; recall works from memory until Shrimp starts again: free disk space or mend the folder's permissions, then run `shrimp doctor --rebuild-index`", path, diskErr)
	}
	return nil
}

// IndexHealth compares the search index with the store: how many
// procedures the store holds, how many the index holds, and whether the
// index has caught up with the last change (its watermark). A sound index
// has procedures == indexed and current true; Rebuild mends one that is not.
func (m *Memory) IndexHealth() (procedures, indexed int, current bool, err error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	n, err := m.index.idx.DocCount()
	if err != nil {
		return len(m.procs), 0, false, fmt.Errorf("count the index: %w", err)
	}
	return len(m.procs), int(n), m.index.path == "" || m.index.watermark() >= m.seq, nil
}
