package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/doctor"
	"github.com/shrimp-harness/shrimp/internal/plural"
)

// errChecksFailed makes the exit status 1 without another message: the
// report already says what failed.
var errChecksFailed = errors.New("some checks failed")

// runDoctor checks Ollama, the models, the data directory, the database,
// the procedure index, the window's libraries, the encoder and the disk.
func runDoctor(ctx context.Context, e *env, args []string) error {
	fs := newFlags("doctor")
	asJSON := fs.Bool("json", false, "print an array of {check, status, detail, fix}")
	rebuild := fs.Bool("rebuild-index", false, "rebuild the procedure search index from the database first")
	salvage := fs.Bool("salvage", false, "replace a damaged database with what can be read of it first (the damaged one is kept)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) > 0 {
		return fmt.Errorf("%w: doctor takes no arguments", errUsage)
	}
	if *salvage {
		if err := salvageDatabase(ctx, e); err != nil {
			return err
		}
	}
	var results []doctor.Result
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		results = app.DoctorWithout(ctx, e.cfg, err)
	} else {
		defer a.Close(context.Background())
		if *rebuild {
			mem, err := a.Memory(ctx)
			if err == nil {
				err = a.MemoryShared() // the index on disk is the other process's
			}
			if err != nil {
				return fmt.Errorf("rebuild the index: %w", err)
			}
			if err := mem.Rebuild(ctx); err != nil {
				return fmt.Errorf("rebuild the index: %w", err)
			}
			fmt.Fprintln(e.stderr, "rebuilt the procedure index from the database")
		}
		results = a.Doctor(ctx)
	}
	if *asJSON {
		if err := e.jsonOut().Encode(results); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			fmt.Fprintf(e.stdout, "%-4s  %-16s  %s\n", r.Status, r.Check, r.Detail)
			if r.Fix != "" && r.Status != doctor.Pass {
				fmt.Fprintf(e.stdout, "      %-16s  → %s\n", "", r.Fix)
			}
		}
	}
	if doctor.Failed(results) {
		return errChecksFailed
	}
	return nil
}

// maxGapsShown is how many of a table's unreachable ranges a salvage
// names.
const maxGapsShown = 4

// salvageDatabase runs app.SalvageDatabase and says what it kept and lost.
func salvageDatabase(ctx context.Context, e *env) error {
	shown := time.Now()
	got, err := app.SalvageDatabase(ctx, e.cfg, func(table string, rows int64) {
		if time.Since(shown) > 2*time.Second {
			shown = time.Now()
			fmt.Fprintf(e.stderr, "salvaging %s: %d rows so far\n", table, rows)
		}
	})
	if err != nil {
		return fmt.Errorf("salvage: %w", err)
	}
	fmt.Fprintf(e.stdout, "Salvaged %s: a new database holds what could be read of it.\n", got.Database)
	for _, t := range got.Tables {
		if t.Rows == 0 && !t.Lost() {
			continue
		}
		line := fmt.Sprintf("  %-18s %s copied", t.Name, plural.N(int(t.Rows), "row", "rows"))
		if t.BadRows > 0 {
			line += fmt.Sprintf("; %s unreadable", plural.N(t.BadRows, "row", "rows"))
		}
		for i, g := range t.Gaps {
			if i == maxGapsShown {
				line += fmt.Sprintf("; and %d more such ranges", len(t.Gaps)-i)
				break
			}
			switch {
			case g.After == math.MinInt64 && g.Upto == math.MaxInt64:
				line += "; none of its rows could be reached"
			case g.After == math.MinInt64:
				line += fmt.Sprintf("; its rows up to number %d could not be reached", g.Upto)
			case g.Upto == math.MaxInt64:
				line += fmt.Sprintf("; its rows past number %d could not be reached", g.After)
			default:
				line += fmt.Sprintf("; its rows %d to %d could not be reached", g.After+1, g.Upto)
			}
		}
		if t.Stopped != "" {
			line += "; read only up to damage (" + t.Stopped + ")"
		}
		fmt.Fprintln(e.stdout, line)
	}
	if got.Restored > 0 {
		fmt.Fprintf(e.stdout, "  %s whose record was lost listed again, from their messages and events (title, model, times; token counts from zero)\n", plural.N(got.Restored, "session", "sessions"))
	}
	if got.Orphans > 0 {
		fmt.Fprintf(e.stdout, "  %s left out: what they belonged to (a session, a procedure) could not be read\n", plural.N(got.Orphans, "row", "rows"))
	}
	if !got.Lost() {
		fmt.Fprintln(e.stdout, "Every row could be read.")
	}
	fmt.Fprintf(e.stdout, "The damaged database is kept as %s (delete it once you are satisfied); the procedure index is rebuilt from the new one.\n\n", got.Damaged)
	return nil
}
