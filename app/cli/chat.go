package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/samber/lo"
	"golang.org/x/term"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/bus"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/instructions"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/procedures/agentmem"
	"github.com/shrimp-harness/shrimp/backend/prompt"
	"github.com/shrimp-harness/shrimp/internal/jsonplain"
	"github.com/shrimp-harness/shrimp/internal/plural"
	"github.com/shrimp-harness/shrimp/internal/sniff"
)

func runChat(ctx context.Context, e *env, args []string) error {
	fs := newFlags("chat")
	asJSON := fs.Bool("json", false, "print one JSON object per event")
	sessionID := fs.String("session", "", "continue this session")
	workspace := fs.String("workspace", "", "the directory the tools work in (default: with --session, the folder the session worked in; else the current directory)")
	approve := fs.String("approve", "ask", "approval mode: ask, read, all or none")
	var think thinkFlag
	fs.Var(&think, "think", "what a reasoning model (qwen3, deepseek-r1, gpt-oss) does before answering: --think (on), --think=off (faster answers), --think=low|medium|high (gpt-oss's effort); default: Settings, else the model's own (on for models that think)")
	allowPrivate := fs.Bool("allow-private-net", false, "let web.fetch reach loopback and private addresses")
	maxTurns := fs.Int("max-turns", 0, fmt.Sprintf("the model turns the request may take, 3 to %d (default: $%s, else Settings, else %d)", app.MostTurns, app.MaxTurnsEnv, app.DefaultMaxTurns))
	var imagePaths repeated
	fs.Var(&imagePaths, "image", "attach an image (PNG, JPEG, GIF or WebP) for a model that can see; repeat for more")
	retry := fs.Bool("retry", false, "with --session: replace the session's last request (it leaves the model's history) by asking it again, as it was or as MESSAGE")
	undoFirst := fs.Bool("undo", false, "with --retry: first put back the files the replaced request changed")
	if err := parseInterleaved(fs, args, valuedFlags...); err != nil {
		return err
	}
	if *retry && *sessionID == "" {
		return fmt.Errorf("%w: --retry replaces a request of a session: name it with --session ID (shrimp sessions list)", errUsage)
	}
	if *undoFirst && !*retry {
		return fmt.Errorf("%w: --undo goes with --retry; to undo a request's file changes alone: shrimp sessions undo ID", errUsage)
	}
	var images []attach.Image
	for _, p := range imagePaths {
		img, err := readImage(p)
		if err != nil {
			return err
		}
		images = append(images, img)
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if fs.NArg() == 1 && fs.Arg(0) == "-" {
		// The message from standard input: any length, any first character.
		b, err := io.ReadAll(io.LimitReader(e.stdin, maxMessage+1))
		if err != nil {
			return fmt.Errorf("read the message from standard input: %w", err)
		}
		if len(b) > maxMessage {
			return fmt.Errorf("the message on standard input is over %d MB; shorten it, or put the text in a file in the workspace and ask Shrimp to read it", maxMessage>>20)
		}
		if err := notBinary(b, true); err != nil {
			return err
		}
		text = strings.TrimSpace(string(b))
		if text == "" {
			return fmt.Errorf("%w: standard input was empty: pipe the message in, for example: shrimp chat - < request.txt", errUsage)
		}
	}
	if fs.NArg() > 0 && text != "" && fs.Arg(0) != "-" {
		// A message, and text piped in beside it (git diff | shrimp chat
		// "write a commit message for this"): the text goes after it.
		piped, img, err := pipedInput(e.stdin, e.stderr, true)
		if err != nil {
			return err
		}
		if img != nil {
			// A picture piped in (grim - | shrimp chat "what is on my
			// screen"): the message's image.
			images = append(images, *img)
		} else if piped != "" {
			text += "\n\n" + piped
		}
	}
	if fs.NArg() == 0 && terminalFile(e.stdin) == nil {
		// No message, and text piped in (echo "list the files" | shrimp
		// chat): that text is the message, as with -.
		piped, _, err := pipedInput(e.stdin, e.stderr, false)
		if err != nil {
			return err
		}
		text = piped
	}
	tty := terminalFile(e.stdin)
	// No message, typed at a terminal: a conversation, one request after
	// another in one session.
	interactive := text == "" && fs.NArg() == 0 && !*asJSON && tty != nil && !*retry
	if text == "" && !interactive && !*retry {
		return fmt.Errorf("%w: say what Shrimp should do, for example: shrimp chat \"list the files here\" (a message that starts with - goes after --; text piped in with no message is the message; at a terminal, shrimp chat alone starts a conversation)", errUsage)
	}
	mode, err := approval.ParseMode(*approve)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	a, err := app.Open(e.cfg, e.log)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Close(cctx)
	}()

	c := &chatter{a: a, e: e, p: &printer{w: e.stdout, errw: e.stderr, json: *asJSON},
		opts: app.ChatOptions{Workspace: *workspace, Approve: mode, Think: model.Think(think), AllowPrivateNet: *allowPrivate, Images: images, MaxTurns: *maxTurns}}
	if *asJSON && tty != nil {
		c.opts.Unasked = "with --json, which asks nothing: run without it to answer at the terminal"
	}
	if !*asJSON && tty != nil {
		c.t = newTerminal(tty, e.stderr, func() { flushInput(tty) })
		c.t.waiting = func() int { return typedAhead(tty) }
		c.t.open = func(address string) { startBrowser(e, address) }
		c.opts.Prompt, c.opts.Ask = c.t.prompter(), c.t.asker()
		c.p.asks = true
		c.t.before = c.caughtUp
	}
	if !*asJSON {
		c.p.style = styled(e.rawStdout)
		if f := terminalFile(e.screen); f != nil && os.Getenv("TERM") != "dumb" {
			var busy func() bool
			if c.t != nil {
				busy = c.t.asking
				c.t.before = func() { c.caughtUp(); c.p.spin.hush() }
			}
			c.p.spin = newSpinner(f, busy)
		}
	}
	if *sessionID != "" {
		// Said here: the run's own stream starts with its request.
		if closed, err := a.Runner.CloseInterrupted(ctx, *sessionID); err == nil && closed {
			fmt.Fprintln(e.stderr, "note: the last request of this session was interrupted (Shrimp was killed or crashed before it ended); it is marked so, and the model is told that a tool it cut off may have done part of its work")
		}
	}
	if *sessionID == "" && !*asJSON {
		// What to know of the folder before the first request runs there
		// (its commands always asked, their changes not undone).
		if abs, err := filepath.Abs(*workspace); err == nil {
			for _, n := range a.WorkspaceNotes(ctx, abs) {
				fmt.Fprintln(e.stderr, "note: "+n)
			}
		}
	}
	if interactive {
		hist := loadHistory(filepath.Join(a.Config.DataDir, historyFile), a.Recorder.RedactText, e.log)
		c.ed = editable(c.t, tty, e.screen, hist)
		return c.converse(ctx, *sessionID)
	}
	var sessID string
	if *retry {
		sessID, err = c.retry(ctx, *sessionID, text, *undoFirst)
	} else {
		if filled, ok := c.command(text); ok {
			text = filled
		}
		sessID, err = c.run(ctx, *sessionID, text)
	}
	if err != nil && sessID != "" && (c.p.status == agent.StatusCancelled || ctx.Err() != nil) {
		return errors.New("cancelled; the session so far is stored (see `shrimp sessions show " + sessID + "`)")
	}
	return err
}

