package desktop

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/instructions"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/tool"
)

// SendRequest is one request typed in the window.
type SendRequest struct {
	SessionID string `json:"session_id"` // "" starts a new session
	Text      string `json:"text"`
	Workspace string `json:"workspace"` // "" means the home directory
	Model     string `json:"model"`     // "" means the configured or first installed model
	Approve   string `json:"approve"`   // ask (default), read, all or none
	// Images attached to the request (picked or pasted), for a
	// model that can see.
	Images []ImageUpload `json:"images"`
	// Replace, the seq of one of the session's requests (its
	// agent:run-started), makes this a retry or an edit of it: it and
	// the requests after it leave the model's history. With no text, the
	// request is asked again as it was (its images too).
	Replace int64 `json:"replace"`
	// UndoReplaced puts back the files the replaced requests changed
	// before the retry runs.
	UndoReplaced bool `json:"undo_replaced"`
	// Token is the window's name for this request, given back in the
	// PreparingName events of the hooks that run before Send returns.
	Token string `json:"token"`
}

// PreparingName is the window event that names a hook the request sent
// with a token waits for before its run starts (session-start and
// pre-request hooks: Send returns once they are done). A slow one (a
// session-start hook that installs dependencies) would otherwise show as
// a model that does not answer.
const PreparingName = "shrimp:preparing"

// Preparing is the data of PreparingName: the hook started, or is done.
type Preparing struct {
	Token string `json:"token"`
	Event string `json:"event"` // session-start or pre-request
	Hook  string `json:"hook"`  // as messages name it: hook a1 (./setup.sh)
	Done  bool   `json:"done"`
}

// ImageUpload is an image the window attaches to a request.
type ImageUpload struct {
	Name string `json:"name"` // the file's name, or what a pasted image is called
	Data string `json:"data"` // the file's bytes, in standard base64
}

// images checks the uploads as images (package attach).
func images(ups []ImageUpload) ([]attach.Image, error) {
	if err := attach.Count(len(ups)); err != nil {
		return nil, err
	}
	out := make([]attach.Image, 0, len(ups))
	for _, u := range ups {
		if base64.StdEncoding.DecodedLen(len(u.Data)) > attach.MaxBytes+3 {
			return nil, fmt.Errorf("attach %s: it is more than the %d MB an image may be; make it smaller", u.Name, attach.MaxBytes>>20)
		}
		data, err := base64.StdEncoding.DecodeString(u.Data)
		if err != nil {
			return nil, fmt.Errorf("attach %s: the window sent it damaged (%v): attach it again", u.Name, err)
		}
		img, err := attach.Parse(u.Name, data)
		if err != nil {
			return nil, err
		}
		out = append(out, img)
	}
	return out, nil
}

// SendResult says which session the request runs in.
type SendResult struct {
	SessionID string `json:"session_id"`
}

// Chat is the bound service that runs requests. Their events reach the
// window through the bridge like every other bus event.
type Chat struct {
	app       *app.App
	approvals *Approvals

	mu   sync.Mutex
	runs map[string]windowRun // by session
	// sending are the requests whose hooks still run before Send
	// returns, by the token the window sent them with (StopSending).
	sending map[string]context.CancelFunc
	running sync.WaitGroup // the runs' goroutines

	// pickFolder opens a folder dialog; set when the window starts.
	pickFolder func(title, start string) (string, error)
	// openURL opens a URL with the desktop's handler; set when the window
	// starts.
	openURL func(url string)
	// tell sends the window an event (PreparingName); set when the window
	// starts.
	tell Emitter
}

// windowRun is a request running from the window.
type windowRun struct {
	cancel context.CancelFunc
	done   chan struct{} // closed once it has let go of its session
	token  string        // the window's, when it sent one
}

// busyWait is how long a request sent in a session that is still
// running waits for it to end before it is refused (as a run waits for
// another process's, session's lockWait).
const busyWait = 2 * time.Second

// NewChat returns the chat service.
func NewChat(a *app.App, approvals *Approvals) *Chat {
	return &Chat{app: a, approvals: approvals, runs: map[string]windowRun{}, sending: map[string]context.CancelFunc{}}
}

