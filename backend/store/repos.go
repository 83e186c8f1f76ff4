package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/samber/lo"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// The repositories below are the only way other packages reach the tables
// of procedural memory, facts and working memory: each subsystem owns its
// tables through one, and GORM stays inside this package.

// ProcedureRepo reads and writes the procedures table.
type ProcedureRepo struct{ db *gorm.DB }

// Procedures returns the procedures repository.
func (s *Store) Procedures() ProcedureRepo { return ProcedureRepo{s.db} }

// All returns every procedure.
func (r ProcedureRepo) All(ctx context.Context) ([]Procedure, error) {
	var rows []Procedure
	if err := r.db.WithContext(ctx).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("load procedures: %w", err)
	}
	return rows, nil
}

// ErrChanged means another process (the window, or `shrimp chat` beside
// it) changed the procedure after the caller read it: read it again and
// make the change anew.
var ErrChanged = errors.New("the procedure was changed by another process meanwhile")

// Save inserts or replaces one procedure under the table's next change
// number, which it returns: every process's changes (the window's and a
// `shrimp chat` beside it) get numbers in the order they were written,
// for Since. p.Seq is the change number the caller read it at (0: new);
// when the stored row has another, nothing is written and the error is
// [ErrChanged], so no process overwrites a change it has not seen. It is
// not cancelled with ctx: a change the caller has decided on is written
// whole.
func (r ProcedureRepo) Save(ctx context.Context, p Procedure) (int64, error) {
	err := r.db.WithContext(context.WithoutCancel(ctx)).Transaction(func(tx *gorm.DB) error {
		var stored []int64
		if err := tx.Model(&Procedure{}).Where("id = ?", p.ID).Pluck("seq", &stored).Error; err != nil {
			return err
		}
		if len(stored) > 0 && stored[0] != p.Seq {
			return ErrChanged
		}
		if err := tx.Model(&Procedure{}).Select("COALESCE(MAX(seq), 0) + 1").Scan(&p.Seq).Error; err != nil {
			return err
		}
		return tx.Save(&p).Error
	})
	if err != nil {
		return 0, fmt.Errorf("save procedure %s: %w", p.ID, err)
	}
	return p.Seq, nil
}

// AddAll inserts many procedures in batches of 500, numbering their
// changes after the table's last (ps's Seq are set).
func (r ProcedureRepo) AddAll(ctx context.Context, ps []Procedure) error {
	if len(ps) == 0 {
		return nil
	}
	err := r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var top int64
		if err := tx.Model(&Procedure{}).Select("COALESCE(MAX(seq), 0)").Scan(&top).Error; err != nil {
			return err
		}
		for i := range ps {
			ps[i].Seq = top + int64(i) + 1
		}
		return tx.CreateInBatches(ps, 500).Error
	})
	if err != nil {
		return fmt.Errorf("add procedures: %w", err)
	}
	return nil
}

// Since returns the procedures changed after change number seq, in the
// order of their changes.
func (r ProcedureRepo) Since(ctx context.Context, seq int64) ([]Procedure, error) {
	var rows []Procedure
	if err := r.db.WithContext(ctx).Where("seq > ?", seq).Order("seq").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("load changed procedures: %w", err)
	}
	return rows, nil
}

// RecallLike is the prototype's recall, kept as the baseline that
// recall's speed and quality are measured against: up to limit
// procedures not forgotten (demerits - uses below forgetAt) whose first
// 50 trigger characters, lower case, contain the request's first 50
// (SQL LIKE), most used first, and whose tools has reports registered.
func (r ProcedureRepo) RecallLike(ctx context.Context, request string, forgetAt int, has func(string) bool, limit int) ([]string, error) {
	q := []rune(strings.ToLower(request))
	if len(q) > 50 {
		q = q[:50]
	}
	pattern := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(string(q)) + "%"
	var rows []struct{ ID, Tools string }
	err := r.db.WithContext(ctx).Raw(
		`SELECT id, tools FROM procedures
		 WHERE lower(substr("trigger", 1, 50)) LIKE ? ESCAPE '\'
		   AND NOT forgotten AND demerits - uses < ?
		 ORDER BY uses DESC, id`, pattern, forgetAt).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("like recall: %w", err)
	}
	var out []string
	for _, row := range rows {
		var tools []string
		_ = json.Unmarshal([]byte(row.Tools), &tools)
		if !slices.ContainsFunc(tools, func(t string) bool { return !has(t) }) {
			out = append(out, row.ID)
		}
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// DeclineRepo reads and writes the recall_declines table.
type DeclineRepo struct{ db *gorm.DB }

// Declines returns the declined-recalls repository.
func (s *Store) Declines() DeclineRepo { return DeclineRepo{s.db} }

// All returns every declined recall.
func (r DeclineRepo) All(ctx context.Context) ([]RecallDecline, error) {
	var rows []RecallDecline
	if err := r.db.WithContext(ctx).Order("created_at").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("load declined recalls: %w", err)
	}
	return rows, nil
}