// readImage reads an image to attach: path is the user's (~ is their
// home folder), relative to the current folder, not the workspace.
func readImage(path string) (attach.Image, error) { return attach.Read(app.HomePath(path)) }

// imageList names images with their size: "shot.png (1280×720, 240 KB)".
func imageList(images []attach.Image) string {
	parts := make([]string, len(images))
	for i, img := range images {
		parts[i] = fmt.Sprintf("%s (%d×%d, %s)", escaped(img.Name), img.Width, img.Height, humanBytes(int64(img.Bytes)))
	}
	return strings.Join(parts, ", ")
}

// pipedInputNote is how long a pipe may stay open with nothing more
// before a note says what the command waits for.
const pipedInputNote = 3 * time.Second

// pipedInput returns what a pipe or a file on standard input holds, up to
// maxMessage, trimmed; "" when standard input is a terminal, a device
// (/dev/null) or not a file at all. With picture set, a PNG, JPEG, GIF or
// WebP image piped in is returned as img (up to attach.MaxBytes) instead
// of refused. A pipe left open (a parent process that never closes it)
// would keep the command waiting without a word: after pipedInputNote a
// note on errw says so.
func pipedInput(in io.Reader, errw io.Writer, picture bool) (text string, img *attach.Image, err error) {
	f, ok := in.(*os.File)
	if !ok || f == nil {
		return "", nil, nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe) == 0 && !fi.Mode().IsRegular() {
		return "", nil, nil
	}
	note := time.AfterFunc(pipedInputNote, func() {
		fmt.Fprintln(errw, "shrimp: reading what is piped to standard input until it is closed (to send the message alone: < /dev/null)")
	})
	b, err := io.ReadAll(io.LimitReader(f, max(maxMessage, attach.MaxBytes)+1))
	note.Stop()
	if err != nil {
		return "", nil, fmt.Errorf("read what was piped to standard input: %w", err)
	}
	if picture && attach.Sniffed(b) {
		i, err := attach.Parse("standard input", b)
		if err != nil {
			return "", nil, err
		}
		return "", &i, nil
	}
	if len(b) > maxMessage {
		return "", nil, fmt.Errorf("the text piped to standard input is over %d MB; shorten it, or put it in a file in the workspace and ask Shrimp to read it", maxMessage>>20)
	}
	if err := notBinary(b, !picture); err != nil {
		return "", nil, err
	}
	return strings.TrimSpace(string(b)), nil, nil
}

