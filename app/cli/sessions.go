package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/internal/plural"
)

func runSessions(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: sessions needs list, show ID, export ID, undo ID, rename ID NAME, delete ID or redact", errUsage)
	}
	sub, rest := args[0], args[1:]
	fs := newFlags("sessions " + sub)
	asJSON := fs.Bool("json", false, "print JSON")
	format := fs.String("format", "md", "export format: md or json")
	request := fs.Int("request", 0, "undo: from the session's request N on (1 is its first; default the last that changed files)")
	yes := fs.Bool("yes", false, "undo, delete: without asking")
	diff := fs.Bool("diff", false, "undo: show what it would change in each file")
	redo := fs.Bool("redo", false, "undo: take back the session's last undo")
	limit := fs.Int("limit", 0, "list: the latest N sessions (0: all)")
	search := fs.String("search", "", "list: the sessions whose title or messages hold this text")
	var keep, anyway []string
	fs.Func("keep", "undo: leave this file as it is (a path as the plan shows it; repeatable)", func(v string) error {
		keep = append(keep, v)
		return nil
	})
	fs.Func("anyway", "undo: undo this file although another request may have changed it (repeatable)", func(v string) error {
		anyway = append(anyway, v)
		return nil
	})
	if err := parseInterleaved(fs, rest, valuedFlags...); err != nil {
		return err
	}
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close(context.Background())
	switch sub {
	case "list":
		if *limit < 0 {
			return fmt.Errorf("%w: --limit takes a number of sessions, 0 for all", errUsage)
		}
		var ss []store.Session
		var total int
		if *search != "" {
			ss, total, err = a.Store.SearchSessions(ctx, *search, *limit)
		} else {
			ss, total, err = a.Store.RecentSessions(ctx, *limit)
		}
		if err != nil {
			return err
		}
		if *asJSON {
			if ss == nil {
				ss = []store.Session{}
			}
			return e.jsonOut().Encode(ss)
		}
		if len(ss) == 0 && *search != "" {
			fmt.Fprintf(e.stdout, "No session holds %q.\n", *search)
			return nil
		}
		if len(ss) == 0 {
			fmt.Fprintln(e.stdout, "No sessions yet. Start one with `shrimp chat \"…\"`.")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUPDATED\tFOLDER\tMODEL\tTOKENS IN/OUT\tTITLE")
		for _, s := range ss {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%s\n", s.ID, s.UpdatedAt.Local().Format(time.DateTime), folderName(s.Workspace), s.Model, s.PromptTokens, s.CompletionTokens, firstLine(s.Title, 60))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if more := total - len(ss); more > 0 {
			also := ""
			if *search != "" {
				also = " that hold it too"
				if more == 1 {
					also = " that holds it too"
				}
			}
			fmt.Fprintf(e.stdout, "… and %s%s (--limit 0 lists them all)\n", plural.N(more, "older session", "older sessions"), also)
		}
		return nil
	case "show", "export":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: sessions %s needs one session ID", errUsage, sub)
		}
		// A run the process never ended (it was killed) is shown ended.
		if _, err := a.Runner.CloseInterrupted(ctx, fs.Arg(0)); err != nil && !errors.Is(err, store.ErrNotFound) {
			e.log.Warn("close an interrupted run", "session", fs.Arg(0), "err", err)
		}
		view, err := session.Load(ctx, a.Store, fs.Arg(0))
		if err != nil {
			return err
		}
		if sub == "show" && *asJSON || sub == "export" && *format == "json" {
			enc := e.jsonOut()
			if sub == "export" {
				enc.SetIndent("", "  ")
			}
			return enc.Encode(view)
		}
		if sub == "export" && *format != "md" {
			return fmt.Errorf("%w: unknown format %q (use md or json)", errUsage, *format)
		}
		if st := styled(e.rawStdout); sub == "show" && st != nil {
			// On a terminal, shown as an answer is: styles, tables aligned.
			st.whole = true
			st.write(view.Markdown())
			st.end()
			return nil
		}
		_, err = fmt.Fprint(e.stdout, view.Markdown())
		return err
	case "undo":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: sessions undo needs one session ID", errUsage)
		}
		return runUndo(ctx, e, a, fs.Arg(0), undoFlags{request: *request, yes: *yes, json: *asJSON, diff: *diff, keep: keep, redo: *redo, anyway: anyway})
	case "delete":
		if fs.NArg() != 1 {
			return fmt.Errorf("%w: sessions delete needs one session ID", errUsage)
		}
		return deleteSession(ctx, e, a, fs.Arg(0), *yes)
	case "rename":
		if fs.NArg() < 2 {
			return fmt.Errorf("%w: sessions rename needs a session ID and its new name", errUsage)
		}
		title, err := a.RenameSession(ctx, fs.Arg(0), strings.Join(fs.Args()[1:], " "))
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Session %s is now named %q.\n", fs.Arg(0), title)
		return nil
	case "redact":
		// What Shrimp keeps has had secrets taken out since this version;
		// this does the same for what older versions kept.
		r := e.secrets
		text := func(s string) string { out, _ := r.String(s); return out }
		data := func(s string) string {
			if v, n := r.Value(json.RawMessage(s)); n > 0 {
				return string(v.(json.RawMessage))
			}
			return s
		}
		// Another Shrimp on this data folder keeps its own copy of the
		// learned procedures and would write their old text back.
		if m, err := procedures.Open(ctx, a.Store, a.Config.DataDir); errors.Is(err, procedures.ErrLocked) {
			return fmt.Errorf("another Shrimp is open on this data folder (%w): close it first, then run this again; nothing was changed", err)
		} else if err == nil {
			m.Close()
		}
		changed, err := a.Store.Rewrite(ctx, text, data)
		if err != nil {
			return err
		}
		if len(changed) == 0 {
			fmt.Fprintln(e.stdout, "No secrets found in the stored sessions.")
			return nil
		}
		fmt.Fprintf(e.stdout, "Took secrets out of %s and compacted the database so the old text is gone from the disk.\n", rewritten(changed))
		if changed["procedures"] == 0 {
			return nil
		}
		// The procedure index holds the learned requests' words: it is
		// built again from the rewritten rows, its old files deleted.
		mem, err := a.Memory(ctx)
		if errors.Is(err, procedures.ErrLocked) { // opened since the check above
			fmt.Fprintf(e.stdout, "The procedure index still holds their old words: another Shrimp has it open (%v). Close it, then run `shrimp doctor --rebuild-index`.\n", err)
			return nil
		}
		if err == nil {
			err = mem.Rebuild(ctx)
		}
		if err != nil {
			return fmt.Errorf("rebuild the procedure index from the rewritten procedures (run `shrimp doctor --rebuild-index` to try again): %w", err)
		}
		fmt.Fprintln(e.stdout, "Rebuilt the procedure index from the rewritten procedures.")
		return nil
	}
	return fmt.Errorf("%w: unknown sessions subcommand %q", errUsage, sub)
}