// Add records a declined recall (one already recorded is kept as it was)
// and returns the declines' new revision. It is not cancelled with ctx.
func (r DeclineRepo) Add(ctx context.Context, d RecallDecline) (int64, error) {
	rev, err := bump(ctx, r.db, declinesRevision, func(tx *gorm.DB) error {
		return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&d).Error
	})
	if err != nil {
		return 0, fmt.Errorf("record declined recall of %s: %w", d.ProcedureID, err)
	}
	return rev, nil
}

// DeleteProcedure removes every declined recall of one procedure and
// returns the declines' new revision.
func (r DeclineRepo) DeleteProcedure(ctx context.Context, id string) (int64, error) {
	rev, err := bump(ctx, r.db, declinesRevision, func(tx *gorm.DB) error {
		return tx.Where("procedure_id = ?", id).Delete(&RecallDecline{}).Error
	})
	if err != nil {
		return 0, fmt.Errorf("clear declined recalls of %s: %w", id, err)
	}
	return rev, nil
}

// Copy follows the declines kept in memory.
func (r DeclineRepo) Copy() *Copy { return &Copy{revision: r.Revision} }

// Revision returns the number of the declines' last change (0: none yet).
func (r DeclineRepo) Revision(ctx context.Context) (int64, error) {
	return revision(ctx, r.db, declinesRevision)
}

// VectorRepo reads and writes the sentence_vectors table.
type VectorRepo struct{ db *gorm.DB }

// Vectors returns the sentence-vector repository.
func (s *Store) Vectors() VectorRepo { return VectorRepo{s.db} }

// Load returns every vector computed with model.
func (r VectorRepo) Load(ctx context.Context, model string) ([]SentenceVector, error) {
	var rows []SentenceVector
	if err := r.db.WithContext(ctx).Where("model = ?", model).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("load sentence vectors: %w", err)
	}
	return rows, nil
}

// Put stores a vector unless one is there for its text and model.
func (r VectorRepo) Put(ctx context.Context, v SentenceVector) error {
	if err := r.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&v).Error; err != nil {
		return fmt.Errorf("store sentence vector: %w", err)
	}
	return nil
}

// DeleteModel removes every vector computed with model (its encoder
// changed under the same name).
func (r VectorRepo) DeleteModel(ctx context.Context, model string) error {
	if err := r.db.WithContext(context.WithoutCancel(ctx)).Where("model = ?", model).Delete(&SentenceVector{}).Error; err != nil {
		return fmt.Errorf("delete the sentence vectors of %s: %w", model, err)
	}
	return nil
}

// Count returns how many vectors model has.
func (r VectorRepo) Count(ctx context.Context, model string) (int64, error) {
	var n int64
	err := r.db.WithContext(ctx).Model(&SentenceVector{}).Where("model = ?", model).Count(&n).Error
	return n, err
}

// FactRepo reads and writes the facts table.
type FactRepo struct{ db *gorm.DB }

// Facts returns the facts repository.
func (s *Store) Facts() FactRepo { return FactRepo{s.db} }

// All returns every fact.
func (r FactRepo) All(ctx context.Context) ([]Fact, error) {
	var rows []Fact
	if err := r.db.WithContext(ctx).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("load facts: %w", err)
	}
	return rows, nil
}

// Revisions number the changes to a table that processes keep in memory
// (the window, and `shrimp …` in a terminal beside it): each write bumps
// its table's revision, a setting, in the write's own transaction, so a
// process tells another's change by one read (revision).
const (
	factsRevision    = "facts_revision"
	declinesRevision = "declines_revision"
)

// bump makes a change and bumps the revision name in one transaction,
// whole even if ctx ends, and returns the new revision.
func bump(ctx context.Context, db *gorm.DB, name string, change func(tx *gorm.DB) error) (int64, error) {
	var rev int64
	err := db.WithContext(context.WithoutCancel(ctx)).Transaction(func(tx *gorm.DB) error {
		if err := change(tx); err != nil {
			return err
		}
		if err := tx.Exec("INSERT INTO settings (key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1", name).Error; err != nil {
			return err
		}
		return tx.Raw("SELECT CAST(value AS INTEGER) FROM settings WHERE key = ?", name).Scan(&rev).Error
	})
	return rev, err
}

