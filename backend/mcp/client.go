package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/injection"
	shrimptool "github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/internal/childproc"
	"github.com/shrimp-harness/shrimp/internal/jsonstrings"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

//go:embed inherit.json
var inheritJSON []byte

// inherited are the names of Shrimp's environment variables a stdio server
// gets (inherit.json).
var inherited = func() []string {
	var f struct {
		Names []string `json:"names"`
	}
	if err := json.Unmarshal(inheritJSON, &f); err != nil || len(f.Names) == 0 {
		panic(fmt.Sprintf("inherit.json: %v", err))
	}
	return f.Names
}()

// environ is a stdio server's environment: the few variables of Shrimp's
// that every program needs (inherited), then the server's own env, which
// wins. The rest of Shrimp's environment (API keys, cloud credentials,
// tokens) is not passed on: a server is another party's code.
func environ(own map[string]string) []string {
	var env []string
	for _, k := range inherited {
		if _, set := own[k]; !set {
			if v, ok := os.LookupEnv(k); ok {
				env = append(env, k+"="+v)
			}
		}
	}
	for k, v := range own {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// ErrToolFailed marks a call the server answered with an error (the tool
// ran and failed), as opposed to a server that did not answer.
var ErrToolFailed = errors.New("the tool failed")

// Tool is one tool a server offers.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// Hints are what the server says of the tool's effects (MCP's tool
	// annotations), only where it says so: hints, not checked, so they
	// can add to what the user reads before approving, never allow more.
	Hints Hints `json:"hints,omitzero"`
	// Kind is set on the tools Shrimp adds beside the server's own
	// (KindListResources, KindReadResource), "" on the server's.
	Kind string `json:"kind,omitempty"`
	// NeedsTasks is set on a tool its server says must run as an MCP
	// task, which Shrimp does not support (tasks.go): listed, not offered.
	NeedsTasks bool `json:"needs_tasks,omitempty"`
	// Excluded is set on a tool the server's settings keep from the
	// model (Server.IncludeTools, ExcludeTools): listed, not offered.
	Excluded bool `json:"excluded,omitempty"`
	// Offered is the name the model calls it by (mcp.<server>.<tool>, in
	// the characters a tool name may hold), "" when it is not offered;
	// set in a Manager's statuses.
	Offered string `json:"offered,omitempty"`
}

// Hints are a tool's annotations as its server gave them.
type Hints struct {
	ReadOnly    bool  `json:"read_only,omitempty"`   // it says it changes nothing
	Destructive *bool `json:"destructive,omitempty"` // it says it may delete or overwrite (nil: not said)
	OpenWorld   *bool `json:"open_world,omitempty"`  // it says it reaches outside (nil: not said)
}

// Said returns what the hints say, for the approval question: facts
// about the call (effects), and what deserves a second look (warnings).
func (h Hints) Said() (effects, warnings []string) {
	if h.ReadOnly {
		effects = append(effects, "its server says the tool only reads (a hint, not checked)")
	} else if h.Destructive != nil && *h.Destructive {
		warnings = append(warnings, "its server says the tool may delete or overwrite data")
	}
	if h.OpenWorld != nil && *h.OpenWorld {
		effects = append(effects, "its server says the tool reaches outside this machine (the web, other services)")
	}
	return effects, warnings
}

// Session is a connection to one server.
type Session struct {
	name    string
	cs      *sdk.ClientSession
	cmd     *exec.Cmd     // nil for HTTP
	done    chan struct{} // closed when the connection has ended
	waitErr error         // why it ended, once done is closed
	notMCP  *atomic.Int64 // lines of stdout that were not MCP messages (stdio)
	sse     *sseTransport // nil unless the older HTTP+SSE transport

	// progress holds, by progress token, the report function of each call
	// under way whose caller listens (tool.WithProgress).
	progress sync.Map
	tokens   atomic.Int64
	// askers are the calls under way whose caller can ask the user a
	// server's question (elicit.go).
	askers askers
	// completions are the pages opened whose end the server will tell,
	// by elicitation id (elicit.go).
	completions sync.Map
	// tasks are the tools that must run as tasks (tasks.go).
	tasks *taskTools
	// roots is what the server was told of the workspaces (nil: a server
	// not told them; roots.go).
	roots *roots
}

// sseTransport is the SDK's SSE client transport connected with a
// context of its own: its event stream is a GET bound to the context it
// is connected with, so connecting it with a handshake's deadline ended
// the stream (and every later call, with EOF) as the handshake returned.
// Connect still gives up when ctx ends; close ends the stream.
type sseTransport struct {
	inner sdk.SSEClientTransport
	stop  context.CancelFunc
}

// Connect opens the event stream.
func (t *sseTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	live, stop := context.WithCancel(context.WithoutCancel(ctx))
	t.stop = stop
	type result struct {
		conn sdk.Connection
		err  error
	}
	done := make(chan result, 1)
	go func() {
		c, err := t.inner.Connect(live)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		return r.conn, r.err
	case <-ctx.Done():
		stop()
		return nil, ctx.Err()
	}
}

// close ends the event stream (nil: nothing to end).
func (t *sseTransport) close() {
	if t != nil && t.stop != nil {
		t.stop()
	}
}

// connectTimeout bounds starting a server and its handshake.
const connectTimeout = 30 * time.Second

// Connect starts (stdio) or reaches (HTTP) the server and completes the
// MCP handshake. A stdio server runs without a shell, in its own process
// group, with its env added to Shrimp's; its stderr goes to stderr (nil:
// discarded), and so do the lines of its stdout that are not MCP
// messages (stdio.go), each after "stdout (not an MCP message): ". A
// streamable HTTP server is sent the sign-in tokens keep for it (nil:
// none; oauth.go); one that asks for a sign-in is an error wrapping
// ErrSignIn.
func Connect(ctx context.Context, name string, s Server, stderr io.Writer, tokens *Tokens) (*Session, error) {
	return connectWith(ctx, name, s, stderr, nil, nil, keptAuthOf(tokens, name, s), nil)
}

// keptAuthOf is the OAuth handler of a server's connections outside a
// sign-in (nil when it is not signed in to over OAuth).
func keptAuthOf(tokens *Tokens, name string, s Server) auth.OAuthHandler {
	if tokens == nil || !wantsOAuth(s) {
		return nil
	}
	k := &keptAuth{tokens: tokens, name: name, address: s.URL}
	if e, err := s.expanded(os.LookupEnv); err == nil && e.OAuth != nil {
		k.secret = e.OAuth.ClientSecret
	}
	if ts := tokens.source(name, s.URL, k.secret); ts != nil {
		k.ts = ts
	}
	return k
}

// connectWith is Connect with a function called when the server says its
// tool or prompt list changed (notifications/tools/list_changed and
// …/prompts/list_changed), a counter of the lines of stdout that were
// not messages (nil: a new one), the OAuth handler of a streamable
// HTTP server (nil: none) and the folders it is told as its roots (nil:
// it is told none, and the roots capability is not offered).
func connectWith(ctx context.Context, name string, s Server, stderr io.Writer, listChanged func(), notMCP *atomic.Int64, oauth auth.OAuthHandler, rootDirs func() []string) (*Session, error) {
	if err := s.Check(name); err != nil {
		return nil, err
	}
	s, err := s.expanded(os.LookupEnv)
	if err == nil {
		err = s.checkURL(name) // filled in
	}
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: %w", name, err)
	}
	if notMCP == nil {
		notMCP = new(atomic.Int64)
	}
	var t sdk.Transport
	var cmd *exec.Cmd
	var sse *sseTransport
	tasks := new(taskTools)
	if s.Command != "" {
		cmd = exec.Command(s.Command, s.Args...)
		cmd.Env = environ(s.Env)
		cmd.Stderr = stderr
		// Not childproc.Guard: the connection ends when the server's
		// stdout does, and a guard killed outright (as a crash test or
		// the OOM killer may) would leave the server holding it open.
		cmd.SysProcAttr = childproc.Attr(syscall.SIGKILL)
		t = &stdioTransport{cmd: cmd, log: stderr, notMCP: notMCP, seen: tasks.see, terminate: 2 * time.Second}
	} else {
		send := headers{s.Headers, http.DefaultTransport}
		if s.sse() {
			hc := &http.Client{Transport: taskListening{tasks, send}}
			sse = &sseTransport{inner: sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: hc}}
			t = sse
		} else {
			// The standalone stream is held open by heldStreams, not
			// retried by the SDK (which would end the session).
			hc := &http.Client{Transport: taskListening{tasks, heldStreams{next: send, resumed: listChanged, auth: oauth}}}
			t = &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxRetries: -1, OAuthHandler: oauth}
		}
	}
	sess := &Session{name: name, cmd: cmd, sse: sse, done: make(chan struct{}), notMCP: notMCP, tasks: tasks}
	opts := &sdk.ClientOptions{ProgressNotificationHandler: sess.progressed, ElicitationHandler: sess.elicit, ElicitationCompleteHandler: sess.completed,
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}}}
	//lint:ignore SA1019 deprecated (SEP-2577) but served while servers ask for it (sample.go); the SDK declares the capability from it
	opts.CreateMessageHandler = sess.sample
	if listChanged != nil {
		opts.ToolListChangedHandler = func(context.Context, *sdk.ToolListChangedRequest) { listChanged() }
		opts.PromptListChangedHandler = func(context.Context, *sdk.PromptListChangedRequest) { listChanged() }
	}
	if rootDirs != nil {
		//lint:ignore SA1019 deprecated (SEP-2577) but served while servers ask for them: roots.go
		opts.Capabilities.RootsV2 = &sdk.RootCapabilities{ListChanged: true}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "shrimp", Version: "1"}, opts)
	if rootDirs != nil {
		sess.roots = &roots{client: client}
		sess.roots.sync(rootDirs) // before connecting: the list the server asks for first
	}
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		if cmd != nil && cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		sse.close()
		if errors.Is(err, ErrSignIn) {
			return nil, fmt.Errorf("MCP server %s: %w: sign in with Sign in in Extensions or `shrimp mcp login %s` (a server that takes a token instead is given it as a header: \"headers\": {\"Authorization\": \"Bearer …\"} in mcp.json)", name, ErrSignIn, name)
		}
		if s.URL != "" && (strings.Contains(err.Error(), "Unauthorized") || strings.Contains(err.Error(), "Forbidden")) {
			return nil, fmt.Errorf("connect to MCP server %s: %w: the server wants to know who is asking; give it its token as a header (Headers in Extensions, \"headers\": {\"Authorization\": \"Bearer …\"} in mcp.json, or `shrimp mcp add NAME --url %s --header 'Authorization: Bearer …'`), then `shrimp mcp check %s`", name, err, s.URL, name)
		}
		return nil, fmt.Errorf("connect to MCP server %s: %w (check its command or url with `shrimp mcp check %s`)", name, err, name)
	}
	sess.cs = cs
	go func() { sess.waitErr = cs.Wait(); close(sess.done) }()
	return sess, nil
}

