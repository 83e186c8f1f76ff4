package cli

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/spell"
	"github.com/shrimp-harness/shrimp/internal/datadir"
	"github.com/shrimp-harness/shrimp/internal/plural"
)

// runHooks manages the commands attached to events (hooks.json).
func runHooks(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: hooks needs list, add, import, try, timeout or remove", errUsage)
	}
	sub, args := args[0], args[1:]
	var command []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
	}
	fs := newFlags("hooks " + sub)
	asJSON := fs.Bool("json", false, "print JSON")
	tool := fs.String("tool", "", "add: pre-tool-call and post-tool-call only, for tools matching this pattern (shell.run, mcp.files.*); session-start: startup or resume only")
	timeout := fs.Float64("timeout", 0, "add: seconds the hook may run (default 5; 30 for a prompt)")
	prompt := fs.String("prompt", "", "add: a question for the request's model instead of a command (pre-request, pre-tool-call, post-tool-call and pre-run-end; the event's JSON where it says $ARGUMENTS, else after it): its answer {\"ok\": false, \"reason\": …} works as exit status 2")
	dry := fs.Bool("dry-run", false, "import: say what would be added, and add nothing")
	callArgs := fs.String("args", "", "try: the call's arguments (JSON; default {\"command\": \"ls\"})")
	text := fs.String("text", "", "try: the request")
	answer := fs.String("answer", "", "try: the model's answer (pre-run-end; default Done.)")
	output := fs.String("output", "", "try: the call's output (post-tool-call)")
	workspace := fs.String("workspace", "", "try: the folder the hook runs in (default: here)")
	if err := parseInterleaved(fs, args, "tool", "timeout", "prompt", "args", "text", "answer", "output", "workspace"); err != nil {
		return err
	}
	rest := fs.Args()
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	file := filepath.Join(a.Config.DataDir, hooks.FileName)
	if sub == "add" || sub == "remove" || sub == "timeout" {
		// Held from the read to the write: the window or another terminal
		// changing the file meanwhile would lose its change, or this one.
		unlock, err := datadir.Lock(file, datadir.EditWait)
		if err != nil {
			return err
		}
		defer unlock()
	}
	cfg, err := hooks.Load(file)
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		if len(rest) > 0 {
			return fmt.Errorf("%w: hooks list takes no arguments", errUsage)
		}
		if *asJSON {
			return e.jsonOut().Encode(cfg.Hooks)
		}
		if len(cfg.Hooks) == 0 {
			fmt.Fprintln(e.stdout, "No hooks. Add one with `shrimp hooks add EVENT -- COMMAND ARGS…` (EVENT: an event type such as agent:run-ended, or session-start, pre-request, pre-tool-call, post-tool-call or pre-run-end).")
			return nil
		}
		for _, h := range cfg.Hooks {
			on := h.On()
			state := ""
			if h.FailClosed {
				state = " (fails closed: an error denies)"
			}
			if h.Disabled {
				state += " (disabled)"
			}
			env := ""
			for _, k := range slices.Sorted(maps.Keys(h.Env)) {
				env += k + "=" + h.Env[k] + " "
			}
			fmt.Fprintf(e.stdout, "%s  %s  %s%s%s\n", h.ID, on, env, h.Runs(), state)
		}
		return nil
	case "add":
		if len(rest) != 1 || (len(command) == 0) == (*prompt == "") {
			return fmt.Errorf("%w: hooks add EVENT [--tool PATTERN] [--timeout SECONDS] (-- COMMAND ARGS… | --prompt QUESTION)", errUsage)
		}
		h := hooks.Hook{Event: rest[0], Tool: *tool, Timeout: *timeout, Prompt: strings.TrimSpace(*prompt)}
		var anchored []string
		wd, err := os.Getwd()
		if len(command) > 0 {
			h.Command, h.Args = command[0], command[1:]
			if err == nil {
				h, anchored = h.Anchored(wd)
			}
		}
		if h, err = cfg.Add(h); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if err := cfg.Save(file); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "added hook %s on %s\n", h.ID, h.Event)
		for _, p := range anchored {
			fmt.Fprintf(e.stderr, "note: %s is kept as %s (a hook runs in each request's workspace, where the relative path would name another file)\n", p, filepath.Join(wd, p))
		}
		if h.Prompt != "" {
			fmt.Fprintf(e.stderr, "note: the request's model answers it, a model call of its own each time it runs (`shrimp hooks try %s` asks it now)\n", h.ID)
		} else if !h.Findable(exec.LookPath) {
			fmt.Fprintf(e.stderr, "note: %s is not found here (give its full path, or install it); until it is, %s\n", h.Program(), h.Unstartable())
		} else if why := h.ScriptProblem(exec.LookPath); why != "" {
			fmt.Fprintf(e.stderr, "note: %s; until it can start, %s\n", why, h.Unstartable())
		}
		if !hooks.InLoop(h.Event) && !app.KnownEvent(h.Event) {
			if near := nearestEvent(h.Event); near != "" {
				fmt.Fprintf(e.stderr, "note: %s is not an event Shrimp publishes: did you mean %s? (shrimp hooks remove %s, then add it again)\n", h.Event, near, h.ID)
			} else {
				fmt.Fprintf(e.stderr, "note: %s is not an event Shrimp publishes today; the hook runs only if it ever is (see docs/EXTENDING.md for the list)\n", h.Event)
			}
		}
		return nil
	case "import":
		if len(rest) > 1 {
			return fmt.Errorf("%w: hooks import [--dry-run] [--json] [FILE] (FILE: Claude Code settings, default %s; Codex's hooks.json or config.toml; Gemini CLI's settings.json; Cursor's hooks.json)", errUsage, app.ClaudeSettingsFile())
		}
		res, err := a.ImportClaudeHooks(strings.Join(rest, ""), *dry)
		if err != nil {
			return err
		}
		if *asJSON {
			return e.jsonOut().Encode(res)
		}
		printHooksImport(e, res, *dry)
		return nil
	case "try":
		if len(rest) != 1 {
			return fmt.Errorf("%w: hooks try ID [--tool NAME] [--args JSON] [--text REQUEST] [--answer TEXT] [--output TEXT] [--workspace DIR]", errUsage)
		}
		ws, err := orHere(*workspace)
		if err != nil {
			return err
		}
		return tryHook(ctx, e, a, rest[0], app.HookSample{Workspace: ws, Tool: *tool, Args: *callArgs, Text: *text, Answer: *answer, Output: *output})
	case "timeout":
		if len(rest) != 2 {
			return fmt.Errorf("%w: hooks timeout ID SECONDS (0 for the default: %s, %s for a prompt hook; at most 600)", errUsage, hooks.DefaultTimeout, hooks.DefaultPromptTimeout)
		}
		seconds, err := strconv.ParseFloat(rest[1], 64)
		if err != nil {
			return fmt.Errorf("%w: hooks timeout ID SECONDS: %q is not a number of seconds", errUsage, rest[1])
		}
		h, err := cfg.SetTimeout(rest[0], seconds)
		if err != nil {
			return err
		}
		if err := cfg.Save(file); err != nil {
			return err
		}
		limit := h.Limit().String()
		if seconds == 0 {
			limit += " (the default)"
		}
		fmt.Fprintf(e.stdout, "hook %s may now run for %s\n", rest[0], limit)
		return nil
	case "enable", "disable":
		if len(rest) != 1 {
			return fmt.Errorf("%w: hooks %s ID", errUsage, sub)
		}
		h, err := cfg.SetEnabled(rest[0], sub == "enable")
		if err != nil {
			return err
		}
		if err := cfg.Save(file); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "hook %s (%s) is %sd: %s\n", h.ID, h.On(), sub, lo.Ternary(h.Disabled, "it runs no more until `shrimp hooks enable "+h.ID+"`", "it runs from the next request"))
		return nil
	case "remove":
		if len(rest) != 1 {
			return fmt.Errorf("%w: hooks remove ID", errUsage)
		}
		if err := cfg.Remove(rest[0]); err != nil {
			return err
		}
		if err := cfg.Save(file); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "removed hook %s\n", rest[0])
		return nil
	}
	return fmt.Errorf("%w: unknown hooks command %q: use list, add, import, try, timeout, enable, disable or remove", errUsage, sub)
}