// revision returns the revision name (0: no change yet).
func revision(ctx context.Context, db *gorm.DB, name string) (int64, error) {
	var rev int64
	if err := db.WithContext(ctx).Raw("SELECT COALESCE(MAX(CAST(value AS INTEGER)), 0) FROM settings WHERE key = ?", name).Scan(&rev).Error; err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return rev, nil
}

// Copy follows a table that a process keeps in memory: the revision its
// copy was read at. Not safe for concurrent use: the owner's lock guards
// it with the copy.
type Copy struct {
	rev      int64
	revision func(context.Context) (int64, error)
}

// Load reads the table again with read, after noting its revision (a
// change while it reads is seen at the next Sync).
func (c *Copy) Load(ctx context.Context, read func() error) error {
	rev, err := c.revision(ctx)
	if err != nil {
		return err
	}
	if err := read(); err != nil {
		return err
	}
	c.rev = rev
	return nil
}

// Sync reads the table again with read when another process changed it
// since the copy was read.
func (c *Copy) Sync(ctx context.Context, read func() error) error {
	if rev, err := c.revision(ctx); err != nil || rev == c.rev {
		return err
	}
	return c.Load(ctx, read)
}

// Wrote notes this process's own change, numbered rev: the copy stays
// current unless another process's change came between.
func (c *Copy) Wrote(rev int64) {
	if rev == c.rev+1 {
		c.rev = rev
	}
}

// Copy follows the facts kept in memory.
func (r FactRepo) Copy() *Copy { return &Copy{revision: r.Revision} }

// write makes a change to the facts and returns their new revision.
func (r FactRepo) write(ctx context.Context, change func(tx *gorm.DB) error) (int64, error) {
	return bump(ctx, r.db, factsRevision, change)
}

// Revision returns the number of the facts' last change (0: none yet).
func (r FactRepo) Revision(ctx context.Context) (int64, error) {
	return revision(ctx, r.db, factsRevision)
}

// Put inserts or replaces a fact and returns the facts' new revision.
func (r FactRepo) Put(ctx context.Context, f Fact) (int64, error) {
	rev, err := r.write(ctx, func(tx *gorm.DB) error { return tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&f).Error })
	if err != nil {
		return 0, fmt.Errorf("set fact %s: %w", f.Key, err)
	}
	return rev, nil
}

// Delete removes the fact key and returns the facts' new revision.
func (r FactRepo) Delete(ctx context.Context, key string) (int64, error) {
	rev, err := r.write(ctx, func(tx *gorm.DB) error { return tx.Where("key = ?", key).Delete(&Fact{}).Error })
	if err != nil {
		return 0, fmt.Errorf("delete fact %s: %w", key, err)
	}
	return rev, nil
}

// SetFlag sets one boolean column ("flagged" or "approved") of a fact and
// returns the facts' new revision.
func (r FactRepo) SetFlag(ctx context.Context, key, column string, value bool) (int64, error) {
	if column != "flagged" && column != "approved" {
		return 0, fmt.Errorf("fact has no flag %q", column)
	}
	rev, err := r.write(ctx, func(tx *gorm.DB) error { return tx.Model(&Fact{}).Where("key = ?", key).Update(column, value).Error })
	if err != nil {
		return 0, fmt.Errorf("update fact %s: %w", key, err)
	}
	return rev, nil
}

// WorkingRepo reads and writes the working_entries table.
type WorkingRepo struct{ db *gorm.DB }

// Working returns the working-memory repository.
func (s *Store) Working() WorkingRepo { return WorkingRepo{s.db} }

// Entries returns a session's notes, oldest first.
func (r WorkingRepo) Entries(ctx context.Context, session string) ([]WorkingEntry, error) {
	var out []WorkingEntry
	if err := r.db.WithContext(ctx).Where("session_id = ?", session).Order("updated").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("read working memory: %w", err)
	}
	return out, nil
}

// Put inserts or replaces a note.
func (r WorkingRepo) Put(ctx context.Context, e WorkingEntry) error {
	if err := r.db.WithContext(ctx).Clauses(clause.OnConflict{UpdateAll: true}).Create(&e).Error; err != nil {
		return fmt.Errorf("keep note %s: %w", e.Key, err)
	}
	return nil
}