// notBinary refuses what is piped in when it is not text (an image, an
// archive): the model would read its bytes as words, and nothing would
// say why the answer makes no sense. alone says no message was given: a
// picture is then told how to go with one.
func notBinary(b []byte, alone bool) error {
	kind := sniff.Binary(b)
	switch {
	case kind == "":
		return nil
	case alone && attach.Sniffed(b):
		return fmt.Errorf("%w: a picture was piped to standard input with no message: say what to do with it, for example: shrimp chat \"what does this show?\" < shot.png (for a model that can see)", errUsage)
	}
	return fmt.Errorf("what is piped to standard input is not text (%s): Shrimp sends the model text and pictures: pipe text (a PDF as text: pdftotext FILE -), a picture beside a message, or nothing with < /dev/null", kind)
}

// terminalFile returns v when it is a file that is a terminal (standard
// input, output or error as given), else nil.
func terminalFile(v any) *os.File {
	if f, ok := v.(*os.File); ok && f != nil && term.IsTerminal(int(f.Fd())) {
		return f
	}
	return nil
}

// chatter runs the requests of one chat command.
type chatter struct {
	a  *app.App
	e  *env
	p  *printer
	t  *terminal // the terminal questions are asked on; nil without one
	ed *editor   // a conversation's line editor; nil where keys or screen are not a terminal
	// conversing: the requests come one after another at the terminal
	// (converse), where /undo is at hand.
	conversing bool
	// editing is the request /edit brought back to the prompt: the next
	// line typed is sent in its place.
	editing *app.Request
	opts    app.ChatOptions
	// outsideNext is where the next request's text came from when the
	// user did not write it (a folder's saved command): run hands it on.
	outsideNext string
	// printing is the running request's printer subscription (nil
	// between requests): a question waits for it to print what came
	// before, so the call it asks about is on the screen above it.
	printing atomic.Pointer[bus.Subscription[agent.Event]]
}

// caughtUpWait bounds how long a question waits for the printer: a
// printer stuck on a slow terminal must not hold the question up.
var caughtUpWait = 500 * time.Millisecond

// caughtUp waits, briefly, until the printer has printed every event
// published so far.
func (c *chatter) caughtUp() {
	if s := c.printing.Load(); s != nil {
		ctx, cancel := context.WithTimeout(context.Background(), caughtUpWait)
		defer cancel()
		_ = s.Idle(ctx)
	}
}

