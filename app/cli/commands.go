package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/shrimp-harness/shrimp/app"
)

// runCommands lists the saved commands (package commands) a request in a
// workspace may start from, or shows one filled in, to read before it is
// sent or to pipe into `shrimp chat -`.
func runCommands(_ context.Context, e *env, args []string) error {
	const usage = "commands list [--json] [--workspace DIR] | show NAME [ARGS…] [--workspace DIR]"
	if len(args) == 0 || args[0] != "list" && args[0] != "show" {
		return fmt.Errorf("%w: %s", errUsage, usage)
	}
	sub := args[0]
	fs := newFlags("commands " + sub)
	asJSON := fs.Bool("json", false, "print JSON")
	workspace := fs.String("workspace", "", "the workspace whose .claude/commands to look in with the user's (default: the current folder)")
	if err := parseInterleaved(fs, args[1:], "workspace"); err != nil {
		return err
	}
	if sub == "list" && fs.NArg() > 0 || sub == "show" && fs.NArg() == 0 {
		return fmt.Errorf("%w: %s", errUsage, usage)
	}
	dir, err := orHere(*workspace)
	if err != nil {
		return err
	}
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	found := a.Commands(dir)
	if sub == "show" {
		cmd, ok := found.Lookup(fs.Arg(0))
		if !ok {
			return fmt.Errorf("no command %s here (shrimp commands list names them)", fs.Arg(0))
		}
		text, notes := cmd.Fill(strings.Join(fs.Args()[1:], " "))
		for _, n := range notes {
			fmt.Fprintln(e.stderr, "note: "+n)
		}
		fmt.Fprintln(e.stdout, text)
		return nil
	}
	if *asJSON {
		return e.jsonOut().Encode(found)
	}
	for _, w := range found.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	if len(found.Commands) == 0 {
		fmt.Fprintf(e.stdout, "No saved commands. A command is a Markdown file whose text becomes the request (with $ARGUMENTS for what is typed after /NAME): put it in %s/commands, ~/.claude/commands or a workspace's .claude/commands.\n", a.Config.DataDir)
		return nil
	}
	for _, c := range found.Commands {
		name := "/" + c.Name
		if c.ArgumentHint != "" {
			name += " " + c.ArgumentHint
		}
		fmt.Fprintf(e.stdout, "%s  (%s, %s)\n  %s\n", name, c.Scope, c.File, firstLine(c.Description, 200))
	}
	return nil
}
