package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
)

// Salvaged says what [Salvage] copied out of a damaged database.
type Salvaged struct {
	Tables []TableSalvage
	// Orphans counts rows left out because the row they belong to (by a
	// foreign key) could not be read.
	Orphans int
}

// Lost reports whether anything could not be read.
func (s Salvaged) Lost() bool {
	if s.Orphans > 0 {
		return true
	}
	for _, t := range s.Tables {
		if t.Lost() {
			return true
		}
	}
	return false
}

// TableSalvage is one table's part of a salvage.
type TableSalvage struct {
	Name string
	Rows int64 // copied
	// BadRows counts rows whose place was readable and their contents
	// not, or whose damaged contents the table would not take.
	BadRows int
	// Gaps are the rowid ranges that could not be reached at all.
	Gaps []Gap
	// Stopped is why a table without rowids was read only up to a point.
	Stopped string
}

// Lost reports whether any of the table could not be read.
func (t TableSalvage) Lost() bool { return t.BadRows > 0 || len(t.Gaps) > 0 || t.Stopped != "" }

// Gap is a range of rowids, After < rowid <= Upto, that could not be
// read: how many rows it held is not known. Upto is math.MaxInt64 when
// the table could not be read past After.
type Gap struct{ After, Upto int64 }

// batch is how many rows a salvage reads at a time.
const batch = 256

// Salvage copies what can be read of the database at damaged into a new
// database at to (which must not exist): its schema as the damaged one
// records it (tables, then indexes, then triggers and views), then each
// table's rows in rowid order. Where a row's contents cannot be read the
// row is left out; where the table's pages cannot be reached, the rowids
// they would hold are skipped (found by probing further ahead, then back),
// and the copy goes on past them. Values are copied as stored (type and
// bits), rowids kept. SQLite keeps no checksums: a value that spills onto
// an overflow page the damage overwrote is read, and copied, as the
// damage left it. Rows whose foreign key names a row that was lost are
// left out at the end. The damaged database is read, never changed beyond
// what opening it does (its WAL applied). An error means no schema could
// be read, or the new database could not be written; to is removed then.
func Salvage(ctx context.Context, damaged, to string, progress func(table string, rows int64)) (out Salvaged, err error) {
	if _, err := os.Lstat(to); err == nil {
		return out, fmt.Errorf("salvage into %s: it exists", to)
	}
	from, err := Open(damaged)
	if err != nil {
		if IsCorrupt(err) {
			err = unsalvageable(damaged, errors.Unwrap(err))
		}
		return out, err
	}
	src, err := from.DB()
	if err != nil {
		return out, err
	}
	defer src.Close()
	src.SetMaxOpenConns(1) // the pragma below holds for the one connection
	// Check each cell's size against its page as it is read, so damage is
	// reported rather than read as rows.
	if _, err := src.ExecContext(ctx, "PRAGMA cell_size_check = ON"); err != nil {
		return out, fmt.Errorf("read %s: %w", damaged, err)
	}
	schema, err := readSchema(ctx, src)
	if err != nil {
		return out, unsalvageable(damaged, err)
	}
	into, err := Open(to)
	if err != nil {
		return out, err
	}
	dst, err := into.DB()
	if err != nil {
		return out, err
	}
	defer func() {
		dst.Close()
		if err != nil {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(to + suffix)
			}
		}
	}()
	dst.SetMaxOpenConns(1)
	// Rows go in before the rows they point to may have; the orphans are
	// taken out at the end. The copy is synced once, when it is whole.
	for _, p := range []string{"PRAGMA foreign_keys = OFF", "PRAGMA synchronous = OFF"} {
		if _, err := dst.ExecContext(ctx, p); err != nil {
			return out, fmt.Errorf("write %s: %w", to, err)
		}
	}
	for _, kind := range []string{"table", "index"} {
		for _, o := range schema {
			if o.kind != kind {
				continue
			}
			if _, err := dst.ExecContext(ctx, o.sql); err != nil {
				return out, fmt.Errorf("write %s: create %s %s: %w", to, o.kind, o.name, err)
			}
		}
	}
	for _, o := range schema {
		if o.kind != "table" {
			continue
		}
		t, err := copyTable(ctx, src, dst, o, progress)
		if err != nil {
			return out, fmt.Errorf("write %s: table %s: %w", to, o.name, err)
		}
		out.Tables = append(out.Tables, t)
	}
	if err := copySequences(ctx, src, dst); err != nil {
		return out, fmt.Errorf("write %s: %w", to, err)
	}
	for _, o := range schema {
		if o.kind == "trigger" || o.kind == "view" {
			if _, err := dst.ExecContext(ctx, o.sql); err != nil {
				return out, fmt.Errorf("write %s: create %s %s: %w", to, o.kind, o.name, err)
			}
		}
	}
	if out.Orphans, err = dropOrphans(ctx, dst); err != nil {
		return out, fmt.Errorf("write %s: %w", to, err)
	}
	var check string
	if err := dst.QueryRowContext(ctx, "PRAGMA integrity_check(1)").Scan(&check); err != nil || check != "ok" {
		return out, fmt.Errorf("the salvaged copy %s fails its own check (%s, %v)", to, check, err)
	}
	for _, p := range []string{"PRAGMA synchronous = FULL", "PRAGMA wal_checkpoint(TRUNCATE)"} {
		if _, err := dst.ExecContext(ctx, p); err != nil {
			return out, fmt.Errorf("write %s: %w", to, err)
		}
	}
	return out, nil
}

