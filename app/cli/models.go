package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"

	"github.com/shrimp-harness/shrimp/backend/model"
)

func runModels(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "ctx" {
		return runModelCtx(ctx, e, args[1:])
	}
	if len(args) > 0 && args[0] == "params" {
		return runModelParams(ctx, e, args[1:])
	}
	if len(args) == 0 || args[0] != "list" {
		return fmt.Errorf("%w: models subcommands are list, ctx and params", errUsage)
	}
	fs := newFlags("models list")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	mc, err := model.New(e.cfg.FromEnv().OllamaHost)
	if err != nil {
		return err
	}
	models, err := mc.List(ctx)
	if err != nil {
		return err
	}
	// What each is for, and its trained context where the list does not
	// say it (Ollama v0.24.0's does not), from /api/show: as the window's
	// Models view shows them.
	details := mc.ShowAll(ctx, lo.Map(models, func(m model.Info, _ int) string { return m.Name }))
	model.FillContext(models, details)
	if *asJSON {
		return e.jsonOut().Encode(models)
	}
	if len(models) == 0 {
		fmt.Fprintf(e.stdout, "No models installed on %s. Pull one with `ollama pull qwen3`.\n", mc.Shown())
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFAMILY\tPARAMETERS\tQUANTIZATION\tSIZE\tCONTEXT\tUSE")
	for _, m := range models {
		ctxLen := "-"
		if m.ContextLength > 0 {
			ctxLen = strconv.Itoa(m.ContextLength)
		}
		d, shown := details[m.Name]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.Name, m.Family, m.ParameterSize, m.Quantization, humanBytes(m.Size), ctxLen, modelUse(d, shown))
	}
	return tw.Flush()
}

// modelUse says what Shrimp can use a model for, from what /api/show said
// of it (shown false: nothing), in the window's Models view's words.
func modelUse(d model.Details, shown bool) string {
	use := "chat, tools in its prompt"
	switch {
	case !shown:
		return "-"
	case !d.Chats():
		return "recall (embedding: --embed-model)"
	case d.Tools():
		use = "chat with tools"
	}
	if d.ListsVision() {
		use += ", sees images (--image)"
	}
	if d.Thinks() {
		use += ", thinks (--think=off answers faster)"
	}
	return use
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// runModelCtx shows or sets a model's context size (num_ctx).
func runModelCtx(ctx context.Context, e *env, args []string) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("%w: models ctx MODEL [TOKENS]", errUsage)
	}
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	args[0] = a.Model.Listed(ctx, args[0]) // one setting however the name is typed
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 0 || (n > 0 && n < 512) {
			return fmt.Errorf("%w: TOKENS must be 0 (back to the default) or at least 512", errUsage)
		}
		if err := a.Store.SetNumCtx(ctx, args[0], n); err != nil {
			return err
		}
		if n == 0 {
			fmt.Fprintf(e.stdout, "%s: back to the default (%d, or less when the model was trained for less)\n", args[0], agent.DefaultNumCtx)
			return nil
		}
		fmt.Fprintf(e.stdout, "%s: %d tokens from the next request\n", args[0], n)
		// Ollama gives a model no more than it was trained for.
		if d, err := a.Model.Show(ctx, args[0]); err == nil && d.ContextLength > 0 && n > d.ContextLength {
			fmt.Fprintf(e.stderr, "note: %s was trained for %d tokens; Ollama gives it no more, so requests are fitted to %d\n", args[0], d.ContextLength, d.ContextLength)
		} else if errors.Is(err, model.ErrModelMissing) {
			fmt.Fprintf(e.stderr, "note: %v\n", err)
		}
		return nil
	}
	n, err := a.Store.NumCtx(ctx, args[0])
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(e.stdout, "%s: default (%d)\n", args[0], agent.DefaultNumCtx)
		return nil
	}
	fmt.Fprintf(e.stdout, "%s: %d\n", args[0], n)
	return nil
}