// command fills in the saved command a request names (/review security,
// package commands): the request it stands for, and true; false when
// the request names none. What the user should know of it (whose it is,
// its shell commands left to the model) goes to standard error.
func (c *chatter) command(request string) (string, bool) {
	if !strings.HasPrefix(request, "/") {
		return "", false
	}
	name, args := request, ""
	if i := strings.IndexAny(request, " \t\n"); i >= 0 { // "/review error handling", "/review\nthe rest"
		name, args = request[:i], request[i+1:]
	}
	ws, err := filepath.Abs(cmp.Or(c.opts.Workspace, "."))
	if err != nil {
		return "", false
	}
	cmd, ok := c.a.Commands(ws).Lookup(name)
	if !ok {
		return "", false
	}
	text, notes := cmd.Fill(args)
	if cmd.Scope == "workspace" {
		// Text the folder's authors wrote, sent unseen: as after a web
		// page, "always" answers do not cover what it leads the run to
		// write or run (app.ChatOptions.Outside).
		c.outsideNext = "this folder's saved command " + cmd.File
		fmt.Fprintf(c.e.stderr, "shrimp: /%s is this folder's command %s, text its authors wrote, sent as the request: as after a web page, your \"always\" answers do not cover the calls it leads to that write or run (shrimp commands show %s prints it)\n", cmd.Name, cmd.File, cmd.Name)
	} else {
		fmt.Fprintf(c.e.stderr, "shrimp: /%s is your command %s, sent as the request\n", cmd.Name, cmd.File)
	}
	for _, n := range notes {
		fmt.Fprintln(c.e.stderr, "note: "+n)
	}
	return text, true
}

// run runs one request in session (a new one when empty), prints its
// events, and returns the session's id once the run has one.
func (c *chatter) run(ctx context.Context, session, text string) (string, error) {
	opts := c.opts
	opts.SessionID, opts.Text = session, text
	opts.Outside, c.outsideNext = c.outsideNext, ""
	return c.runWith(ctx, opts)
}

// slowHook is how long a hook that runs before a request (session-start,
// pre-request) may take before the terminal names it.
const slowHook = time.Second

// runWith is run with the request's options as given (a retry's).
func (c *chatter) runWith(ctx context.Context, opts app.ChatOptions) (string, error) {
	session := opts.SessionID
	if !c.p.json {
		opts.Starting = func(h app.HookRunning) func() {
			t := time.AfterFunc(slowHook, func() {
				fmt.Fprintf(c.e.stderr, "shrimp: waiting for a %s hook: %s…\n", h.Event, h.Hook)
			})
			return func() { t.Stop() }
		}
	}
	sessID, events, done, err := c.a.Chat(ctx, opts)
	if err != nil {
		return session, err
	}
	defer done()
	c.p.start(sessID)
	sub, err := c.a.Bus.Subscribe("cli-printer", c.p.handle,
		bus.Filter(func(ev agent.Event) bool { return ev.Session == sessID }),
		bus.Buffer[agent.Event](8192), bus.OnFull(bus.Block[agent.Event](time.Minute)))
	if err != nil {
		return sessID, err
	}
	c.printing.Store(sub)
	defer c.printing.Store(nil)
	var runErr error
	var runSeq int64 // the seq of the run's start
	for e, err := range events {
		if err != nil {
			runErr = err
		} else if e.Type == agent.TypeRunStarted {
			runSeq = e.Seq
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := c.a.Settle(sctx); err != nil {
		slog.Warn("settle", "err", err)
	}
	sub.Close()
	c.p.finish()
	c.sayUndo(sctx, sessID, runSeq)
	switch {
	case c.p.status == agent.StatusCancelled || ctx.Err() != nil:
		return sessID, errors.New("cancelled")
	case runErr != nil:
		return sessID, runErr
	case c.p.status != agent.StatusResponded:
		return sessID, errors.New("the run ended without an answer")
	case c.p.empty:
		return sessID, errors.New("the model returned an empty answer; ask again, or try another model")
	}
	return sessID, nil
}

// maxMessage is the longest message chat takes on standard input.
const maxMessage = 16 << 20

// valuedFlags are the flags of chat and sessions that take a value.
var valuedFlags = []string{"session", "workspace", "image", "approve", "format", "request", "keep", "anyway", "limit", "search", "max-turns"}

// parseInterleaved parses args with fs after moving flags that follow the
// message to the front, so `chat "do it" --json` works like
// `chat --json "do it"`; valued names the flags that take a value.
func parseInterleaved(fs *flag.FlagSet, args []string, valued ...string) error {
	ordered, err := interleaveWith(args, valued...)
	if err != nil {
		return err
	}
	return parseFlags(fs, ordered)
}

// interleaveWith moves the flags to the front, each valued flag with its
// value, and puts "--" before the rest. A valued flag with nothing after it
// is a usage error (the parser would otherwise take "--" as its value).
func interleaveWith(args []string, valued ...string) ([]string, error) {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
			if name := strings.TrimLeft(a, "-"); slices.Contains(valued, name) {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("%w: flag --%s needs a value", errUsage, name)
				}
				i++
				flags = append(flags, args[i])
			}
			continue
		}
		rest = append(rest, a)
	}
	return append(append(flags, "--"), rest...), nil
}

