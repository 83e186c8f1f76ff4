package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/procedures/chain"
	"github.com/shrimp-harness/shrimp/backend/procedures/share"
	"github.com/shrimp-harness/shrimp/internal/plural"
)

// exportProcedures is `procedures export [--examples] [FILE]`: the
// procedures file on standard output, or written whole to FILE (mode
// 0600: it holds your requests), saying how many on standard error.
func exportProcedures(ctx context.Context, e *env, a *app.App, args []string, examples bool) error {
	if len(args) > 1 {
		return fmt.Errorf("%w: procedures export takes at most one FILE", errUsage)
	}
	if len(args) == 0 || args[0] == "-" {
		n, err := a.ExportProcedures(ctx, e.stdout, examples)
		if err == nil {
			fmt.Fprintf(e.stderr, "shrimp: exported %s\n", plural.N(n, "procedure", "procedures"))
		}
		return err
	}
	n, err := a.ExportProceduresTo(ctx, args[0], examples)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "shrimp: exported %s to %s (import them with `shrimp procedures import %s`)\n", plural.N(n, "procedure", "procedures"), args[0], args[0])
	return nil
}

// importProcedures is `procedures import [--dry-run] [--json] FILE`: what
// was added, held already, and refused with why.
func importProcedures(ctx context.Context, e *env, a *app.App, path string, dry, asJSON bool) error {
	var got share.Imported
	var err error
	if path == "-" {
		var in io.Reader = os.Stdin
		if e.stdin != nil {
			in = e.stdin
		}
		got, err = a.ImportProcedures(ctx, in, dry)
	} else {
		got, err = a.ImportProceduresFrom(ctx, path, dry)
	}
	if err != nil {
		return err
	}
	if asJSON {
		return e.jsonOut().Encode(got)
	}
	verb := "added"
	if dry {
		verb = "would add"
	}
	fmt.Fprintf(e.stdout, "%s %s; %d held here already; %d refused\n", verb, plural.N(len(got.Added), "procedure", "procedures"), got.Duplicates, len(got.Refused))
	for _, p := range got.Added {
		fmt.Fprintf(e.stdout, "  %s  %s  (%s)\n", cmp.Or(p.ID, "+"), chain.String(p.Tools), firstLine(p.Trigger, 60))
	}
	for _, r := range got.Refused {
		fmt.Fprintf(e.stdout, "  refused %q: %s\n", r.Trigger, r.Why)
	}
	return nil
}
