package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// runRules lists and revokes the remembered approval rules.
func runRules(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: rules needs list or revoke", errUsage)
	}
	sub := args[0]
	fs := newFlags("rules " + sub)
	asJSON := fs.Bool("json", false, "print JSON")
	workspace := fs.String("workspace", "", "revoke: only the rule for this workspace (default: in every workspace)")
	command := fs.String("command", "", "revoke: only the rule for this exact command (as `rules list` shows it), in --workspace or the current folder")
	if err := parseInterleaved(fs, args[1:], "workspace", "command"); err != nil {
		return err
	}
	rest := fs.Args()
	switch {
	case sub == "list" && len(rest) > 0:
		return fmt.Errorf("%w: rules list takes no arguments", errUsage)
	case sub == "revoke" && len(rest) != 1:
		return fmt.Errorf("%w: rules revoke needs one tool name", errUsage)
	case sub != "list" && sub != "revoke":
		return fmt.Errorf("%w: unknown rules command %q: use list or revoke", errUsage, sub)
	}
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	if sub == "list" {
		rules, err := a.Store.Rules(ctx)
		if err != nil {
			return err
		}
		calls, err := a.Store.CallRules(ctx)
		if err != nil {
			return err
		}
		return printRules(e, rules, calls, *asJSON, "No approval rules: every tool is asked about in ask mode.")
	}
	if *command != "" {
		dir, err := orHere(*workspace)
		if err != nil {
			return err
		}
		key := app.WorkspaceKey(dir)
		call := *command
		gone, err := a.Store.RevokeCallRule(ctx, key, rest[0], call)
		if err == nil && !gone && a.CallRuleKey(call) != call {
			// The command as typed, secret and all: its rule is kept by hash.
			call = a.CallRuleKey(call)
			gone, err = a.Store.RevokeCallRule(ctx, key, rest[0], call)
		}
		if err != nil {
			return err
		}
		if !gone {
			return fmt.Errorf("no rule for the %s command %q in %s (see `shrimp rules list`)", rest[0], a.Recorder.RedactText(*command), key)
		}
		return printRules(e, nil, []store.CallRule{{Workspace: key, Tool: rest[0], Call: call}}, *asJSON, "")
	}
	var ws *string
	if *workspace != "" {
		key := app.WorkspaceKey(*workspace)
		ws = &key
	}
	gone, calls, err := a.Store.RevokeRules(ctx, rest[0], ws)
	if err != nil {
		return err
	}
	if len(gone)+len(calls) == 0 {
		where := "in any workspace"
		if ws != nil {
			where = "for " + *ws
		}
		return fmt.Errorf("no rule for %s %s (see `shrimp rules list`)", rest[0], where)
	}
	return printRules(e, gone, calls, *asJSON, "")
}

// ruleRow is one rule as `rules list` prints it: a tool's, or one exact
// call's (Call set).
type ruleRow struct {
	store.ApprovalRule
	Call string `json:"call,omitempty"` // the exact call an "always" holds for
}

// printRules prints rules as a table (with a title) or as JSON.
func printRules(e *env, rules []store.ApprovalRule, calls []store.CallRule, asJSON bool, empty string) error {
	rows := make([]ruleRow, 0, len(rules)+len(calls))
	for _, r := range rules {
		rows = append(rows, ruleRow{ApprovalRule: r})
	}
	for _, c := range calls {
		rows = append(rows, ruleRow{ApprovalRule: store.ApprovalRule{Workspace: c.Workspace, Tool: c.Tool, Rule: "always", UpdatedAt: c.UpdatedAt}, Call: c.Call})
	}
	if asJSON {
		return e.jsonOut().Encode(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(e.stdout, empty)
		return nil
	}
	if empty == "" {
		fmt.Fprintln(e.stdout, "Revoked:")
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tRULE\tWORKSPACE\tSINCE")
	for _, r := range rows {
		where := r.Workspace
		if where == store.AnyWorkspace {
			where = "(every workspace)"
		}
		rule := r.Rule
		if r.Call != "" {
			rule = "always: " + approval.Visible(firstLine(r.Call, 80))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Tool, rule, where, r.UpdatedAt.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}
