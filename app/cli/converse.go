package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/samber/lo"
	"golang.org/x/term"

	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/internal/lineedit"
	"github.com/shrimp-harness/shrimp/internal/plural"
)

// conversationHelp is what /help says.
const conversationHelp = `Type a request and press Enter; Shrimp runs it in this session, which keeps the conversation so far.
  /new      start a new session (the next request does not see the earlier ones)
  /session  say which session this is
  /model    name the model, and list the installed ones; /model NAME uses NAME from the next request on
  /approve  name the approval mode; /approve ask|read|all|none changes it for the requests that follow
  /think    say what a reasoning model (qwen3, deepseek-r1, gpt-oss) does before answering; /think off answers faster, /think on, /think low|medium|high (gpt-oss's effort), /think default (Settings, else the model's own)
  /image    attach an image (PNG, JPEG, GIF or WebP) to the next request, for a model that can see: /image PATH; /image alone lists what is attached, /image - drops it
  /undo     put back the files the last request changed (file tools and shell commands); asks first
  /redo     take back the last undo; asks first
  /retry    ask the last request again (with the model chosen now); the attempt leaves the model's history, and the files it changed can be put back first
  /edit     bring the last request back to the prompt to change it, and send it in its place; /edit TEXT sends TEXT in its place
  /exit     leave (or Ctrl-D); the session is stored: shrimp chat --session ID goes on with it
  /NAME     a saved command (Claude Code's, Cursor's, OpenCode's and Gemini CLI's commands folders, here and in your home folder, Codex's ~/.codex/prompts, the data folder's commands): /NAME ARGS sends it filled in; shrimp commands list names them
Lines pasted together are one request; end a line with \ to go on in the next. Ctrl-C stops the request that is running, and the conversation goes on.`

// editingHelp is what /help adds where the line editor reads the requests.
const editingHelp = `The arrows, Home and End move in the line (with Alt or Ctrl, by words); Ctrl-A and Ctrl-E go to its start and end, Ctrl-U, Ctrl-K and Ctrl-W delete before, after and the word before; Ctrl-L clears the screen. Up and down bring back earlier requests (kept in chat-history in the data folder). Tab completes a command.`

