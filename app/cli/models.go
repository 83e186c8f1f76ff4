package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/shrimp-harness/shrimp/backend/model"
)

func runModels(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "list" {
		return fmt.Errorf("%w: the only models subcommand is list", errUsage)
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
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(models)
	}
	if len(models) == 0 {
		fmt.Fprintf(e.stdout, "No models installed on %s. Pull one with `ollama pull qwen3`.\n", mc.Host())
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFAMILY\tPARAMETERS\tQUANTIZATION\tSIZE")
	for _, m := range models {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Name, m.Family, m.ParameterSize, m.Quantization, humanBytes(m.Size))
	}
	return tw.Flush()
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