// Send starts a request and returns at once with its session; the run goes
// on in the background.
func (c *Chat) Send(req SendRequest) (SendResult, error) {
	text := strings.TrimSpace(req.Text)
	if text == "" && req.Replace == 0 {
		return SendResult{}, errors.New("the request is empty: say what Shrimp should do")
	}
	mode, err := approval.ParseMode(req.Approve)
	if err != nil {
		return SendResult{}, err
	}
	imgs, err := images(req.Images)
	if err != nil {
		return SendResult{}, err
	}
	ws := req.Workspace
	if ws == "" {
		if ws, err = os.UserHomeDir(); err != nil {
			return SendResult{}, err
		}
	}
	if req.SessionID != "" {
		c.mu.Lock()
		r, busy := c.runs[req.SessionID]
		c.mu.Unlock()
		if busy {
			// A run whose end the window has shown lets go of its
			// session once what follows the end is stored (up to a
			// second): a request sent, or a retry clicked, at once waits
			// for that rather than being refused.
			select {
			case <-r.done:
			case <-time.After(busyWait):
				return SendResult{}, errors.New("this session is still answering; stop it or wait")
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	// The run's questions are kept under its session: call ids repeat
	// from session to session. id is set before the run starts (its
	// events are drained below).
	var id string
	prompt := func(ctx context.Context, r approval.Request, ready func()) (approval.Answer, error) {
		return c.approvals.prompt(ctx, id, r, ready)
	}
	ask := func(ctx context.Context, q app.ToolQuestion, ready func()) (tool.Answer, error) {
		return c.approvals.ask(ctx, id, q, ready)
	}
	o := app.ChatOptions{
		SessionID: req.SessionID, Workspace: ws, Text: text, Images: imgs, Approve: mode, Prompt: prompt, Ask: ask, Model: req.Model,
	}
	if c.tell != nil && req.Token != "" {
		o.Starting = func(h app.HookRunning) func() {
			c.tell(PreparingName, Preparing{Token: req.Token, Event: h.Event, Hook: h.Hook})
			return func() { c.tell(PreparingName, Preparing{Token: req.Token, Event: h.Event, Hook: h.Hook, Done: true}) }
		}
	}
	if req.Replace > 0 {
		if req.SessionID == "" {
			cancel()
			return SendResult{}, errors.New("a retry names the session of the request it replaces")
		}
		o.UndoReplaced = req.UndoReplaced
		if o, err = c.app.Retry(ctx, req.SessionID, req.Replace, o); err != nil {
			cancel()
			return SendResult{}, err
		}
	}
	if req.Token != "" {
		c.mu.Lock()
		c.sending[req.Token] = cancel
		c.mu.Unlock()
	}
	id, events, done, err := c.app.Chat(ctx, o)
	if req.Token != "" {
		c.mu.Lock()
		delete(c.sending, req.Token)
		c.mu.Unlock()
	}
	if err != nil {
		cancel()
		return SendResult{}, err
	}
	c.mu.Lock()
	finished := make(chan struct{})
	c.runs[id] = windowRun{cancel: cancel, done: finished, token: req.Token}
	c.mu.Unlock()
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		defer func() {
			c.mu.Lock()
			delete(c.runs, id)
			c.mu.Unlock()
			close(finished)
			cancel()
			done()
		}()
		for range events {
			// Events are published by the recorder; draining runs the loop.
		}
	}()
	return SendResult{SessionID: id}, nil
}

// Stop cancels the session's running request.
func (c *Chat) Stop(sessionID string) error {
	c.mu.Lock()
	r, ok := c.runs[sessionID]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("session %s is not running", sessionID)
	}
	r.cancel()
	return nil
}

// StopSending stops the request the window sent with token, before Send
// has returned its session: while the hooks it waits for before its run
// still run (a session-start hook that installs dependencies) they are
// ended, and its Send returns an error saying it was stopped before it
// started; once its run started, the run is stopped as Stop does.
func (c *Chat) StopSending(token string) error {
	c.mu.Lock()
	cancel, ok := c.sending[token]
	if !ok && token != "" { // its run started: Send's answer is on its way
		for _, r := range c.runs {
			if r.token == token {
				cancel, ok = r.cancel, true
				break
			}
		}
	}
	c.mu.Unlock()
	if !ok {
		return errors.New("that request is not running any more")
	}
	cancel()
	return nil
}

// stopWait is how long a closing window waits for its runs to end.
const stopWait = 5 * time.Second

// StopAll cancels every running request (the window is closing) and waits
// up to stopWait for them to end, so each is stored as stopped, its end
// included, and its commands are ended; a run that takes longer is ended
// "interrupted" when its session is next opened.
func (c *Chat) StopAll() {
	c.mu.Lock()
	for _, r := range c.runs {
		r.cancel()
	}
	for _, cancel := range c.sending {
		cancel()
	}
	c.mu.Unlock()
	done := make(chan struct{})
	go func() { c.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(stopWait):
		slog.Warn("the window closed before every run had ended", "after", stopWait)
	}
}

// Running reports whether a session has a request in progress.
func (c *Chat) Running(sessionID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.runs[sessionID]
	return ok
}

// Models lists the installed models.
func (c *Chat) Models() ([]model.Info, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	models, err := c.app.Model.List(ctx)
	if models == nil {
		models = []model.Info{}
	}
	return models, err
}

// PickWorkspace opens the system's folder picker; "" means cancelled.
func (c *Chat) PickWorkspace(current string) (string, error) {
	if c.pickFolder == nil {
		return "", errors.New("no folder picker here: type the folder's path")
	}
	return c.pickFolder("Choose the workspace folder", current)
}

// InstructionsView is what the window shows of a workspace's AGENTS.md
// files.
type InstructionsView struct {
	Files    []instructions.File `json:"files"`
	Warnings []string            `json:"warnings"`
}

// Instructions lists the instruction files the next request in workspace
// will be given (read now: the list follows edits).
func (c *Chat) Instructions(workspace string) InstructionsView {
	in := c.app.Instructions(workspace, 1<<20)
	return InstructionsView{Files: in.Files, Warnings: in.Warnings}
}

// WorkspaceNotes says what the user should know of workspace before a
// request runs there (see app.WorkspaceNotes); none for most folders.
func (c *Chat) WorkspaceNotes(workspace string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.app.WorkspaceNotes(ctx, workspace)
}

// OpenInstructions opens one of workspace's instruction files in the
// desktop's editor for Markdown; other paths are refused.
func (c *Chat) OpenInstructions(workspace, path string) error {
	for _, f := range c.app.Instructions(workspace, 1<<20).Files {
		if f.Path == path {
			if c.openURL == nil {
				return errors.New("no desktop here to open files with: open " + path + " yourself")
			}
			c.openURL((&url.URL{Scheme: "file", Path: path}).String())
			return nil
		}
	}
	return fmt.Errorf("%s is not an instruction file of %s", path, workspace)
}

// DefaultWorkspace is the folder requests work in unless the user picks one.
func (c *Chat) DefaultWorkspace() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return "/"
	}
	return home
}

