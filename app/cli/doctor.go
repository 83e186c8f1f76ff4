package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/doctor"
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
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) > 0 {
		return fmt.Errorf("%w: doctor takes no arguments", errUsage)
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
