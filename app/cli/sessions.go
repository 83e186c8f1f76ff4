package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/store"
)

func runSessions(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: sessions needs list, show ID or export ID", errUsage)
	}
	sub, rest := args[0], args[1:]
	fs := newFlags("sessions " + sub)
	asJSON := fs.Bool("json", false, "print JSON")
	format := fs.String("format", "md", "export format: md or json")
	if err := parseFlags(fs, interleave(rest)); err != nil {
		return err
	}
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	switch sub {
	case "list":
		ss, err := a.Store.Sessions(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			if ss == nil {
				ss = []store.Session{}
			}
			return json.NewEncoder(e.stdout).Encode(ss)
		}
		if len(ss) == 0 {
			fmt.Fprintln(e.stdout, "No sessions yet. Start one with `shrimp chat \"…\"`.")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUPDATED\tMODEL\tTOKENS IN/OUT\tTITLE")
		for _, s := range ss {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\n", s.ID, s.UpdatedAt.Local().Format(time.DateTime), s.Model, s.PromptTokens, s.CompletionTokens, firstLine(s.Title, 60))
		}
		return tw.Flush()
	case "show", "export":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: sessions %s needs one session ID", errUsage, sub)
		}
		view, err := loadSession(ctx, a, fs.Arg(0))
		if err != nil {
			return err
		}
		if sub == "show" && *asJSON || sub == "export" && *format == "json" {
			enc := json.NewEncoder(e.stdout)
			if sub == "export" {
				enc.SetIndent("", "  ")
			}
			return enc.Encode(view)
		}
		if sub == "export" && *format != "md" {
			return fmt.Errorf("%w: unknown format %q (use md or json)", errUsage, *format)
		}
		_, err = fmt.Fprint(e.stdout, markdown(view))
		return err
	}
	return fmt.Errorf("%w: unknown sessions subcommand %q", errUsage, sub)
}

// sessionView is `sessions show --json`.
type sessionView struct {
	Session  store.Session `json:"session"`
	Messages []messageView `json:"messages"`
	Events   []agent.Event `json:"events"`
}

type messageView struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolName   string          `json:"tool_name,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
}

func loadSession(ctx context.Context, a *app.App, id string) (sessionView, error) {
	s, err := a.Store.Session(ctx, id)
	if err != nil {
		return sessionView{}, err
	}
	msgs, err := a.Store.Messages(ctx, id)
	if err != nil {
		return sessionView{}, err
	}
	events, err := a.Store.Events(ctx, id, 0)
	if err != nil {
		return sessionView{}, err
	}
	v := sessionView{Session: s, Messages: []messageView{}, Events: events}
	for _, m := range msgs {
		mv := messageView{Role: m.Role, Content: m.Content, ToolName: m.ToolName, ToolCallID: m.ToolCallID}
		if len(m.ToolCalls) > 0 {
			mv.ToolCalls, _ = json.Marshal(m.ToolCalls)
		}
		v.Messages = append(v.Messages, mv)
	}
	if v.Events == nil {
		v.Events = []agent.Event{}
	}
	return v, nil
}

func markdown(v sessionView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", v.Session.Title)
	fmt.Fprintf(&b, "- Session: `%s`\n- Model: `%s`\n- Workspace: `%s`\n- Created: %s\n- Tokens: %d in, %d out\n\n",
		v.Session.ID, v.Session.Model, v.Session.Workspace, v.Session.CreatedAt.Format(time.RFC3339), v.Session.PromptTokens, v.Session.CompletionTokens)
	for _, m := range v.Messages {
		switch m.Role {
		case "user":
			fmt.Fprintf(&b, "## You\n\n%s\n\n", m.Content)
		case "assistant":
			if m.Content != "" {
				fmt.Fprintf(&b, "## Shrimp\n\n%s\n\n", m.Content)
			}
			if len(m.ToolCalls) > 0 {
				fmt.Fprintf(&b, "Tool calls:\n\n```json\n%s\n```\n\n", m.ToolCalls)
			}
		case "tool":
			fmt.Fprintf(&b, "### Tool `%s`\n\n```\n%s\n```\n\n", m.ToolName, strings.TrimRight(m.Content, "\n"))
		}
	}
	return b.String()
}