// printHooksImport says what importing Claude Code's hooks did, or would do.
func printHooksImport(e *env, res app.HooksImport, dry bool) {
	verb := "added"
	if dry {
		verb = "would add"
	}
	fmt.Fprintf(e.stdout, "%s %s from %s\n", verb, plural.N(len(res.Added), "hook", "hooks"), res.File)
	for _, h := range res.Added {
		fmt.Fprintf(e.stdout, "  %s  %s  %s\n", cmp.Or(h.ID, "-"), h.On(), h.Runs())
	}
	if len(res.Held) > 0 {
		fmt.Fprintf(e.stdout, "already there: %s\n", plural.N(len(res.Held), "hook", "hooks"))
	}
	if len(res.Skipped) > 0 {
		fmt.Fprintf(e.stdout, "not imported: %d (Shrimp cannot run them)\n", len(res.Skipped))
		for _, s := range res.Skipped {
			fmt.Fprintf(e.stdout, "  %s: %s\n", strings.TrimSpace(s.Event+" "+s.Matcher), s.Why)
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(e.stderr, "note: %s\n", n)
	}
	from := ""
	switch {
	case res.Project:
		from = "a project's settings, written by whoever wrote the project"
	case res.Plugin != "":
		from = "a Claude Code plugin, written by its authors"
	}
	if from != "" && len(res.Added) > 0 {
		fmt.Fprintf(e.stderr, "note: these commands come from %s, and run on every request or tool call they apply to: read them first (`shrimp hooks import --dry-run %s`), and `shrimp hooks remove ID` any you do not trust\n", from, res.File)
	}
}

// nearestEvent returns the event a hook can be added on (one Shrimp
// publishes, or a point in the loop) within two edits of t, the nearest;
// "" when none is that near (a name of its own, not a slip).
func nearestEvent(t string) string {
	best, dist := "", 3
	for _, k := range append(slices.Clone(hooks.InLoopEvents), lo.Map(app.Events, func(e agent.Type, _ int) string { return string(e) })...) {
		if d := spell.OSA(t, k, 2); d < dist {
			best, dist = k, d
		}
	}
	return best
}