// printer writes a session's events to stdout, as JSON lines or as text.
type printer struct {
	w       io.Writer
	errw    io.Writer // notes that are not the answer (plain mode)
	json    bool
	session string
	asks    bool // a tool's question is put to the user on the terminal
	// style shows the answer's Markdown on a terminal (nil: as written).
	style *styler
	// spin says what the run waits for on a terminal (nil: nothing).
	spin    *spinner
	endSpin func()
	model   string // the run's model, for spin
	next    string // what spin says after the event being handled

	mu       sync.Mutex
	status   string
	empty    bool // the answer was empty
	lastText bool // the last thing printed was streamed text
}

// start readies p for a run of session.
func (p *printer) start(session string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.session, p.status, p.empty, p.lastText = session, "", false, false
	if p.spin != nil {
		p.model = "the model"
		p.next = "waiting for " + p.model
		p.spin.show(p.next)
		p.endSpin = p.spin.run()
	}
}

// spinAfter sets what the spinner says once ev is handled: what the run
// waits for next (nothing while an answer streams mid-line).
func (p *printer) spinAfter(ev agent.Event) {
	switch d := ev.Data.(type) {
	case agent.RunStarted:
		if d.Model != "" {
			p.model = escaped(d.Model)
		}
		p.next = "waiting for " + p.model
	case agent.ModelLoading:
		p.next = "Ollama is loading " + p.model
	case agent.ModelLoaded, agent.ToolResult:
		p.next = "waiting for " + p.model
	case agent.ToolCall:
		p.next = "running " + escaped(d.Name)
	case agent.RunEnded:
		p.next = ""
	case agent.Delta:
		if ev.Type == agent.TypeThinking {
			p.next = p.model + " is thinking"
		}
	}
	if p.lastText {
		p.spin.show("")
		return
	}
	p.spin.show(p.next)
}