// unsalvageable says that a database whose schema cannot be read cannot
// be salvaged, and what to do instead.
func unsalvageable(path string, err error) error {
	return fmt.Errorf("%s cannot be salvaged: even its list of tables cannot be read (%w); restore it from a backup, or move it aside and Shrimp starts a new one (the sqlite3 command's .recover may get more out of it)", path, err)
}

// object is one entry of a database's schema.
type object struct {
	kind, name, sql string
	columns         []string
	rowid           bool // a rowid table whose rowid is not one of its columns
	withoutRowid    bool
}

// readSchema reads the tables, indexes, triggers and views, with each
// table's columns.
func readSchema(ctx context.Context, db *sql.DB) ([]object, error) {
	rows, err := db.QueryContext(ctx, "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
	if err != nil {
		return nil, err
	}
	var schema []object
	for rows.Next() {
		var o object
		if err := rows.Scan(&o.kind, &o.name, &o.sql); err != nil {
			rows.Close()
			return nil, err
		}
		schema = append(schema, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range schema {
		o := &schema[i]
		if o.kind != "table" {
			continue
		}
		o.withoutRowid = strings.Contains(strings.ToUpper(o.sql), "WITHOUT ROWID")
		cols, aliased, err := columns(ctx, db, o.name)
		if err != nil {
			return nil, err
		}
		o.columns, o.rowid = cols, !o.withoutRowid && !aliased
	}
	return schema, nil
}

// columns returns a table's columns, and whether one is its rowid (a lone
// INTEGER PRIMARY KEY).
func columns(ctx context.Context, db *sql.DB, table string) ([]string, bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT name, type, pk FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var cols []string
	var pks int
	var intPK bool
	for rows.Next() {
		var name, typ string
		var pk int
		if err := rows.Scan(&name, &typ, &pk); err != nil {
			return nil, false, err
		}
		cols = append(cols, name)
		if pk > 0 {
			pks++
			intPK = strings.EqualFold(typ, "INTEGER")
		}
	}
	return cols, pks == 1 && intPK, rows.Err()
}

// ident quotes an SQL identifier.
func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// copyTable copies one table's readable rows.
func copyTable(ctx context.Context, src, dst *sql.DB, o object, progress func(string, int64)) (TableSalvage, error) {
	t := TableSalvage{Name: o.name}
	// Each value as an expression (+col), which has no declared type: the
	// driver then hands it over as stored (a DATETIME column's text is not
	// turned into a time and written back in another format).
	values := make([]string, len(o.columns))
	names := make([]string, len(o.columns))
	for i, c := range o.columns {
		values[i], names[i] = "+"+ident(c), ident(c)
	}
	if o.rowid {
		values, names = append([]string{"rowid"}, values...), append([]string{"rowid"}, names...)
	}
	insert := "INSERT OR IGNORE INTO " + ident(o.name) + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Repeat("?, ", len(names)-1) + "?)"
	if o.withoutRowid {
		// No rowid to seek past damage with: read until it stops.
		c, err := copyRows(ctx, src, dst, "SELECT "+strings.Join(values, ", ")+" FROM "+ident(o.name), insert, nil)
		t.Rows, t.BadRows = c.read-int64(c.refused), c.refused
		if err != nil {
			if !readErr(err) {
				return t, err
			}
			t.Stopped = err.Error()
		}
		return t, nil
	}
	sel := "SELECT rowid, " + strings.Join(values, ", ") + " FROM " + ident(o.name) + " WHERE rowid > ? ORDER BY rowid LIMIT "
	last := int64(math.MinInt64)
	for {
		if err := ctx.Err(); err != nil {
			return t, err
		}
		c, err := copyRows(ctx, src, dst, sel+fmt.Sprint(batch), insert, &last, last)
		t.Rows += c.read - int64(c.refused)
		t.BadRows += c.refused
		if progress != nil {
			progress(o.name, t.Rows)
		}
		switch {
		case err == nil && c.read < batch:
			return t, nil
		case err == nil:
			continue
		case !readErr(err):
			return t, err
		}
		// The next row could not be read. Its place may still be
		// readable (its contents damaged), or not even that.
		next := func(after int64) (int64, error) {
			var id int64
			err := src.QueryRowContext(ctx, "SELECT rowid FROM "+ident(o.name)+" WHERE rowid > ? ORDER BY rowid LIMIT 1", after).Scan(&id)
			return id, err
		}
		switch id, err := next(last); {
		case err == nil:
			t.BadRows++
			last = id
			continue
		case errors.Is(err, sql.ErrNoRows):
			return t, nil // the failure was past the last row (not expected)
		}
		upto, ok := pastDamage(last, func(after int64) bool {
			_, err := next(after)
			return err == nil || errors.Is(err, sql.ErrNoRows)
		})
		t.Gaps = append(t.Gaps, Gap{After: last, Upto: upto})
		if !ok {
			return t, nil
		}
		last = upto
	}
}

// copied is what one copyRows did.
type copied struct {
	read int64 // rows read
	// refused counts rows read that the new table would not take: their
	// damaged values break a constraint (NOT NULL, a unique key another
	// row holds).
	refused int
}

// copyRows runs a select of values (a rowid first when last is not nil,
// kept in *last as rows are read) and inserts each row it reads, in one
// transaction. It returns what it did, with the read error that
// stopped it if one did.
func copyRows(ctx context.Context, src, dst *sql.DB, sel, insert string, last *int64, args ...any) (c copied, err error) {
	rows, err := src.QueryContext(ctx, sel, args...)
	if err != nil {
		return c, readError{err}
	}
	defer rows.Close()
	tx, err := dst.BeginTx(ctx, nil)
	if err != nil {
		return c, err
	}
	defer tx.Rollback()
	cols, err := rows.Columns()
	if err != nil {
		return c, readError{err}
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	stmt, err := tx.PrepareContext(ctx, insert)
	if err != nil {
		return c, err
	}
	defer stmt.Close()
	var readErrAt error
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			readErrAt = err
			break
		}
		args := vals
		if last != nil {
			id, ok := vals[0].(int64)
			if !ok {
				readErrAt = fmt.Errorf("rowid %v is not a number", vals[0])
				break
			}
			*last, args = id, vals[1:]
		}
		res, err := stmt.ExecContext(ctx, args...)
		if err != nil {
			return copied{}, fmt.Errorf("insert: %w", err)
		}
		c.read++
		if k, _ := res.RowsAffected(); k == 0 {
			c.refused++
		}
	}
	if readErrAt == nil {
		readErrAt = rows.Err()
	}
	if err := tx.Commit(); err != nil {
		return copied{}, err
	}
	if readErrAt != nil {
		return c, readError{readErrAt}
	}
	return c, nil
}

// readError is an error reading the damaged database (as against writing
// the new one).
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

func readErr(err error) bool { return errors.As(err, new(readError)) }

// pastDamage finds where a table can be read again after last, whose next
// rows cannot be reached: it seeks further and further ahead until a seek
// works, then back to the nearest place that works. It reports false when
// nothing past last can be reached. Distances are unsigned: from the
// lowest rowid the probes cross zero on their way to the highest.
// works(after) says whether a seek past after succeeds.
func pastDamage(last int64, works func(after int64) bool) (int64, bool) {
	at := func(d uint64) int64 { return int64(uint64(last) + d) } // wraps as intended
	room := uint64(math.MaxInt64) - uint64(last)                  // how far past last rowids go
	var bad, good uint64                                          // distances from last
	found := false
	for d := uint64(1); ; {
		if works(at(d)) {
			good, found = d, true
			break
		}
		bad = d
		if d == room {
			break
		}
		if d > room/2 {
			d = room
		} else {
			d *= 2
		}
	}
	if !found {
		return math.MaxInt64, false
	}
	for good-bad > 1 { // works(at(good)), not works(at(bad))
		mid := bad + (good-bad)/2
		if works(at(mid)) {
			good = mid
		} else {
			bad = mid
		}
	}
	return at(good), true
}

// copySequences carries AUTOINCREMENT counters over, so no rowid is
// handed out again.
func copySequences(ctx context.Context, src, dst *sql.DB) error {
	var has int
	if err := dst.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_sequence'").Scan(&has); err != nil || has == 0 {
		return err
	}
	rows, err := src.QueryContext(ctx, "SELECT name, seq FROM sqlite_sequence")
	if err != nil {
		return nil // unreadable: the copied rows' own maximum stands
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var seq int64
		if rows.Scan(&name, &seq) != nil {
			return nil
		}
		if _, err := dst.ExecContext(ctx, "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", seq, name); err != nil {
			return err
		}
		if _, err := dst.ExecContext(ctx, "INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)", name, seq, name); err != nil {
			return err
		}
	}
	return nil
}

// dropOrphans deletes rows whose foreign key names no row, until none
// does (a deleted row may leave others orphaned), and says how many.
func dropOrphans(ctx context.Context, db *sql.DB) (int, error) {
	total := 0
	for {
		rows, err := db.QueryContext(ctx, "PRAGMA foreign_key_check")
		if err != nil {
			return total, err
		}
		type orphan struct {
			table string
			rowid sql.NullInt64
		}
		var found []orphan
		for rows.Next() {
			var o orphan
			var parent string
			var fk int
			if err := rows.Scan(&o.table, &o.rowid, &parent, &fk); err != nil {
				rows.Close()
				return total, err
			}
			found = append(found, o)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return total, err
		}
		n := 0
		for _, o := range found {
			if !o.rowid.Valid {
				continue // a table without rowids: left as it is
			}
			res, err := db.ExecContext(ctx, "DELETE FROM "+ident(o.table)+" WHERE rowid = ?", o.rowid.Int64)
			if err != nil {
				return total, err
			}
			k, _ := res.RowsAffected()
			n += int(k)
		}
		total += n
		if n == 0 {
			return total, nil
		}
	}
}
