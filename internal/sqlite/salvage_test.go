package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// salvageSchema is a small database shaped like Shrimp's: a parent table
// with a text key, children with a rowid alias and a foreign key, an
// AUTOINCREMENT counter, a unique index, a table with its own rowid, and
// a trigger.
var salvageSchema = []string{
	`CREATE TABLE parents (id TEXT PRIMARY KEY, title TEXT NOT NULL, made DATETIME)`,
	`CREATE TABLE kids (id INTEGER PRIMARY KEY AUTOINCREMENT, parent_id TEXT NOT NULL REFERENCES parents(id) ON DELETE CASCADE, body TEXT, blob BLOB, n REAL)`,
	`CREATE UNIQUE INDEX kids_parent_n ON kids(parent_id, n)`,
	`CREATE TABLE notes (key TEXT NOT NULL, value TEXT)`,
	`CREATE TABLE audit (what TEXT)`,
	`CREATE TRIGGER parents_gone AFTER DELETE ON parents BEGIN INSERT INTO audit VALUES (old.id); END`,
}

// fillSalvageDB makes the database at path with parents parents, each
// with kids children (every seventh with a body long enough to overflow
// its page), and returns every table's rows as dumped.
func fillSalvageDB(t *testing.T, path string, parents, kids int) map[string]map[string]string {
	t.Helper()
	g, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := g.DB()
	for _, q := range salvageSchema {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	tx, _ := db.Begin()
	for p := range parents {
		id := fmt.Sprintf("s%04d", p)
		if _, err := tx.Exec("INSERT INTO parents VALUES (?, ?, ?)", id, "request \"quoted\" 'and' \u00e9 "+id, "2026-12-05 10:00:00.123456789+00:00"); err != nil {
			t.Fatal(err)
		}
		for k := range kids {
			body := fmt.Sprintf("kid %d of %s", k, id)
			if k%7 == 0 {
				body = strings.Repeat(body+" ", 600) // ~10 KB: overflow pages
			}
			blob := []byte{0, byte(k), 0xff, '\n'}
			if _, err := tx.Exec("INSERT INTO kids (parent_id, body, blob, n) VALUES (?, ?, ?, ?)", id, body, blob, float64(k)+0.5); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tx.Exec("INSERT INTO notes VALUES (?, NULL)", id); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// Some rowids of its own and a counter past the last row.
	if _, err := db.Exec("DELETE FROM notes WHERE rowid % 5 = 0"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE sqlite_sequence SET seq = seq + 100 WHERE name = 'kids'"); err != nil {
		t.Fatal(err)
	}
	want := dump(t, db)
	db.Close() // checkpointed: everything is in the file
	return want
}

// exact renders a column's value so two values render alike only when
// they are the same: type and bits (quote() gives a REAL 15 digits).
func exact(col string) string {
	c := ident(col)
	return "typeof(" + c + ") || ':' || CASE typeof(" + c + ") WHEN 'real' THEN printf('%.17g', " + c + ") ELSE quote(" + c + ") END"
}

// rendered is the SQL expression that renders a row of table (exact).
func rendered(t *testing.T, db *sql.DB, table string) string {
	t.Helper()
	cols, _, err := columns(context.Background(), db, table)
	if err != nil {
		t.Fatal(err)
	}
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = exact(c)
	}
	return strings.Join(q, " || ',' || ")
}

// dump returns each table's rows, keyed by rowid, as exact renders.
func dump(t *testing.T, db *sql.DB) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, table := range []string{"parents", "kids", "notes", "audit", "sqlite_sequence"} {
		rows, err := db.Query("SELECT rowid, " + rendered(t, db, table) + " FROM " + ident(table))
		if err != nil {
			t.Fatal(err)
		}
		out[table] = map[string]string{}
		for rows.Next() {
			var id, row string
			if err := rows.Scan(&id, &row); err != nil {
				t.Fatal(err)
			}
			out[table][id] = row
		}
		rows.Close()
	}
	return out
}

func openDump(t *testing.T, path string) (map[string]map[string]string, *sql.DB) {
	t.Helper()
	g, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := g.DB()
	t.Cleanup(func() { db.Close() })
	return dump(t, db), db
}

// TestSalvageWholeDatabase copies an undamaged database exactly: every
// row with its rowid and values, the counter, the indexes and the trigger.
func TestSalvageWholeDatabase(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	want := fillSalvageDB(t, from, 40, 20)
	got, err := Salvage(context.Background(), from, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Lost() {
		t.Errorf("an undamaged database lost rows: %+v", got)
	}
	have, db := openDump(t, to)
	for table, rows := range want {
		if len(have[table]) != len(rows) {
			t.Errorf("%s: %d rows, want %d", table, len(have[table]), len(rows))
		}
		for id, row := range rows {
			if have[table][id] != row {
				t.Errorf("%s rowid %s:\n got %.200s\nwant %.200s", table, id, have[table][id], row)
				break
			}
		}
	}
	var objects string
	if err := db.QueryRow("SELECT group_concat(type || ':' || name, ' ') FROM (SELECT type, name FROM sqlite_master ORDER BY name)").Scan(&objects); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"index:kids_parent_n", "trigger:parents_gone", "table:sqlite_sequence"} {
		if !strings.Contains(objects, o) {
			t.Errorf("schema lacks %s: %s", o, objects)
		}
	}
	// The unique index holds, the trigger fires, the counter goes on.
	if _, err := db.Exec("INSERT INTO kids (parent_id, body, n) VALUES ('s0001', 'x', 1.5)"); err == nil {
		t.Error("the unique index was not carried over")
	}
	if _, err := db.Exec("INSERT INTO kids (parent_id, body, n) VALUES ('s0001', 'x', 99.5)"); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := db.QueryRow("SELECT max(id) FROM kids").Scan(&id); err != nil || id != 40*20+101 {
		t.Errorf("new kid's id %d (%v), want %d: the AUTOINCREMENT counter was not carried over", id, err, 40*20+101)
	}
	if _, err := db.Exec("DELETE FROM parents WHERE id = 's0002'"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM audit").Scan(&n); err != nil || n != 1 {
		t.Errorf("trigger: %d audit rows (%v)", n, err)
	}
}

// TestSalvageDamagedDatabase overwrites pages in the middle of a
// database with noise, as a failing disk or a torn copy would, and checks
// the salvage copies only true rows, most of them, says what it could not
// read, and leaves no child without its parent.
func TestSalvageDamagedDatabase(t *testing.T) {
	for _, c := range []struct {
		name        string
		first, span int // pages damaged, counted from the end of the file
	}{
		{"a few pages", 40, 3},
		{"a run of pages", 120, 30},
		{"scattered pages", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			from, to := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
			want := fillSalvageDB(t, from, 60, 40)
			damage(t, from, c.first, c.span)
			if g, err := Open(from); err == nil {
				db, _ := g.DB()
				var check string
				db.QueryRow("PRAGMA integrity_check(1)").Scan(&check)
				db.Close()
				if check == "ok" {
					t.Fatal("the damage did not damage the database")
				}
			}
			got, err := Salvage(context.Background(), from, to, nil)
			if err != nil {
				t.Fatal(err)
			}
			have, db := openDump(t, to)
			g, err := Open(from)
			if err != nil {
				t.Fatal(err)
			}
			damaged, _ := g.DB()
			defer damaged.Close()
			total, kept, asRead := 0, 0, 0
			for table, rows := range have {
				for id, row := range rows {
					if table == "sqlite_sequence" || want[table][id] == row {
						continue
					}
					// SQLite keeps no checksums: a value spilling onto a
					// damaged overflow page reads as the damage left it,
					// from the damaged database too, and is copied so.
					if read := row1(t, damaged, table, id); read != row {
						t.Errorf("%s rowid %s is neither the row nor what the damaged database reads (from byte %d):\n got %.200q\nwant %.200q\nread %.200q", table, id, diffAt(row, read), row[diffAt(row, read):], want[table][id][diffAt(row, read):], read[diffAt(row, read):])
					}
					asRead++
				}
			}
			for _, table := range []string{"parents", "kids", "notes"} {
				total += len(want[table])
				kept += len(have[table])
			}
			if !got.Lost() {
				t.Errorf("the salvage of a damaged database says nothing was lost: %+v", got)
			}
			if kept < total/2 {
				t.Errorf("kept %d of %d rows", kept, total)
			}
			var orphans int
			if err := db.QueryRow("SELECT count(*) FROM kids WHERE parent_id NOT IN (SELECT id FROM parents)").Scan(&orphans); err != nil || orphans != 0 {
				t.Errorf("%d kids without their parent (%v)", orphans, err)
			}
			t.Logf("kept %d of %d rows (%d as damaged on overflow pages); %+v", kept, total, asRead, got)
		})
	}
}