// Answer is the window's reply to an approval request.
type Answer struct {
	Session string `json:"session"` // the session the request came from
	ID      string `json:"id"`      // the tool call id of the request
	// Question is the request's (Approvals.Request): an allow must name
	// the question the user read; a deny need not.
	Question string `json:"question"`
	Allow    bool   `json:"allow"`
	Always   bool   `json:"always"`
	Exact    bool   `json:"exact"` // always, for this exact call (a shell command as shown)
	Reason   string `json:"reason"`
}

// Approvals is the bound service the approval dialog answers through. The
// gate's request reaches the window as an approval:requested event; the
// run waits in prompt until Resolve is called for its id (or it is
// cancelled, which denies).
//
// The event is the record's, with secrets redacted, and a redaction can
// hide more than a secret (a command that opens a private key hides the
// rest of its line): the dialog reads what it shows and what the user
// approves from Request, the gate's own request, exactly as it will run.
type Approvals struct {
	mu        sync.Mutex
	pending   map[pendingKey]pendingApproval
	questions map[pendingKey]pendingQuestion
	// openURL opens a page a tool asks the user to open, once they
	// agree; set when the window starts.
	openURL func(url string)
}

// pendingQuestion is a tool's question waiting for the user's answer.
type pendingQuestion struct {
	q      app.ToolQuestion
	answer chan tool.Answer
}

// pendingKey names a question: call ids repeat from session to session.
type pendingKey struct{ session, id string }

type pendingApproval struct {
	req    approval.Request
	answer chan approval.Answer
}

// NewApprovals returns an empty approvals service.
func NewApprovals() *Approvals {
	return &Approvals{pending: map[pendingKey]pendingApproval{}, questions: map[pendingKey]pendingQuestion{}}
}

// ask puts a tool's question during a call of session's run to the window
// (app.Asker, with the session): the tool:question event announces it,
// the dialog reads it from Question and answers through AnswerQuestion.
// It ends with the call (cancelled).
func (p *Approvals) ask(ctx context.Context, session string, q app.ToolQuestion, ready func()) (tool.Answer, error) {
	ch := make(chan tool.Answer, 1)
	key := pendingKey{session, q.ID}
	p.mu.Lock()
	if _, taken := p.questions[key]; taken {
		p.mu.Unlock()
		return tool.Answer{}, fmt.Errorf("session %s already has a question from call %s", session, q.ID)
	}
	p.questions[key] = pendingQuestion{q: q, answer: ch}
	p.mu.Unlock()
	ready()
	defer func() {
		p.mu.Lock()
		delete(p.questions, key)
		p.mu.Unlock()
	}()
	select {
	case a := <-ch:
		return a, nil
	case <-ctx.Done():
		return tool.Answer{}, ctx.Err()
	}
}