// Get returns one note, or ErrNotFound.
func (r WorkingRepo) Get(ctx context.Context, session, key string) (WorkingEntry, error) {
	var e WorkingEntry
	err := r.db.WithContext(ctx).Where("session_id = ? AND key = ?", session, key).Take(&e).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return e, ErrNotFound
	}
	return e, err
}

// Clear deletes a session's notes and says how many there were.
func (r WorkingRepo) Clear(ctx context.Context, session string) (int64, error) {
	res := r.db.WithContext(ctx).Where("session_id = ?", session).Delete(&WorkingEntry{})
	return res.RowsAffected, res.Error
}

// DropSince deletes the session's notes set at or after t (those a
// replaced request wrote) and says how many.
func (r WorkingRepo) DropSince(ctx context.Context, session string, t time.Time) (int, error) {
	all, err := r.Entries(ctx, session)
	if err != nil {
		return 0, err
	}
	keys := lo.FilterMap(all, func(e WorkingEntry, _ int) (string, bool) { return e.Key, !e.Updated.Before(t) })
	if len(keys) == 0 {
		return 0, nil
	}
	if err := r.db.WithContext(ctx).Where("session_id = ? AND key IN ?", session, keys).Delete(&WorkingEntry{}).Error; err != nil {
		return 0, fmt.Errorf("drop the notes of replaced requests: %w", err)
	}
	return len(keys), nil
}

// SummaryRepo reads and writes the session_summaries table.
type SummaryRepo struct{ db *gorm.DB }

// Summaries returns the session summaries' repository.
func (s *Store) Summaries() SummaryRepo { return SummaryRepo{s.db} }

// Get returns a session's summary, or ErrNotFound.
func (r SummaryRepo) Get(ctx context.Context, session string) (SessionSummary, error) {
	var out SessionSummary
	err := r.db.WithContext(ctx).Where("session_id = ?", session).Take(&out).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return out, ErrNotFound
	}
	if err != nil {
		return out, fmt.Errorf("read the summary of session %s: %w", session, err)
	}
	return out, nil
}

// Put inserts or replaces a session's summary. It is not cancelled with
// ctx: a summary the model took its time to write is kept.
func (r SummaryRepo) Put(ctx context.Context, s SessionSummary) error {
	s.UpdatedAt = time.Now().UTC()
	if err := r.db.WithContext(context.WithoutCancel(ctx)).Clauses(clause.OnConflict{UpdateAll: true}).Create(&s).Error; err != nil {
		return fmt.Errorf("keep the summary of session %s: %w", s.SessionID, err)
	}
	return nil
}

// MetricRepo reads and writes per-run measures (run_metrics).
type MetricRepo struct{ db *gorm.DB }

// Metrics returns the per-run measures' repository.
func (s *Store) Metrics() MetricRepo { return MetricRepo{s.db} }

// Save writes (or replaces) a run's row.
func (r MetricRepo) Save(ctx context.Context, m RunMetric) error {
	if err := r.db.WithContext(ctx).Save(&m).Error; err != nil {
		return fmt.Errorf("save the measures of run %s/%d: %w", m.SessionID, m.RunSeq, err)
	}
	return nil
}

// Session returns a session's runs in order.
func (r MetricRepo) Session(ctx context.Context, session string) ([]RunMetric, error) {
	var out []RunMetric
	if err := r.db.WithContext(ctx).Where("session_id = ?", session).Order("run_seq").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("read the measures of session %s: %w", session, err)
	}
	return out, nil
}

// Since returns the runs started at or after t, oldest first.
func (r MetricRepo) Since(ctx context.Context, t time.Time) ([]RunMetric, error) {
	var out []RunMetric
	if err := r.db.WithContext(ctx).Where("started_at >= ?", t).Order("started_at").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("read run measures: %w", err)
	}
	return out, nil
}

// Procedure returns the runs that recalled the procedure, oldest first.
func (r MetricRepo) Procedure(ctx context.Context, id string) ([]RunMetric, error) {
	var out []RunMetric
	// Recalled is JSON [{"id":…}]; the id is quoted there.
	if err := r.db.WithContext(ctx).Where("recalled LIKE ?", `%"id":"`+id+`"%`).Order("started_at").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("read the runs of procedure %s: %w", id, err)
	}
	return out, nil
}

// FileChangeRepo reads and writes the file_changes table.
type FileChangeRepo struct{ db *gorm.DB }