// progressed passes a server's progress notification to the call it is
// about, its message freed of hidden text and cut to a line; one about no
// call under way (late, or made up) is dropped.
func (s *Session) progressed(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	p := req.Params
	if p == nil {
		return
	}
	f, ok := s.progress.Load(fmt.Sprint(p.ProgressToken))
	if !ok {
		return
	}
	f.(func(shrimptool.Progress))(shrimptool.Progress{Message: serverLine(p.Message, maxProgressMessage), Progress: p.Progress, Total: p.Total})
}

// serverLine is a server's text for one line the user reads (a progress
// message, a prompt's or a question field's title): hidden characters
// removed, on one line, cut at n characters.
func serverLine(s string, n int) string {
	s, _ = injection.Unhide(s)
	return textcut.Line(s, n)
}

// maxTitle caps a prompt's or a question field's title or description.
const maxTitle = 300

// maxProgressMessage caps a progress message (a line in a tool's card).
const maxProgressMessage = 200

// headers adds a server's configured headers to every request.
type headers struct {
	set  map[string]string
	next http.RoundTripper
}

// RoundTrip sends the request with the headers set.
func (h headers) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.set) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.set {
			req.Header.Set(k, v)
		}
	}
	return h.next.RoundTrip(req)
}

// maxTools is the most tools listed of one server: far more than a model
// can choose among, and a bound on a server whose list never ends.
const maxTools = 1000