// Question returns the question a tool of session's call id is waiting on,
// as the tool asked it (nothing redacted).
func (p *Approvals) Question(session, id string) (app.ToolQuestion, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q, ok := p.questions[pendingKey{session, id}]
	if !ok {
		return app.ToolQuestion{}, fmt.Errorf("no question waits from call %q in session %s: it was answered, or its call ended", id, session)
	}
	return q.q, nil
}

// AnswerQuestion answers a tool's question: accept (with the values typed,
// by field name), decline or cancel. Values that do not fit the question
// are refused, saying which and how, and the question still waits. A page
// the tool asked the user to open is opened in the browser on accept.
func (p *Approvals) AnswerQuestion(session, id, action string, values map[string]string) error {
	p.mu.Lock()
	q, ok := p.questions[pendingKey{session, id}]
	p.mu.Unlock()
	if !ok {
		return fmt.Errorf("no question waits from call %q in session %s: it was answered, or its call ended", id, session)
	}
	switch action {
	case tool.Accept:
		if _, err := q.q.Form().Parse(values); err != nil {
			return err
		}
	case tool.Decline, tool.Cancel:
		values = nil
	default:
		return fmt.Errorf("answer accept, decline or cancel, not %q", action)
	}
	select {
	case q.answer <- tool.Answer{Action: action, Values: values}:
	default:
		return fmt.Errorf("the question from call %q was already answered", id)
	}
	if action == tool.Accept && q.q.URL != "" {
		p.mu.Lock()
		open := p.openURL
		p.mu.Unlock()
		if open == nil {
			return fmt.Errorf("no browser can be opened from here: open %s yourself", q.q.URL)
		}
		open(q.q.URL)
	}
	return nil
}

// prompt asks about a call of session's run (approval.Prompter, with the
// session; unexported so it is not bound to the window).
func (p *Approvals) prompt(ctx context.Context, session string, req approval.Request, ready func()) (approval.Answer, error) {
	ch := make(chan approval.Answer, 1)
	key := pendingKey{session, req.ID}
	req.Question = rand.Text()
	p.mu.Lock()
	if _, taken := p.pending[key]; taken {
		p.mu.Unlock()
		return approval.Answer{}, fmt.Errorf("session %s already has a question about call %s", session, req.ID)
	}
	p.pending[key] = pendingApproval{req: req, answer: ch}
	p.mu.Unlock()
	// Only now may the window see the request: Resolve finds it pending.
	ready()
	defer func() {
		p.mu.Lock()
		delete(p.pending, key)
		p.mu.Unlock()
	}()
	select {
	case a := <-ch:
		return a, nil
	case <-ctx.Done():
		return approval.Answer{}, ctx.Err()
	}
}

// Request returns session's pending approval request for call id as the
// tool will run it, nothing redacted: the arguments, the text the user
// reads (Shown), the preview and what the call does.
func (p *Approvals) Request(session, id string) (approval.Request, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q, ok := p.pending[pendingKey{session, id}]
	if !ok {
		return approval.Request{}, fmt.Errorf("no pending approval %q in session %s: it was answered, timed out or its run ended", id, session)
	}
	return q.req, nil
}

// Resolve answers a pending approval. An allow must name the question
// (Request's Question): call ids repeat from run to run, and an allow
// clicked as its question ended would otherwise answer the next one.
func (p *Approvals) Resolve(a Answer) error {
	p.mu.Lock()
	q, ok := p.pending[pendingKey{a.Session, a.ID}]
	p.mu.Unlock()
	if !ok {
		return fmt.Errorf("no pending approval %q in session %s: it was answered, timed out or its run ended", a.ID, a.Session)
	}
	if a.Allow && a.Question != q.req.Question {
		return fmt.Errorf("approval %q in session %s is another question than the one answered (that one ended): nothing was allowed; read the request shown now and answer it", a.ID, a.Session)
	}
	select {
	case q.answer <- approval.Answer{Allow: a.Allow, Always: a.Always, Exact: a.Exact, Reason: a.Reason}:
		return nil
	default:
		return fmt.Errorf("approval %q was already answered", a.ID)
	}
}