func (p *printer) handle(_ context.Context, ev agent.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spin != nil && !p.json {
		p.spin.hush()
		defer p.spinAfter(ev)
	}
	switch d := ev.Data.(type) {
	case agent.RunEnded:
		p.status = d.Status
	case agent.Response:
		p.empty = strings.TrimSpace(d.Text) == ""
	case agent.ModelLoading:
		if !p.json {
			p.newline()
			if d.Loaded > 0 {
				fmt.Fprintf(p.errw, "shrimp: Ollama loads %s again for a context of %d tokens (it is in memory with %d): this can take a while\n", d.Model, d.NumCtx, d.Loaded)
			} else {
				fmt.Fprintf(p.errw, "shrimp: Ollama loads %s into memory (not used lately): this can take a while (SHRIMP_KEEP_ALIVE=30m, or the window's Settings, keeps a model loaded longer)\n", d.Model)
			}
		}
	case app.HookRunning:
		if !p.json {
			p.newline()
			what := "the answer"
			switch d.Event {
			case hooks.PreToolCall:
				what = "the call"
			case hooks.PostToolCall:
				what = "the call's result"
			}
			fmt.Fprintf(p.errw, "shrimp: checking %s: %s…\n", what, d.Hook)
		}
	case app.ToolQuestion:
		if !p.json && !p.asks {
			p.newline()
			fmt.Fprintf(p.errw, "shrimp: %s asks the user: %s (nobody can answer without a terminal, so it is dismissed)\n", d.Tool, strings.Join(strings.Fields(d.Message), " "))
		}
	case agent.ModelLoaded:
		if !p.json {
			p.newline()
			if d.Seconds >= 0.1 {
				fmt.Fprintf(p.errw, "shrimp: %s loaded in %.1f s\n", d.Model, d.Seconds)
			} else {
				fmt.Fprintf(p.errw, "shrimp: %s is ready\n", d.Model)
			}
		}
	case agent.RunStarted:
		if !p.json && len(d.Images) > 0 {
			p.newline()
			fmt.Fprintf(p.errw, "shrimp: sent with %s: %s\n", plural.N(len(d.Images), "image", "images"), imageList(d.Images))
		}
	case prompt.Compacted:
		if !p.json {
			fmt.Fprintf(p.errw, "shrimp: note: the conversation was cut to fit the model's context (about %d tokens, %d allowed): %s\n", d.Before, d.Budget, compactedParts(d))
		}
	}
	if !p.json {
		if notes := runNotes(ev); len(notes) > 0 {
			p.newline()
			for _, n := range notes {
				fmt.Fprintf(p.errw, "shrimp: %s\n", n)
			}
		}
	}
	if p.json {
		return jsonplain.NewEncoder(p.w).Encode(ev) // one line, written whole, as e.jsonOut
	}
	switch d := ev.Data.(type) {
	case agent.Delta:
		if ev.Type == agent.TypeToken {
			if p.style != nil {
				p.style.write(d.Text)
			} else {
				fmt.Fprint(p.w, d.Text)
			}
			p.lastText = true
		}
	case agent.ToolCall:
		p.newline()
		fmt.Fprintf(p.w, "→ %s %s\n", d.Name, callArgs(d.Arguments, 120))
	case agent.ToolResult:
		same := ""
		switch {
		case d.Repeated:
			same = " (same as before)"
		case d.Refetched:
			same = " (again: left out to fit the context)"
		}
		if d.Error != "" {
			fmt.Fprintf(p.w, "  ✗ %s%s\n", firstLine(d.Error, 160), same)
		} else {
			fmt.Fprintf(p.w, "  ✓ %s%s\n", firstLine(d.Output, 160), same)
		}
	case agent.SentBack:
		// A check the user set up (a pre-run-end hook) says the answer
		// above is not the end: what it told the model, in short.
		p.newline()
		fmt.Fprintf(p.w, "↻ sent back to work (%d of at most %d):\n", d.Time, agent.MaxSentBack)
		lines := strings.Split(strings.TrimSpace(d.Text), "\n")
		for _, l := range lines[:min(len(lines), sentBackLines)] {
			fmt.Fprintf(p.w, "  %s\n", cutRunes(l, 200))
		}
		if n := len(lines) - sentBackLines; n > 0 {
			fmt.Fprintf(p.w, "  (%s more)\n", plural.N(n, "line", "lines"))
		}
	case agent.Error:
		if d.Kind == agent.KindError {
			break // the run ends with it: the command's last line says it, once
		}
		p.newline()
		fmt.Fprintf(p.w, "[%s] %s\n", d.Kind, d.Message)
	}
	return nil
}