// FileChanges returns the changed-files repository.
func (s *Store) FileChanges() FileChangeRepo { return FileChangeRepo{s.db} }

// Add records one change and returns its id.
func (r FileChangeRepo) Add(ctx context.Context, c FileChange) (int64, error) {
	if err := r.db.WithContext(ctx).Create(&c).Error; err != nil {
		return 0, fmt.Errorf("record the change of %s: %w", c.Path, err)
	}
	return c.ID, nil
}

// Delete removes the record of one change (one that did not happen).
func (r FileChangeRepo) Delete(ctx context.Context, id int64) error {
	if err := r.db.WithContext(ctx).Delete(&FileChange{}, id).Error; err != nil {
		return fmt.Errorf("remove the record of change %d: %w", id, err)
	}
	return nil
}

// Since returns a session's changes not undone, of the runs from runSeq
// on, oldest first.
func (r FileChangeRepo) Since(ctx context.Context, session string, runSeq int64) ([]FileChange, error) {
	var rows []FileChange
	err := r.db.WithContext(ctx).Where("session_id = ? AND run_seq >= ? AND undone_at IS NULL", session, runSeq).Order("id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("changed files of %s: %w", session, err)
	}
	return rows, nil
}

// Session returns every change of a session, undone ones included,
// oldest first.
func (r FileChangeRepo) Session(ctx context.Context, session string) ([]FileChange, error) {
	var rows []FileChange
	if err := r.db.WithContext(ctx).Where("session_id = ?", session).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("changed files of %s: %w", session, err)
	}
	return rows, nil
}

// Runs returns, for each run of a session with changes not undone, how
// many files it changed (by seq of its agent:run-started).
func (r FileChangeRepo) Runs(ctx context.Context, session string) (map[int64]int, error) {
	var rows []struct {
		RunSeq int64
		N      int
	}
	err := r.db.WithContext(ctx).Model(&FileChange{}).Where("session_id = ? AND undone_at IS NULL", session).
		Group("run_seq").Select("run_seq, count(DISTINCT workspace || '/' || path) AS n").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("changed files of %s: %w", session, err)
	}
	out := make(map[int64]int, len(rows))
	for _, row := range rows {
		out[row.RunSeq] = row.N
	}
	return out, nil
}

// MarkUndone marks changes as undone at t, and as ones a redo can put
// back when redoable. It is not cancelled with ctx: the files are already
// restored.
func (r FileChangeRepo) MarkUndone(ctx context.Context, ids []int64, t time.Time, redoable bool) error {
	if len(ids) == 0 {
		return nil
	}
	err := r.db.WithContext(context.WithoutCancel(ctx)).Model(&FileChange{}).Where("id IN ?", ids).
		Updates(map[string]any{"undone_at": t, "redoable": redoable}).Error
	if err != nil {
		return fmt.Errorf("mark changes undone: %w", err)
	}
	return nil
}

// SetRedoMode records the permission bits a file had when an undo
// replaced or removed it, on its undone changes ids, for a redo to give
// back. Not cancelled with ctx, as MarkUndone.
func (r FileChangeRepo) SetRedoMode(ctx context.Context, ids []int64, mode uint32) error {
	if len(ids) == 0 {
		return nil
	}
	if err := r.db.WithContext(context.WithoutCancel(ctx)).Model(&FileChange{}).Where("id IN ?", ids).Update("redo_mode", mode).Error; err != nil {
		return fmt.Errorf("record a file's permissions for redo: %w", err)
	}
	return nil
}

