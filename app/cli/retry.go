package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/undo"
	"github.com/shrimp-harness/shrimp/internal/plural"
)

// retry replaces session's last request with text (or, when text is
// empty, the request as it was asked) and runs it: `shrimp chat --session
// ID --retry`. undoFirst puts back the files the replaced request
// changed first; without it, a note says they stay as it left them.
func (c *chatter) retry(ctx context.Context, session, text string, undoFirst bool) (string, error) {
	req, err := c.a.LastRequest(ctx, session, 0)
	if err != nil {
		return "", err
	}
	if text == "" && len(c.opts.Images) > 0 {
		return "", fmt.Errorf("%w: --image goes with a new MESSAGE when retrying; without one, the request is asked again with its own images", errUsage)
	}
	if !undoFirst {
		if n := c.changedFiles(ctx, session, req.Run); n > 0 {
			fmt.Fprintf(c.e.stderr, "note: the request replaced changed %s, left as it changed them (--undo puts them back first)\n", plural.N(n, "file", "files"))
		}
	}
	o := c.opts
	o.Text, o.UndoReplaced = text, undoFirst
	if o, err = c.a.Retry(ctx, session, req.Run, o); err != nil {
		return "", err
	}
	c.saySteered(req, o.Text)
	return c.runWith(ctx, o)
}

// saySteered tells which procedures a retry of req asked as text stops
// offering for its words (app.Request.Steered): they steered the attempt
// it replaces.
func (c *chatter) saySteered(req app.Request, text string) {
	if text != req.Text {
		return // an edit: other words, recalled afresh
	}
	for _, p := range req.Steered {
		fmt.Fprintf(c.e.stderr, "note: procedure %s (%s) is no longer offered for this request: the attempt retried followed it (shrimp procedures restore %s offers it again)\n", p.ID, p.Chain, p.ID)
	}
}

// changedFiles is how many files session's requests from run on changed
// that undo can still put back.
func (c *chatter) changedFiles(ctx context.Context, session string, run int64) int {
	plan, err := c.a.UndoPlan(ctx, session, run)
	if err != nil {
		return 0
	}
	return lo.CountBy(plan.Files, undo.File.Changes)
}

// replacing is a conversation's request being retried or edited: what
// converse runs in its place, once the user has said about its files.
type replacing struct {
	req  app.Request
	text string // "" asks it again as it was
	undo bool   // put back the files the replaced requests changed first
}

// retryCommand is /retry and /edit [TEXT] in a conversation: the last
// request asked again, or replaced by TEXT. /edit alone at a line editor
// brings the request back to the prompt to be edited (c.editing), and
// returns nil. It returns nil too when there is nothing to do, having
// said why.
func (c *chatter) retryCommand(ctx context.Context, session, command, text string) *replacing {
	out := c.e.stderr
	if session == "" {
		fmt.Fprintf(out, "No session yet: nothing to %s.\n", strings.TrimPrefix(command, "/"))
		return nil
	}
	req, err := c.a.LastRequest(ctx, session, 0)
	if err != nil {
		fmt.Fprintf(out, "shrimp: %s\n", oneLine(err))
		return nil
	}
	if command == "/retry" || text != "" {
		return &replacing{req: req, text: text}
	}
	if c.ed == nil || strings.Contains(req.Text, "\n") {
		fmt.Fprintf(out, "The last request was: %s\nType /edit and the new request to send it in its place.\n", flat(req.Text))
		return nil
	}
	c.editing = &req
	c.ed.vt.Preset(req.Text)
	fmt.Fprintln(out, "Edit the last request and press Enter to send it in its place (an empty line or Ctrl-C leaves it as it was).")
	return nil
}

// askUndo asks, when the requests from r's on changed files, whether to
// put them back before r runs; ok is false when the user stopped there
// (Ctrl-C): nothing is to be done.
func (c *chatter) askUndo(ctx context.Context, session string, r *replacing) (ok bool) {
	out := c.e.stderr
	plan, err := c.a.UndoPlan(ctx, session, r.req.Run)
	if err != nil || !plan.Changes() {
		return true
	}
	fmt.Fprintln(out, "The request replaced changed files:")
	printUndoPlan(out, plan, false)
	pctx, done := promptContext(ctx)
	c.t.mu.Lock()
	answer, err := c.t.line(pctx, "Put them back before it runs again? [Y/n] ")
	c.t.mu.Unlock()
	done()
	if err != nil {
		fmt.Fprintln(out, "Nothing was sent, nothing was undone.")
		return false
	}
	a := strings.ToLower(strings.TrimSpace(answer))
	r.undo = a == "" || a == "y" || a == "yes"
	return true
}

// replace runs r in place of its request.
func (c *chatter) replace(ctx context.Context, session string, r replacing) (string, error) {
	o := c.opts
	o.Text, o.UndoReplaced = r.text, r.undo
	if r.text != "" && len(o.Images) == 0 {
		o.Images = r.req.Images // an edit keeps the request's images, unless others are attached
	}
	o, err := c.a.Retry(ctx, session, r.req.Run, o)
	if err != nil {
		return session, err
	}
	fmt.Fprintf(c.e.stderr, "Asking again in place of the last request (the model no longer sees it): %s\n", flat(o.Text))
	c.saySteered(r.req, o.Text)
	return c.runWith(ctx, o)
}

// flat is a request on one line, as the terminal can show it.
func flat(text string) string { return escaped(strings.Join(strings.Fields(text), " ")) }
