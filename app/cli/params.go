package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/model"
)

// paramRow is one sampling setting of `models params --json`.
type paramRow struct {
	Name  string   `json:"name"`
	Value *float64 `json:"value"` // what requests get; null: Ollama's default
	From  string   `json:"from"`  // "set" (by the user), "modelfile" or "ollama"
	About string   `json:"about"` // what it does
	Range string   `json:"range"` // the values it takes
}

// runModelParams is `models params MODEL [NAME=VALUE]... [--reset]`: a
// model's sampling settings, where each comes from, and setting them
// (NAME= goes back to the model's own).
func runModelParams(ctx context.Context, e *env, args []string) error {
	fs := newFlags("models params")
	asJSON := fs.Bool("json", false, "print JSON")
	reset := fs.Bool("reset", false, "clear every setting: the model's own apply")
	if err := parseInterleaved(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || *reset && fs.NArg() > 1 {
		return fmt.Errorf("%w: models params MODEL [NAME=VALUE]... | MODEL --reset", errUsage)
	}
	set, unset, err := model.ParseParams(fs.Args()[1:])
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	name := a.Model.Listed(ctx, fs.Arg(0)) // one setting however the name is typed
	if *reset {
		unset = nil
		for _, s := range model.ParamSpecs {
			unset = append(unset, s.Name)
		}
	}
	var mine model.Params
	if len(set) > 0 || len(unset) > 0 {
		mine, err = a.SetModelParams(ctx, name, set, unset)
	} else {
		mine, err = a.ModelParams(ctx, name)
	}
	if err != nil {
		return err
	}
	d, err := a.Model.Show(ctx, name)
	if err != nil && !errors.Is(err, model.ErrModelMissing) {
		fmt.Fprintf(e.stderr, "note: what %s's Modelfile sets is not known: %v\n", name, err)
	} else if err != nil {
		fmt.Fprintf(e.stderr, "note: %v\n", err)
	}
	var rows []paramRow
	for _, s := range model.ParamSpecs {
		r := paramRow{Name: s.Name, From: "ollama", About: s.About, Range: strconv.FormatFloat(s.Min, 'f', -1, 64) + " to " + strconv.FormatFloat(s.Max, 'f', -1, 64)}
		if v, ok := mine[s.Name]; ok {
			r.Value, r.From = &v, "set"
		} else if v, ok := d.Params[s.Name]; ok {
			r.Value, r.From = &v, "modelfile"
		}
		rows = append(rows, r)
	}
	if *asJSON {
		return e.jsonOut().Encode(rows)
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", name, summary(mine))
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tVALUE\tFROM\tRANGE\tWHAT IT DOES")
	for _, r := range rows {
		v := "default"
		if r.Value != nil {
			v = strconv.FormatFloat(*r.Value, 'g', -1, 64)
		}
		from := map[string]string{"set": "set here", "modelfile": "its Modelfile", "ollama": "Ollama"}[r.From]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, v, from, r.Range, r.About)
	}
	return tw.Flush()
}

// summary says what a model's requests are sent of the user's settings.
func summary(mine model.Params) string {
	if len(mine) == 0 {
		return "no sampling settings of yours; requests get the model's own (set one: NAME=VALUE)"
	}
	return "requests are sent " + mine.String() + " (NAME= goes back to the model's own)"
}
