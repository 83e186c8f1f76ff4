package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/facts"
	"github.com/shrimp-harness/shrimp/backend/injection"
	"github.com/shrimp-harness/shrimp/backend/store"
)

func runFacts(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: facts needs set, approve, delete, search or list", errUsage)
	}
	sub := args[0]
	fs := newFlags("facts " + sub)
	asJSON := fs.Bool("json", false, "print JSON")
	source := fs.String("source", "the user (CLI)", "set: where the fact comes from")
	if err := parseInterleaved(fs, args[1:], "source"); err != nil {
		return err
	}
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	fm, err := a.Facts(ctx)
	if err != nil {
		return err
	}
	print := func(list []store.Fact) error {
		if list == nil {
			list = []store.Fact{}
		}
		if *asJSON {
			return e.jsonOut().Encode(list)
		}
		if len(list) == 0 {
			fmt.Fprintln(e.stdout, "No facts.")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE\tFLAGGED")
		for _, f := range list {
			flag := ""
			switch {
			case f.Flagged && f.Approved:
				flag = "approved by you: used in prompts as quoted data"
			case f.Flagged:
				flag = "yes: reads like instructions; not used in prompts until you run `shrimp facts approve " + f.Key + "`"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Key, firstLine(f.Value, 60), f.Source, flag)
		}
		return tw.Flush()
	}
	switch sub {
	case "set":
		if fs.NArg() < 2 {
			return fmt.Errorf("%w: facts set KEY VALUE", errUsage)
		}
		f, err := fm.Set(ctx, fs.Arg(0), strings.Join(fs.Args()[1:], " "), *source)
		if err != nil {
			return err
		}
		a.Bus.Publish(facts.UpdatedEvent(f))
		if f.Flagged {
			fmt.Fprintf(e.stdout, "stored %s, flagged (%s): it reads like instructions to the agent, so it is not put into a prompt until you run `shrimp facts approve %s`\n", f.Key, strings.Join(injection.Classes(f.Key+" "+f.Value), ", "), f.Key)
		} else {
			fmt.Fprintf(e.stdout, "stored %s\n", f.Key)
		}
		if n := a.SecretFactNote(f.Key, f.Value); n != "" {
			fmt.Fprintf(e.stderr, "note: %s (shrimp facts delete %s)\n", n, f.Key)
		}
		return nil
	case "approve":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: facts approve KEY", errUsage)
		}
		f, err := fm.Approve(ctx, fs.Arg(0))
		if err != nil {
			return err
		}
		a.Bus.Publish(facts.UpdatedEvent(f))
		fmt.Fprintf(e.stdout, "approved %s: it goes into prompts as quoted data from now on\n", f.Key)
		return nil
	case "delete":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: facts delete KEY", errUsage)
		}
		if err := fm.Delete(ctx, fs.Arg(0)); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "deleted %s\n", fs.Arg(0))
		return nil
	case "search":
		q := strings.TrimSpace(strings.Join(fs.Args(), " "))
		if q == "" {
			return fmt.Errorf("%w: facts search QUERY", errUsage)
		}
		list, err := fm.Search(q, 20)
		if err != nil {
			return err
		}
		return print(list)
	case "list":
		return print(fm.List())
	}
	return fmt.Errorf("%w: unknown facts subcommand %q", errUsage, sub)
}
