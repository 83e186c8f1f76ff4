package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/shrimp-harness/shrimp/app"
)

// runSkills lists the skills a request in a workspace would be offered.
func runSkills(_ context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "list" {
		return fmt.Errorf("%w: skills list [--json] [--workspace DIR]", errUsage)
	}
	fs := newFlags("skills list")
	asJSON := fs.Bool("json", false, "print JSON")
	workspace := fs.String("workspace", "", "the workspace whose skills to list with the user's (default: the current folder)")
	if err := parseInterleaved(fs, args[1:], "workspace"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: skills list takes no arguments", errUsage)
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
	found := a.Skills(dir)
	if *asJSON {
		return e.jsonOut().Encode(found)
	}
	for _, w := range found.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	if len(found.Skills) == 0 {
		fmt.Fprintf(e.stdout, "No skills. A skill is a folder with a SKILL.md (front matter: name, description): put it in %s/skills, ~/.agents/skills or a workspace's .agents/skills.\n", a.Config.DataDir)
		return nil
	}
	for _, s := range found.Skills {
		fmt.Fprintf(e.stdout, "%s  (%s, %s)\n  %s\n", s.Name, s.Scope, s.Dir, firstLine(s.Description, 200))
	}
	return nil
}

// orHere is a --workspace flag's folder: as given, or the current one.
func orHere(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return os.Getwd()
}