// deleteSession removes a session with its record, its working notes and
// the undo of its file changes, once confirmed (yes: without asking), as
// the window's Delete does; the files stay as they are.
func deleteSession(ctx context.Context, e *env, a *app.App, id string, yes bool) error {
	s, err := a.Store.Session(ctx, id)
	if err != nil {
		return err
	}
	if !yes {
		ok, err := confirmed(ctx, e, fmt.Sprintf("Delete session %s (%q) with its record, its notes and the undo of its file changes? Your files stay as they are.", id, firstLine(s.Title, 60)),
			"nothing was deleted: there is no terminal to ask at; run it again with --yes to delete the session")
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(e.stdout, "Nothing was deleted.")
			return nil
		}
	}
	if err := a.DeleteSession(ctx, id); errors.Is(err, session.ErrBusy) {
		return fmt.Errorf("%w (%s): stop it or let it end, then delete it; nothing was deleted", session.ErrBusy, id)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Deleted session %s. Your files stay as they are.\n", id)
	return nil
}

// rewritten says how many rows of which kind `sessions redact` changed.
func rewritten(changed map[string]int) string {
	var parts []string
	total := 0
	for _, k := range []struct{ table, what string }{
		{"events", "events"}, {"messages", "messages"}, {"tool_outputs", "kept outputs"},
		{"sessions", "titles"}, {"session_summaries", "summaries"}, {"working_entries", "working-memory notes"},
		{"run_metrics", "runs' requests"}, {"procedures", "learned procedures"},
		{"sentence_vectors", "sentence vectors (computed again)"}, {"recall_declines", "declined recalls (dropped)"},
	} {
		if n := changed[k.table]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k.what))
			total += n
		}
	}
	return fmt.Sprintf("%d stored rows (%s)", total, strings.Join(parts, ", "))
}

// folderName is the name of the folder a session worked in, "-" for none.
func folderName(workspace string) string {
	if workspace == "" {
		return "-"
	}
	return filepath.Base(workspace)
}