// runNotes says, for the plain output, what the harness did around the
// model that the model's own output does not show: the instruction files
// in force and what procedural memory did, one line each. The window
// shows the same beside the chat and on its badges.
func runNotes(ev agent.Event) []string {
	switch d := ev.Data.(type) {
	case agentmem.Recalled:
		return lo.Map(d.Procedures, func(s agentmem.Summary, _ int) string {
			return fmt.Sprintf("recalled procedure %s (learned from %q): %s", s.ID, firstLine(s.Trigger, 80), s.Chain)
		})
	case agentmem.Summary:
		switch ev.Type {
		case agentmem.TypeLearned:
			return []string{fmt.Sprintf("learned procedure %s from this request: %s (offered for similar requests from now on; shrimp procedures forget %s if it should not be)", d.ID, d.Chain, d.ID)}
		case agentmem.TypeUpdated:
			return []string{fmt.Sprintf("this request counts as a use of procedure %s: %s (used %s)", d.ID, d.Chain, times(d.Uses))}
		}
	case agentmem.Forgotten:
		if d.ByUser {
			return nil
		}
		n := fmt.Sprintf("the model marked procedure %s as wrong", d.Procedure.ID)
		if d.Reason != "" {
			n += ": " + firstLine(d.Reason, 160)
		}
		if d.Dropped {
			return []string{n + fmt.Sprintf(" (no longer recalled; shrimp procedures restore %s brings it back)", d.Procedure.ID)}
		}
		return []string{n + fmt.Sprintf(" (demerits: %d)", d.Procedure.Demerits)}
	case instructions.LoadedEvent:
		// Someone else's AGENTS.md steers the model as much as the request
		// does (a cloned repository's, a parent folder's): say which.
		if len(d.Files) == 0 {
			return nil
		}
		names := lo.Map(d.Files, func(f instructions.File, _ int) string {
			n := tildeHome(f.Path)
			if f.Cut() {
				n += fmt.Sprintf(" (%d of %d bytes)", f.Used, f.Bytes)
			}
			return n
		})
		return []string{"following the instructions in " + strings.Join(names, ", ")}
	case agentmem.Declined:
		if d.ByUser {
			return nil
		}
		return []string{fmt.Sprintf("the recalled procedure %s was not used, so it is not offered for this request again (shrimp procedures restore %s offers it again)", d.Procedure.ID, d.Procedure.ID)}
	}
	return nil
}

// tildeHome writes a path under the home folder as ~/….
func tildeHome(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return path
	}
	if rest, ok := strings.CutPrefix(path, home+string(os.PathSeparator)); ok {
		return "~" + string(os.PathSeparator) + rest
	}
	return path
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// compactedParts says what fitting the context did.
func compactedParts(d prompt.Compacted) string {
	var parts []string
	for _, p := range []struct {
		n         int
		one, many string
	}{
		{d.Stubbed, "old tool output replaced by a stub", "old tool outputs replaced by stubs"},
		{d.Summarized, "earlier message summarised", "earlier messages summarised"},
		{d.Dropped, "oldest message dropped", "oldest messages dropped"},
		{d.Cut, "message cut short", "messages cut short"},
	} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, lo.Ternary(p.n == 1, p.one, p.many)))
		}
	}
	if len(parts) == 0 {
		return "nothing could be left out"
	}
	return strings.Join(parts, ", ") + "; start a new session or raise num_ctx (shrimp models ctx) to keep more"
}

func (p *printer) newline() {
	if p.style != nil {
		p.style.end()
	}
	if p.lastText {
		fmt.Fprintln(p.w)
		p.lastText = false
	}
}

func (p *printer) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.endSpin != nil {
		p.endSpin()
		p.endSpin = nil
	}
	if !p.json {
		p.newline()
	}
}

func oneLineJSON(b []byte, n int) string {
	return firstLine(strings.Join(strings.Fields(string(b)), " "), n)
}

// sentBackLines is how many lines of what a check said are printed.
const sentBackLines = 8

// cutRunes cuts s to n characters, marking the cut.
func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if s = cutRunes(s, n); s == "" {
		s = "(no output)"
	}
	return s
}

// thinkFlag is --think: alone, on; --think=off, --think=low and the rest
// as model.ParseThink reads them.
type thinkFlag model.Think

func (f *thinkFlag) String() string   { return string(*f) }
func (f *thinkFlag) IsBoolFlag() bool { return true }
func (f *thinkFlag) Set(v string) error {
	t, err := model.ParseThink(v)
	*f = thinkFlag(t)
	return err
}