// maxPages is the most pages of a list (tools, resources, prompts) read.
const maxPages = 100

// Tools lists the server's tools, by name, and, when it offers resources,
// the two tools Shrimp adds to read them (resourceTools). Pages are
// followed as [pages] does; a tool listed twice is kept once.
func (s *Session) Tools(ctx context.Context) ([]Tool, error) {
	listed, err := pages(maxTools, func(cursor string) ([]*sdk.Tool, string, error) {
		res, err := s.cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return lo.Compact(res.Tools), res.NextCursor, nil
	}, func(t *sdk.Tool) string { return t.Name })
	if err != nil {
		return nil, fmt.Errorf("list the tools of %s: %w", s.name, err)
	}
	out := make([]Tool, 0, len(listed)+2)
	for _, t := range listed {
		// Text the user cannot see in the tool's description or its
		// schema (Unicode tag characters: the tool-poisoning attack made
		// invisible) would still reach the model with every request.
		desc, _ := injection.Unhide(t.Description)
		schema, _ := json.Marshal(unhideStrings(t.InputSchema))
		tool := Tool{Name: t.Name, Description: desc, InputSchema: schema, NeedsTasks: s.tasks.required(t.Name)}
		if a := t.Annotations; a != nil {
			tool.Hints = Hints{ReadOnly: a.ReadOnlyHint, Destructive: a.DestructiveHint, OpenWorld: a.OpenWorldHint}
		}
		out = append(out, tool)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if s.offersResources() {
		out = append(out, resourceTools(s.name, out)...)
	}
	return out, nil
}

// unhideStrings returns v (decoded JSON) with hidden text removed from
// every string in it, keys included.
func unhideStrings(v any) any {
	out, _ := jsonstrings.Map(v, func(s string) string { s, _ = injection.Unhide(s); return s })
	return out
}

// Call runs one tool with JSON arguments and returns its text; a result
// the server marks as an error is returned as an error with that text.
func (s *Session) Call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	var a any
	if len(args) > 0 {
		if err := json.Unmarshal(args, &a); err != nil {
			return "", fmt.Errorf("%w: arguments for %s are not JSON: %v", ErrToolFailed, tool, err)
		}
	}
	params := &sdk.CallToolParams{Name: tool, Arguments: a}
	if report := shrimptool.ProgressReporter(ctx); report != nil {
		token := fmt.Sprintf("shrimp-%d", s.tokens.Add(1))
		params.SetProgressToken(token)
		s.progress.Store(token, report)
		defer s.progress.Delete(token)
	}
	if ask := shrimptool.AskerOf(ctx); ask != nil || shrimptool.SamplerOf(ctx) != nil {
		var done func()
		ctx, done = s.askers.add(ctx, ask) // what the server asks during the call finds it
		defer done()
	}
	res, err := s.cs.CallTool(ctx, params)
	if pages := pagesFirst(err); pages != nil {
		// The server needs the user to open pages first (a sign-in at a
		// third party): asked, then the call is tried once more.
		if err := s.openFirst(ctx, tool, pages); err != nil {
			return "", err
		}
		res, err = s.cs.CallTool(ctx, params)
	}
	if err != nil {
		return "", fmt.Errorf("%s on MCP server %s: %w", tool, s.name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(s.contentText(ctx, tool, c))
		b.WriteString("\n")
	}
	text := strings.TrimSuffix(b.String(), "\n")
	if len(res.Content) == 0 && res.StructuredContent != nil {
		// Structured output alone (the spec only asks for a text copy).
		j, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return "", fmt.Errorf("%w: %s on MCP server %s: its structured result cannot be read: %v", ErrToolFailed, tool, s.name, err)
		}
		text = string(j)
	}
	if res.IsError {
		return "", fmt.Errorf("%w: %s on MCP server %s: %s", ErrToolFailed, tool, s.name, text)
	}
	return text, nil
}

