package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/procedures/chain"
	"github.com/shrimp-harness/shrimp/backend/recalleval"
)

// procedureView is one row of `procedures list --json`.
type procedureView struct {
	ID           string   `json:"id"`
	Trigger      string   `json:"trigger"`
	Tools        []string `json:"tools"`
	Uses         int      `json:"uses"`
	Demerits     int      `json:"demerits"`
	Status       string   `json:"status"`
	MissingTools []string `json:"missing_tools"`
}

// procedureDetail is `procedures show --json`.
type procedureDetail struct {
	procedureView
	Triggers []string          `json:"triggers"`
	Examples []json.RawMessage `json:"examples"`
	Sessions []string          `json:"sessions"`
	Created  time.Time         `json:"created"`
	LastUsed time.Time         `json:"last_used"`
	Declined []string          `json:"declined"` // requests runs did not use it for: not offered for them until restored
	Runs     app.ProcedureRuns `json:"runs"`     // the run that taught it and the runs it was handed to
}

func view(p procedures.Procedure, has func(string) bool) procedureView {
	status, missing := procedures.Status(p, has)
	if missing == nil {
		missing = []string{}
	}
	return procedureView{ID: p.ID, Trigger: p.Trigger, Tools: p.Tools, Uses: p.Uses, Demerits: p.Demerits, Status: status, MissingTools: missing}
}