// DeleteBefore removes the records of changes made before t and returns
// how many went.
func (r FileChangeRepo) DeleteBefore(ctx context.Context, t time.Time) (int64, error) {
	res := r.db.WithContext(ctx).Where("created_at < ?", t).Delete(&FileChange{})
	if res.Error != nil {
		return 0, fmt.Errorf("remove old changes: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// Between returns the changes recorded from one time to another, both
// included, oldest first.
func (r FileChangeRepo) Between(ctx context.Context, from, to time.Time) ([]FileChange, error) {
	var rows []FileChange
	if err := r.db.WithContext(ctx).Where("created_at >= ? AND created_at <= ?", from, to).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("changed files from %v: %w", from, err)
	}
	return rows, nil
}

// Kept returns the hashes of every content still needed: the earlier
// contents recorded, and what undone changes wrote (a redo puts it back).
func (r FileChangeRepo) Kept(ctx context.Context) (map[string]bool, error) {
	var before, after []string
	if err := r.db.WithContext(ctx).Model(&FileChange{}).Where("kept").Distinct().Pluck("before", &before).Error; err != nil {
		return nil, fmt.Errorf("kept contents: %w", err)
	}
	if err := r.db.WithContext(ctx).Model(&FileChange{}).Where("redoable AND undone_at IS NOT NULL AND after != ''").Distinct().Pluck("after", &after).Error; err != nil {
		return nil, fmt.Errorf("kept contents: %w", err)
	}
	return lo.SliceToMap(append(before, after...), func(h string) (string, bool) { return h, true }), nil
}

// LastUndone returns the changes of a session the last undo took back and
// a redo can put back (those marked undone and redoable at the latest
// time), oldest first; none when there are none.
func (r FileChangeRepo) LastUndone(ctx context.Context, session string) ([]FileChange, error) {
	var rows []FileChange
	last := r.db.Model(&FileChange{}).Select("max(undone_at)").Where("session_id = ? AND redoable", session)
	if err := r.db.WithContext(ctx).Where("session_id = ? AND redoable AND undone_at = (?)", session, last).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("the last undo of %s: %w", session, err)
	}
	return rows, nil
}

// NotRedoable marks undone changes as ones no redo puts back (a redo left
// their files).
func (r FileChangeRepo) NotRedoable(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if err := r.db.WithContext(context.WithoutCancel(ctx)).Model(&FileChange{}).Where("id IN ?", ids).Update("redoable", false).Error; err != nil {
		return fmt.Errorf("mark changes not redoable: %w", err)
	}
	return nil
}

// MarkDone marks undone changes as not undone again (a redo put their
// files back). It is not cancelled with ctx: the files are already
// written.
func (r FileChangeRepo) MarkDone(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if err := r.db.WithContext(context.WithoutCancel(ctx)).Model(&FileChange{}).Where("id IN ?", ids).Updates(map[string]any{"undone_at": nil, "redoable": false}).Error; err != nil {
		return fmt.Errorf("mark changes done again: %w", err)
	}
	return nil
}

// Count returns how many changes can still be undone, and in how many
// sessions.
func (r FileChangeRepo) Count(ctx context.Context) (changes, sessions int64, err error) {
	var row struct{ Changes, Sessions int64 }
	err = r.db.WithContext(ctx).Model(&FileChange{}).Where("undone_at IS NULL").
		Select("count(*) AS changes, count(DISTINCT session_id) AS sessions").Scan(&row).Error
	if err != nil {
		return 0, 0, fmt.Errorf("count changed files: %w", err)
	}
	return row.Changes, row.Sessions, nil
}

// ShellWatchRepo reads and writes the shell_watches table.
type ShellWatchRepo struct{ db *gorm.DB }

// ShellWatches returns the shell watches' repository.
func (s *Store) ShellWatches() ShellWatchRepo { return ShellWatchRepo{s.db} }

// Begin records a watch of workspace by process pid starting at t and
// returns its id.
func (r ShellWatchRepo) Begin(ctx context.Context, workspace string, pid int, t time.Time) (int64, error) {
	w := ShellWatch{Workspace: workspace, PID: pid, StartedAt: t}
	if err := r.db.WithContext(ctx).Create(&w).Error; err != nil {
		return 0, fmt.Errorf("record a shell command's watch: %w", err)
	}
	return w.ID, nil
}

// End records that watch id ended at t.
func (r ShellWatchRepo) End(ctx context.Context, id int64, t time.Time) error {
	if err := r.db.WithContext(ctx).Model(&ShellWatch{}).Where("id = ?", id).Update("ended_at", t).Error; err != nil {
		return fmt.Errorf("end a shell command's watch: %w", err)
	}
	return nil
}

// During returns the watches but except that were under way at some time
// from one time to another: started by then and not ended before.
func (r ShellWatchRepo) During(ctx context.Context, from, to time.Time, except int64) ([]ShellWatch, error) {
	var rows []ShellWatch
	err := r.db.WithContext(ctx).Where("id != ? AND started_at <= ? AND (ended_at IS NULL OR ended_at >= ?)", except, to, from).Order("id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("shell commands' watches: %w", err)
	}
	return rows, nil
}

// DeleteBefore removes the watches started before t.
func (r ShellWatchRepo) DeleteBefore(ctx context.Context, t time.Time) error {
	if err := r.db.WithContext(ctx).Where("started_at < ?", t).Delete(&ShellWatch{}).Error; err != nil {
		return fmt.Errorf("remove old shell watches: %w", err)
	}
	return nil
}
