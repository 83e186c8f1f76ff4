package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/metrics"
	"github.com/shrimp-harness/shrimp/internal/howlong"
)

// printRuns writes what `procedures show` says of a procedure's worth:
// the run that taught it and each run it was handed to, with their
// measures, as the window's procedure page shows them.
func printRuns(w io.Writer, runs app.ProcedureRuns, id string) error {
	if runs.Learned == nil && len(runs.Uses) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nRUN\tWHEN\tTURNS\tTOOL CALLS\tWALL\tREQUEST")
	row := func(kind string, r metrics.Run) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", kind, r.Started.Local().Format("2006-01-02 15:04"), r.Turns, r.ToolCalls, howlong.Millis(r.WallMS), firstLine(r.Request, 60))
	}
	if runs.Learned != nil {
		row("taught it", *runs.Learned)
	}
	for _, r := range runs.Uses {
		kind := "recalled, not followed"
		if r.Followed != nil && *r.Followed == id {
			kind = "followed it"
		}
		row(kind, r)
	}
	return tw.Flush()
}

// runWorth is `procedures worth`: the runs of the last days days (0:
// all) that were handed a procedure beside those that were not, and the
// turns each procedure's followed runs saved.
func runWorth(ctx context.Context, e *env, a *app.App, days int, asJSON bool) error {
	c, err := a.Worth(ctx, days)
	if err != nil {
		return err
	}
	if asJSON {
		return e.jsonOut().Encode(c)
	}
	span := "all runs"
	if days > 0 {
		span = fmt.Sprintf("the last %d days", days)
	}
	if c.With.Runs+c.Without.Runs == 0 {
		fmt.Fprintf(e.stdout, "No runs measured in %s.\n", span)
		return nil
	}
	fmt.Fprintf(e.stdout, "Runs with a recalled procedure and without, %s. An observational comparison: the two groups are different requests, so it shows a tendency, not a cause.\n\n", span)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\truns\tmedian turns\tmedian tool calls\tmedian malformed\tmedian wall\tended with an answer\t")
	for _, g := range []struct {
		name string
		g    metrics.Group
	}{{"with recall", c.With}, {"without", c.Without}} {
		if g.g.Runs == 0 { // no medians: dashes, not zeros that read as measured
			fmt.Fprintf(tw, "%s\t0\t–\t–\t–\t–\t–\t\n", g.name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%g\t%g\t%g\t%s\t%.0f%%\t\n", g.name, g.g.Runs, g.g.Turns, g.g.ToolCalls, g.g.Malformed, howlong.Millis(int64(g.g.WallMS)), 100*g.g.Answered)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(c.Saved) == 0 {
		return nil
	}
	fmt.Fprintln(e.stdout, "\nTurns saved by each procedure's followed runs, against the median run without recall (negative: cost):")
	for _, id := range slices.Sorted(maps.Keys(c.Saved)) {
		fmt.Fprintf(e.stdout, "  %s  %g\n", id, c.Saved[id])
	}
	return nil
}