func runProcedures(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: procedures needs list, show, recall, forget, restore, worth, export, import or eval", errUsage)
	}
	sub, rest := args[0], args[1:]
	fs := newFlags("procedures " + sub)
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", 3, "recall: at most this many procedures")
	dataset := fs.String("dataset", "", "eval: the dataset (JSON Lines)")
	engine := fs.String("engine", "bleve", "eval: bleve, like or all")
	days := fs.Int("days", 30, "worth: the runs of the last this many days (0: all)")
	examples := fs.Bool("examples", false, "export: with each step's example arguments (paths, commands)")
	dry := fs.Bool("dry-run", false, "import: say what would be added, add nothing")
	if err := parseInterleaved(fs, rest, "limit", "dataset", "engine", "days"); err != nil {
		return err
	}
	if *limit < 1 || *limit > 100 {
		return fmt.Errorf("%w: --limit must be between 1 and 100, not %d", errUsage, *limit)
	}
	if *engine != "all" && !slices.Contains(recalleval.Engines, *engine) {
		return fmt.Errorf("%w: unknown --engine %q: use %s or all", errUsage, *engine, strings.Join(recalleval.Engines, ", "))
	}
	if sub == "eval" {
		return runEval(ctx, e, *dataset, *engine)
	}
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	mem, err := a.Memory(ctx)
	if err != nil {
		return err
	}
	has := a.ToolChecker()
	switch sub {
	case "list":
		var out []procedureView
		for _, p := range mem.List() {
			out = append(out, view(p, has))
		}
		if out == nil {
			out = []procedureView{}
		}
		if *asJSON {
			return e.jsonOut().Encode(out)
		}
		if len(out) == 0 {
			fmt.Fprintln(e.stdout, "No procedures yet. Shrimp learns one after a request that takes 3 or more tool calls.")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATUS\tUSES\tDEMERITS\tCHAIN\tTRIGGER")
		for _, v := range out {
			status := v.Status
			if len(v.MissingTools) > 0 {
				status += " (missing " + strings.Join(v.MissingTools, ", ") + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", v.ID, status, v.Uses, v.Demerits, chain.String(v.Tools), firstLine(v.Trigger, 60))
		}
		return tw.Flush()
	case "show":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: procedures show needs one ID", errUsage)
		}
		p, err := mem.Get(fs.Arg(0))
		if err != nil {
			return err
		}
		// Examples are bounded when learned (jsoncut), older ones by store migration 19.
		d := procedureDetail{procedureView: view(p, has), Triggers: p.Triggers, Examples: append([]json.RawMessage{}, p.Examples...), Sessions: p.Sessions, Created: p.Created, LastUsed: p.LastUsed,
			Declined: a.DeclinedRequests(ctx, p.ID)}
		if d.Sessions == nil {
			d.Sessions = []string{}
		}
		if d.Runs, err = a.ProcedureRuns(ctx, p.ID); err != nil {
			return err
		}
		if *asJSON {
			return e.jsonOut().Encode(d)
		}
		fmt.Fprintf(e.stdout, "%s  [%s]  uses %d, demerits %d\nchain: %s\n", d.ID, d.Status, d.Uses, d.Demerits, chain.String(d.Tools))
		// Each step with the arguments it was called with when learned:
		// what the model is handed beside the chain.
		for i, tool := range d.Tools {
			args := "(no example)"
			if i < len(d.Examples) && len(d.Examples[i]) > 0 {
				args = callArgs(d.Examples[i], 100)
			}
			fmt.Fprintf(e.stdout, "  %d. %s %s\n", i+1, tool, args)
		}
		for _, t := range d.Triggers {
			fmt.Fprintf(e.stdout, "trigger: %s\n", t)
		}
		for _, r := range d.Declined {
			fmt.Fprintf(e.stdout, "not offered for (declined by a run or by you; restore offers it again): %s\n", r)
		}
		return printRuns(e.stdout, d.Runs, d.ID)
	case "worth":
		if *days < 0 {
			return fmt.Errorf("%w: --days must be 0 (all) or more, not %d", errUsage, *days)
		}
		return runWorth(ctx, e, a, *days, *asJSON)
	case "recall":
		query := strings.TrimSpace(strings.Join(fs.Args(), " "))
		if query == "" {
			return fmt.Errorf("%w: procedures recall needs a request", errUsage)
		}
		hits, err := mem.Recall(ctx, query, has, *limit)
		if err != nil {
			return err
		}
		type hitView struct {
			ID      string   `json:"id"`
			Trigger string   `json:"trigger"`
			Tools   []string `json:"tools"`
			Score   float64  `json:"score"`
		}
		out := []hitView{}
		for _, h := range hits {
			out = append(out, hitView{ID: h.Procedure.ID, Trigger: h.Procedure.Trigger, Tools: h.Procedure.Tools, Score: h.Score})
		}
		if *asJSON {
			return e.jsonOut().Encode(out)
		}
		if len(out) == 0 {
			fmt.Fprintln(e.stdout, "No procedure fits that request.")
		}
		for _, h := range out {
			fmt.Fprintf(e.stdout, "%.2f  %s  %s  (%s)\n", h.Score, h.ID, chain.String(h.Tools), firstLine(h.Trigger, 60))
		}
		return nil
	case "export":
		return exportProcedures(ctx, e, a, fs.Args(), *examples)
	case "import":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: procedures import needs one FILE (- for standard input)", errUsage)
		}
		return importProcedures(ctx, e, a, fs.Arg(0), *dry, *asJSON)
	case "forget", "restore":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: procedures %s needs one ID", errUsage, sub)
		}
		var p procedures.Procedure
		if sub == "forget" {
			p, err = mem.Forget(ctx, fs.Arg(0), true)
		} else {
			p, err = a.RestoreProcedure(ctx, fs.Arg(0))
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s is now %s\n", p.ID, view(p, has).Status)
		return nil
	}
	return fmt.Errorf("%w: unknown procedures subcommand %q", errUsage, sub)
}

func runEval(ctx context.Context, e *env, path, engine string) error {
	if path == "" {
		return fmt.Errorf("%w: procedures eval needs --dataset FILE", errUsage)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open dataset: %w", err)
	}
	defer f.Close()
	ds, err := recalleval.LoadDataset(f)
	if err != nil {
		return err
	}
	engines := []string{engine}
	if engine == "all" {
		engines = recalleval.Engines
	}
	// The embedding model comes from --embed-model or SHRIMP_EMBED_MODEL
	// only, never the window's saved setting: a measurement says what it
	// measured.
	var emb procedures.Embedder
	if cfg := e.cfg.FromEnv(); cfg.EmbedModel != "" {
		mc, err := model.New(cfg.OllamaHost)
		if err != nil {
			return err
		}
		emb = model.Embedder{Client: mc, Model: cfg.EmbedModel}
	}
	return recalleval.Eval(ctx, ds, engines, e.stdout, emb)
}