func diffAt(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// row1 reads one row of table as dump does; "" when it cannot be read.
func row1(t *testing.T, db *sql.DB, table, id string) string {
	t.Helper()
	var row string
	db.QueryRow("SELECT "+rendered(t, db, table)+" FROM "+ident(table)+" WHERE rowid = ?", id).Scan(&row)
	return row
}

// damage overwrites span pages starting first pages before the end of
// the file with noise; span 0 damages every 23rd page past the first ten.
func damage(t *testing.T, path string, first, span int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	pages := int(info.Size() / 4096)
	r := rand.New(rand.NewPCG(3, 4))
	noise := func(page int) {
		b := make([]byte, 4096)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if _, err := f.WriteAt(b, int64(page)*4096); err != nil {
			t.Fatal(err)
		}
	}
	if span == 0 {
		for p := 10; p < pages; p += 23 {
			noise(p)
		}
		return
	}
	for p := pages - first; p < pages-first+span; p++ {
		noise(p)
	}
}

// TestSalvageNoSchema refuses a file whose schema cannot be read, and
// leaves nothing behind.
func TestSalvageNoSchema(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	if err := os.WriteFile(from, []byte("SQLite format 3\x00"+strings.Repeat("x", 9000)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Salvage(context.Background(), from, to, nil); err == nil {
		t.Fatal("salvaged a file with no readable schema")
	}
	if _, err := os.Stat(to); !os.IsNotExist(err) {
		t.Errorf("left %s behind: %v", to, err)
	}
	if _, err := Salvage(context.Background(), from, from, nil); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("salvage over an existing file: %v", err)
	}
}

// TestPastDamage finds the first place a seek works again, from anywhere,
// the lowest rowid included, in few seeks.
func TestPastDamage(t *testing.T) {
	for _, c := range []struct {
		name       string
		last, from int64 // seeks past from work
		want       int64
		ok         bool
	}{
		{"one bad row", 41, 42, 42, true},
		{"a page", 100, 117, 117, true},
		{"from the lowest rowid", math.MinInt64, 9, 9, true},
		{"from the lowest, at once", math.MinInt64, math.MinInt64 + 1, math.MinInt64 + 1, true},
		{"only the end", 5, math.MaxInt64, math.MaxInt64, true},
		{"from the lowest to the end", math.MinInt64, math.MaxInt64, math.MaxInt64, true},
		{"nothing", 5, 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			seeks := 0
			got, ok := pastDamage(c.last, func(after int64) bool {
				seeks++
				return c.ok && after >= c.from
			})
			if ok != c.ok || (ok && got != c.want) {
				t.Errorf("pastDamage = %d, %v; want %d, %v", got, ok, c.want, c.ok)
			}
			if seeks > 130 {
				t.Errorf("%d seeks", seeks)
			}
		})
	}
}