// converse is `shrimp chat` without a message at a terminal: requests
// read one line at a time, each run to its end in one session (session,
// or a new one), until /exit, Ctrl-D or the command's cancellation. Ctrl-C
// stops the running request, or drops the line being typed; a second
// Ctrl-C while a stopped request is still ending ends the command.
func (c *chatter) converse(ctx context.Context, session string) error {
	c.conversing = true
	out := c.e.stderr
	with := ""
	if m, err := c.a.SessionModel(ctx, session); err == nil { // else the first request says why
		c.opts.Model, with = m, " with "+m
	}
	fmt.Fprintln(out, wrapHelp(fmt.Sprintf("Shrimp: a conversation%s, approvals %s. Type a request and press Enter; /help for the commands, /exit or Ctrl-D to leave.", with, c.opts.Approve), c.helpWidth()))
	for {
		line, err := c.ask(ctx)
		switch {
		case ctx.Err() != nil: // SIGTERM, or a second Ctrl-C
			c.left(session)
			return nil
		case errors.Is(err, context.Canceled): // Ctrl-C at the prompt
			if c.editing != nil {
				c.editing = nil
				fmt.Fprintln(out, "The last request is left as it was.")
				continue
			}
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
		var pending *replacing // a retry or an edit, run in place of the last request
		if edited := c.editing; edited != nil {
			c.editing = nil
			switch {
			case line == "":
				fmt.Fprintln(out, "The last request is left as it was.")
				continue
			case !strings.HasPrefix(line, "/"):
				pending = &replacing{req: *edited, text: line}
			}
		}
		switch {
		case pending != nil:
		case line == "":
			continue
		case line == "/exit" || line == "/quit":
			c.left(session)
			return nil
		case line == "/help":
			help := conversationHelp
			if c.ed != nil {
				help += "\n" + editingHelp
			}
			fmt.Fprintln(out, wrapHelp(help, c.helpWidth()))
			continue
		case line == "/model" || strings.HasPrefix(line, "/model "):
			c.useModel(ctx, strings.TrimSpace(strings.TrimPrefix(line, "/model")))
			continue
		case line == "/approve" || strings.HasPrefix(line, "/approve "):
			c.useMode(strings.TrimSpace(strings.TrimPrefix(line, "/approve")))
			continue
		case line == "/think" || strings.HasPrefix(line, "/think "):
			c.useThink(strings.TrimSpace(strings.TrimPrefix(line, "/think")))
			continue
		case line == "/new":
			if session != "" {
				fmt.Fprintf(out, "A new session; %s is stored.\n", session)
			}
			session = ""
			continue
		case line == "/image" || strings.HasPrefix(line, "/image "):
			c.useImage(strings.TrimSpace(strings.TrimPrefix(line, "/image")))
			continue
		case line == "/undo", line == "/redo":
			c.undo(ctx, session, line == "/redo")
			continue
		case line == "/retry", line == "/edit", strings.HasPrefix(line, "/edit "):
			command, text, _ := strings.Cut(line, " ")
			if pending = c.retryCommand(ctx, session, command, strings.TrimSpace(text)); pending == nil {
				continue
			}
		case line == "/session":
			if session == "" {
				fmt.Fprintln(out, "No session yet: the next request starts one.")
			} else {
				fmt.Fprintf(out, "Session %s (shrimp sessions show %s).\n", session, session)
			}
			continue
		case strings.HasPrefix(line, "/"):
			if filled, ok := c.command(line); ok {
				line = filled // a saved command (.claude/commands/…): the request it stands for
				break
			}
			if !strings.ContainsAny(line[1:], " \t/.") {
				fmt.Fprintf(out, "No command %s here; /help lists them, and `shrimp commands list` your saved ones. (A request that starts with / needs more words.)\n", line)
				continue
			}
		}
		if pending != nil && !c.askUndo(ctx, session, pending) {
			continue
		}
		rctx, stop := context.WithCancel(ctx)
		var presses atomic.Int32
		release := ctrlC.claim(func() bool {
			stop()
			return presses.Add(1) == 1 // a second one: the command's own cancellation
		})
		var id string
		if pending != nil {
			id, err = c.replace(rctx, session, *pending)
		} else {
			id, err = c.run(rctx, session, line)
		}
		if (id != "" || err == nil) && (pending == nil || pending.text != "") {
			c.opts.Images = nil // sent (or kept for the next try when nothing started); a retry sends its own
		}
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
	pctx, done := promptContext(ctx)
	defer done()
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	var lines []string
	for prompt := "› "; ; prompt = "  " {
		line, err := c.t.read(pctx, prompt, false)
		if err != nil {
			return line, err
		}
		line, goesOn := continued(line, c.t.more())
		if lines = append(lines, line); !goesOn {
			break
		}
	}
	return strings.Join(append(lines, c.t.pasted()...), "\n"), nil
}

// promptContext is ctx for reading at the prompt, ended by Ctrl-C (SIGINT)
// as well; call done when the prompt is over.
func promptContext(ctx context.Context) (context.Context, func()) {
	pctx, stop := context.WithCancel(ctx)
	release := ctrlC.claim(func() bool { stop(); return true })
	return pctx, func() { release(); stop() }
}

// useImage attaches the image at path to the next request, lists what is
// attached ("") or drops it ("-").
func (c *chatter) useImage(path string) {
	out := c.e.stderr
	switch path {
	case "":
		if len(c.opts.Images) == 0 {
			fmt.Fprintln(out, "No image is attached. /image PATH attaches one to the next request.")
			return
		}
		fmt.Fprintf(out, "Attached to the next request: %s. (/image - drops them.)\n", imageList(c.opts.Images))
		return
	case "-":
		fmt.Fprintf(out, "Dropped %s.\n", plural.N(len(c.opts.Images), "image", "images"))
		c.opts.Images = nil
		return
	}
	img, err := readImage(typedPath(path))
	if err != nil {
		fmt.Fprintf(out, "%s.\n", oneLine(err))
		return
	}
	if len(c.opts.Images) >= attach.MaxPerRequest {
		fmt.Fprintf(out, "A request takes at most %d images; send this one with the next request.\n", attach.MaxPerRequest)
		return
	}
	c.opts.Images = append(c.opts.Images, img)
	fmt.Fprintf(out, "Attached %s to the next request.\n", imageList([]attach.Image{img}))
}

// typedPath is the path a user typed, or a terminal put there when a
// file was dropped on it, as the file system knows it: quoted ('…' by
// GNOME's terminals, "…"), with spaces escaped (\ ), or a file:// URI
// (Konsole, kitty).
func typedPath(p string) string {
	if u, err := url.Parse(p); err == nil && u.Scheme == "file" && (u.Host == "" || u.Host == "localhost") {
		return u.Path
	}
	if len(p) >= 2 && (p[0] == '\'' || p[0] == '"') && p[len(p)-1] == p[0] {
		inner := p[1 : len(p)-1]
		if p[0] == '\'' {
			return strings.ReplaceAll(inner, `'\''`, "'") // 'it'\''s.png'
		}
		return inner
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) && strings.IndexByte(` '"()&;\\`, p[i+1]) >= 0 {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// modeHelp says what each approval mode lets run without asking.
var modeHelp = []struct {
	mode approval.Mode
	says string
}{
	{approval.ModeAsk, "asks before every tool call"},
	{approval.ModeRead, "reads in the workspace run without asking; anything else is asked"},
	{approval.ModeAll, "every call runs without asking"},
	{approval.ModeNone, "no tool runs; the model answers from what it knows"},
}

// useMode names the approval mode, or changes it to name.
func (c *chatter) useMode(name string) {
	out := c.e.stderr
	if name == "" {
		fmt.Fprintf(out, "Approvals: %s. /approve MODE changes it:\n", c.opts.Approve)
		for _, m := range modeHelp {
			fmt.Fprintf(out, "  %-5s %s\n", m.mode, m.says)
		}
		return
	}
	m, err := approval.ParseMode(name)
	if err != nil {
		fmt.Fprintf(out, "%v.\n", err)
		return
	}
	c.opts.Approve = m
	for _, h := range modeHelp {
		if h.mode == m {
			fmt.Fprintf(out, "Approvals: %s from the next request on: %s.\n", m, h.says)
		}
	}
}

// useThink says what the requests ask of a reasoning model's thinking,
// or makes it name from the next request on.
func (c *chatter) useThink(name string) {
	out := c.e.stderr
	says := func(t model.Think) string {
		switch t {
		case model.ThinkDefault:
			return "the model's own (a model that thinks does)"
		case model.ThinkOff:
			return "off: faster answers, for models that can answer without thinking (gpt-oss cannot)"
		case model.ThinkOn:
			return "on"
		}
		return string(t) + " effort (gpt-oss; on for other models that think)"
	}
	if name == "" {
		t := c.opts.Think
		if t == model.ThinkDefault {
			t = c.a.Think()
		}
		fmt.Fprintf(out, "Thinking: %s. /think off|on|low|medium|high|default changes it.\n", says(t))
		return
	}
	t, err := model.ParseThink(name)
	if err != nil {
		fmt.Fprintf(out, "%v.\n", err)
		return
	}
	c.opts.Think = t
	if t == model.ThinkDefault {
		t = c.a.Think()
	}
	fmt.Fprintf(out, "Thinking from the next request on: %s.\n", says(t))
}

// useModel names the model and lists the installed ones, or makes name
// the model of the requests that follow: one Ollama has installed, said
// so when it cannot call tools.
func (c *chatter) useModel(ctx context.Context, name string) {
	out := c.e.stderr
	models, err := c.a.Model.List(ctx)
	if err != nil {
		fmt.Fprintf(out, "shrimp: %s\n", oneLine(err))
		return
	}
	names := lo.Map(models, func(m model.Info, _ int) string { return m.Name })
	if name == "" {
		fmt.Fprintf(out, "Model: %s. Installed: %s. /model NAME changes it.\n", orNone(c.opts.Model), strings.Join(names, ", "))
		return
	}
	i := slices.IndexFunc(names, func(n string) bool { return model.SameModel(n, name) })
	if i < 0 {
		fmt.Fprintf(out, "Ollama has no model %s (installed: %s; ollama pull %s installs it).\n", name, strings.Join(names, ", "), name)
		return
	}
	note := ""
	if d, err := c.a.Model.Show(ctx, names[i]); err == nil {
		if !d.Chats() {
			fmt.Fprintf(out, "%s is an embedding model: it cannot chat (it goes in --embed-model or Settings). The model stays %s.\n", names[i], orNone(c.opts.Model))
			return
		}
		if !d.Tools() {
			note = " Its template has no tool calling: Shrimp describes the tools in its prompt instead, which small models follow less well."
		}
		switch {
		case d.ListsVision():
			note += " It can see images: /image PATH attaches one."
		case len(c.opts.Images) > 0:
			note += fmt.Sprintf(" It cannot see images: the %s attached would be refused (/image - drops them).", plural.N(len(c.opts.Images), "image", "images"))
		}
	}
	c.opts.Model = names[i]
	fmt.Fprintf(out, "Model: %s from the next request on.%s\n", names[i], note)
}

// orNone is model, or says none is chosen yet.
func orNone(model string) string {
	if model == "" {
		return "not chosen yet"
	}
	return model
}

// left says where the conversation is kept.
func (c *chatter) left(session string) {
	if session != "" {
		fmt.Fprintf(c.e.stderr, "The conversation is session %s: shrimp chat --session %s goes on with it.\n", session, session)
	}
}

// helpWidth is the columns /help is wrapped to: the terminal's, else 80.
func (c *chatter) helpWidth() int {
	if f := terminalFile(c.e.screen); f != nil {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// wrapHelp breaks each line of text at spaces to fit width columns (a
// word longer than that stands alone); a line that starts with spaces and
// a word ("  /new      start …") goes on under the text after the word.
func wrapHelp(text string, width int) string {
	var b strings.Builder
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		lead := len(line) - len(strings.TrimLeft(line, " "))
		hang := 0
		if word := strings.IndexByte(line[lead:], ' '); lead > 0 && word > 0 {
			rest := line[lead+word:]
			hang = lead + word + len(rest) - len(strings.TrimLeft(rest, " "))
		}
		col := 0
		for j, w := range strings.Fields(line) {
			n := lineedit.Columns(w)
			switch {
			case j == 0:
				b.WriteString(line[:lead])
				col = lead
			case col+1+n > width && col > hang:
				b.WriteString("\n" + strings.Repeat(" ", hang))
				col = hang
			default:
				pad := 1
				if j == 1 && hang > 0 {
					pad = hang - col // the column the text after the word starts at
				}
				b.WriteString(strings.Repeat(" ", pad))
				col += pad
			}
			b.WriteString(w)
			col += n
		}
	}
	return b.String()
}
