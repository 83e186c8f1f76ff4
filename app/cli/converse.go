package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
)

// conversationHelp is what /help says.
const conversationHelp = `Type a request and press Enter; Shrimp runs it in this session, which keeps the conversation so far.
  /new      start a new session (the next request does not see the earlier ones)
  /session  say which session this is
  /exit     leave (or Ctrl-D); the session is stored: shrimp chat --session ID goes on with it
Lines pasted together are one request. Ctrl-C stops the request that is running, and the conversation goes on.`

// editingHelp is what /help adds where the line editor reads the requests.
const editingHelp = `The arrows, Home and End move in the line; Ctrl-A and Ctrl-E go to its start and end, Ctrl-U, Ctrl-K and Ctrl-W delete
before, after and the word before. Up and down bring back earlier requests (kept in chat-history in the data folder).`

// converse is `shrimp chat` without a message at a terminal: requests
// read one line at a time, each run to its end in one session (session,
// or a new one), until /exit, Ctrl-D or the command's cancellation. Ctrl-C
// stops the running request, or drops the line being typed; a second
// Ctrl-C while a stopped request is still ending ends the command.
func (c *chatter) converse(ctx context.Context, session string) error {
	out := c.e.stderr
	with := ""
	if m, err := c.a.ResolveModel(ctx); err == nil { // else the first request says why
		c.opts.Model, with = m, " with "+m
	}
	fmt.Fprintf(out, "Shrimp: a conversation%s. Type a request and press Enter; /help for the commands, /exit or Ctrl-D to leave.\n", with)
	for {
		line, err := c.ask(ctx)
		switch {
		case ctx.Err() != nil: // SIGTERM, or a second Ctrl-C
			c.left(session)
			return nil
		case errors.Is(err, context.Canceled): // Ctrl-C at the prompt
			if c.ed != nil {
				c.ed.say("(/exit or Ctrl-D leaves)")
			} else {
				fmt.Fprintln(out, "\n(/exit or Ctrl-D leaves)")
			}
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(out)
			c.left(session)
			return nil
		case err != nil:
			return fmt.Errorf("read a request from the terminal: %w", err)
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case line == "/exit" || line == "/quit":
			c.left(session)
			return nil
		case line == "/help":
			fmt.Fprintln(out, conversationHelp)
			if c.ed != nil {
				fmt.Fprintln(out, editingHelp)
			}
			continue
		case line == "/new":
			if session != "" {
				fmt.Fprintf(out, "A new session; %s is stored.\n", session)
			}
			session = ""
			continue
		case line == "/session":
			if session == "" {
				fmt.Fprintln(out, "No session yet: the next request starts one.")
			} else {
				fmt.Fprintf(out, "Session %s (shrimp sessions show %s).\n", session, session)
			}
			continue
		case strings.HasPrefix(line, "/") && !strings.ContainsAny(line[1:], " \t/."):
			fmt.Fprintf(out, "No command %s here; /help lists them. (A request that starts with / needs more words.)\n", line)
			continue
		}
		rctx, stop := context.WithCancel(ctx)
		var presses atomic.Int32
		release := ctrlC.claim(func() bool {
			stop()
			return presses.Add(1) == 1 // a second one: the command's own cancellation
		})
		id, err := c.run(rctx, session, line)
		release()
		stop()
		if id != "" {
			session = id
		}
		switch {
		case ctx.Err() != nil:
			c.left(session)
			return nil
		case presses.Load() > 0:
			fmt.Fprintln(out, "Stopped; what the request did so far is in the session.")
		case err != nil:
			fmt.Fprintf(out, "shrimp: %s\n", oneLine(err))
		}
	}
}

// ask reads the next request: the prompt on the terminal's side, the line
// typed after it, and the lines that came with it: text pasted with
// several lines (an error, a log) is one request, not one a line. Ctrl-C
// while it waits ends it with context.Canceled.
func (c *chatter) ask(ctx context.Context) (string, error) {
	if c.ed != nil {
		return c.ed.ask(ctx)
	}
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	release := ctrlC.claim(func() bool { stop(); return true })
	defer release()
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	line, err := c.t.read(pctx, "› ", false)
	if err != nil {
		return line, err
	}
	return strings.Join(append([]string{line}, c.t.pasted()...), "\n"), nil
}

// left says where the conversation is kept.
func (c *chatter) left(session string) {
	if session != "" {
		fmt.Fprintf(c.e.stderr, "The conversation is session %s: shrimp chat --session %s goes on with it.\n", session, session)
	}
}