// contentText is one piece of a tool's result as text for the model:
// text as it is; an image shown to a model that can see (attach.Show: a
// browser server's screenshot), else, like audio or a binary resource,
// said by its kind and size (base64 would only fill the context); a
// resource's text with its address; a link as one.
func (s *Session) contentText(ctx context.Context, tool string, c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		if attach.CanShow(ctx) {
			img, err := attach.Parse(fmt.Sprintf("an image from %s on %s", tool, s.name), c.Data)
			if err != nil {
				return fmt.Sprintf("[image: %s, %d bytes, not shown: %v]", c.MIMEType, len(c.Data), err)
			}
			if attach.Show(ctx, img) == nil {
				return fmt.Sprintf("[image: %s, %d×%d, attached to this result]", img.Type, img.Width, img.Height)
			}
		}
		return fmt.Sprintf("[image: %s, %d bytes, not shown]", c.MIMEType, len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes, not shown]", c.MIMEType, len(c.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link: %s (%s, %s)]", c.URI, c.Name, c.MIMEType)
	case *sdk.EmbeddedResource:
		if r := c.Resource; r != nil {
			return resourceText(r)
		}
	}
	j, _ := json.Marshal(c)
	return string(j)
}

// NotMCP is how many lines the server wrote to stdout that were not MCP
// messages (set aside in its log).
func (s *Session) NotMCP() int64 { return s.notMCP.Load() }

// Ping checks that the server still answers.
func (s *Session) Ping(ctx context.Context) error { return s.cs.Ping(ctx, nil) }

// Done is closed when the connection ends (the server exited, or Close).
func (s *Session) Done() <-chan struct{} { return s.done }

// Wait blocks until the connection ends and says why.
func (s *Session) Wait() error { <-s.done; return s.waitErr }

// Close ends the session; a stdio server's whole process group is killed.
func (s *Session) Close() error {
	err := s.cs.Close()
	s.sse.close()
	if s.cmd != nil && s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	return err
}
