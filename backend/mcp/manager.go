package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shrimp-harness/shrimp/internal/tail"
)

// State is where a supervised server is.
type State string

// The states a server goes through.
const (
	StateStarting   State = "starting"   // first connection under way
	StateRunning    State = "running"    // connected, tools listed
	StateRestarting State = "restarting" // it failed or exited; waiting to start again
	StateFailing    State = "failing"    // it failed FailAfter times in a row; still retried, slowly
	StateSignIn     State = "sign-in"    // it asks the user to sign in (oauth.go); tried again after SignIn
	StateDisabled   State = "disabled"   // the user turned it off
	StateWaiting    State = "waiting"    // it names the workspace (${workspaceFolder}) and no request has given one yet
	StateRemoved    State = "removed"    // no longer configured (told once, to OnChange)
)

// FailAfter is how many failures in a row mark a server as failing.
const FailAfter = 3

// Status is what the window and the CLI show of one server.
type Status struct {
	Name      string   `json:"name"`
	State     State    `json:"state"`
	Transport string   `json:"transport"` // stdio or http
	ReadOnly  bool     `json:"read_only"`
	Local     bool     `json:"local"`               // its answers are the user's own (see Server.Local)
	SignedIn  bool     `json:"signed_in,omitempty"` // a sign-in is kept for it (oauth.go)
	Tools     []Tool   `json:"tools"`
	Prompts   []Prompt `json:"prompts"` // what it offers the user (Session.Prompts)
	LastError string   `json:"last_error,omitempty"`
	Stderr    []string `json:"stderr"` // its last lines of stderr (stdio)
	// NotMCP counts the lines it wrote to stdout that were not MCP
	// messages (stdio): set aside into Stderr, where the protocol asks a
	// server to log.
	NotMCP   int64     `json:"not_mcp"`
	Restarts int       `json:"restarts"`
	Failures int       `json:"failures"` // in a row
	Since    time.Time `json:"since"`    // when it entered State
	// Folder is the workspace it was started for, when its settings name
	// the editor's open folder (Server.NamesWorkspace): its tools are
	// offered to runs there only.
	Folder string `json:"folder,omitempty"`
	// Retry is when a failed server is tried again (zero: it runs, or
	// waits for a sign-in); past while that try is under way.
	Retry time.Time `json:"retry,omitzero"`
}

// Manager supervises the configured servers: it starts each enabled one,
// lists its tools, restarts it with backoff when it exits or fails (shown
// as failing after FailAfter failures in a row), follows its tool-list
// changes, and stops them all on Close.
type Manager struct {
	// OnChange is called (on a manager goroutine) after a server's state
	// or tools change. It must not block for long.
	OnChange func(Status)
	// Backoff is the first wait before a restart (default 1 s); it
	// doubles with each failure in a row, up to MaxBackoff (default 1 min).
	Backoff, MaxBackoff time.Duration
	Log                 *slog.Logger
	// Tokens keeps the sign-ins of servers that ask for one (nil: such a
	// server fails to connect, saying it wants a token).
	Tokens *Tokens

	mu      sync.Mutex
	servers map[string]*supervised
	gen     uint64
	closed  bool
	roots   []string // the folders servers that take roots are told (SetRoots)
	// folder is the workspace servers naming the editor's open folder are
	// started for: the one workspace of the runs under way (SetRoots).
	folder string
	cfg    Config // as last applied
}

// supervised is one server and its supervisor goroutine.
type supervised struct {
	name   string
	cfg    Server
	folder string          // the workspace its settings are filled with (Server.InWorkspace); "" for none
	ctx    context.Context // the supervisor's; cancelled to stop it
	cancel context.CancelFunc
	done   chan struct{}
	ready  chan struct{} // closed when the first attempt has ended either way
	wake   chan struct{} // a sign-in was kept: a server waiting for one tries again
	stderr *tail.Lines
	notMCP atomic.Int64 // lines of stdout that were not messages, over its restarts
	relist coalesced    // its tools listed again after it says they changed

	// guarded by Manager.mu
	st   Status
	sess *Session
	// latest is the server's settings as last applied: cfg but for its
	// tool filters, which change without a restart (cfg, read by the
	// supervisor without the lock, never changes).
	latest Server
}

// NewManager returns a manager with no servers; Apply starts them.
func NewManager() *Manager { return &Manager{servers: map[string]*supervised{}} }

func (m *Manager) log() *slog.Logger {
	if m.Log != nil {
		return m.Log
	}
	return slog.Default()
}

// Apply makes the running servers match cfg: new or changed servers are
// (re)started, removed ones stopped, disabled ones stopped and listed as
// disabled; one waiting for a sign-in that another Shrimp has since kept
// (`shrimp mcp login` beside the window) connects with it.
func (m *Manager) Apply(cfg Config) { m.apply(func() Config { return cfg }) }

// apply is Apply of the settings get returns, called under m.mu (so that
// SetRoots applies the latest ones, not those a reload has replaced).
func (m *Manager) apply(get func() Config) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	cfg := get()
	m.cfg = cfg
	var waiting []*supervised
	for _, s := range m.servers {
		if s.st.State == StateSignIn {
			waiting = append(waiting, s)
		}
	}
	defer func() {
		for _, s := range waiting {
			if m.Tokens.Has(s.name, s.cfg) {
				m.reconnect(s)
			}
		}
	}()
	var stop, refiltered []*supervised
	for name, s := range m.servers {
		c, ok := cfg.Servers[name]
		switch {
		case ok && reflect.DeepEqual(c.unfiltered(), s.cfg.unfiltered()):
			// At most which of its tools are offered changed: no restart.
			if !reflect.DeepEqual(c, s.latest) {
				s.latest = c
				refiltered = append(refiltered, s)
			}
		default:
			stop = append(stop, s)
			delete(m.servers, name)
		}
	}
	defer func() {
		for _, s := range refiltered {
			m.changed(s)
		}
	}()
	var start, created []*supervised
	for _, name := range slices.Sorted(maps.Keys(cfg.Servers)) {
		if _, ok := m.servers[name]; ok {
			continue
		}
		c := cfg.Servers[name]
		s := &supervised{name: name, cfg: c, latest: c, done: make(chan struct{}), ready: make(chan struct{}), wake: make(chan struct{}, 1), stderr: tail.New(20)}
		s.st = Status{Name: name, State: StateStarting, Transport: transport(c), ReadOnly: c.ReadOnly, Local: c.Local, Tools: []Tool{}, Prompts: []Prompt{}, Since: time.Now()}
		m.servers[name] = s
		created = append(created, s)
		if c.Disabled {
			s.st.State = StateDisabled
			close(s.done)
			close(s.ready)
			continue
		}
		if c.NamesWorkspace() {
			if m.folder == "" {
				// Started when a request gives it a workspace (SetRoots).
				s.st.State = StateWaiting
				s.st.LastError = "it names ${workspaceFolder}, the workspace it works in: it starts with the first request"
				close(s.done)
				close(s.ready)
				continue
			}
			s.folder, s.st.Folder = m.folder, m.folder
		}
		// Settings written by hand that it can never start with (a name
		// with spaces): failing from the start, saying why, never retried
		// until mcp.json changes; the other servers run.
		if err := c.Check(name); err != nil {
			s.st.State, s.st.LastError = StateFailing, err.Error()+": mend it in mcp.json, or remove the server and add it again"
			close(s.done)
			close(s.ready)
			m.log().Warn("MCP server cannot start", "server", name, "err", err)
			continue
		}
		s.ctx, s.cancel = context.WithCancel(context.Background())
		start = append(start, s)
	}
	m.gen++
	m.mu.Unlock()
	for _, s := range stop {
		s.stop()
	}
	for _, s := range start {
		go m.supervise(s.ctx, s)
	}
	for _, s := range stop {
		if _, still := cfg.Servers[s.name]; !still && m.OnChange != nil {
			m.OnChange(Status{Name: s.name, State: StateRemoved, Tools: []Tool{}, Prompts: []Prompt{}, Stderr: []string{}, Since: time.Now()})
		}
	}
	for _, s := range created {
		m.changed(s)
	}
}

func transport(s Server) string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// stop ends the supervisor and its session and waits for both.
func (s *supervised) stop() {
	if s.cancel != nil {
		s.cancel()
	}
	<-s.done
}

// WaitReady waits until every enabled server's first attempt has ended
// (connected or failed), or ctx ends.
func (m *Manager) WaitReady(ctx context.Context) error {
	m.mu.Lock()
	var ready []chan struct{}
	for _, s := range m.servers {
		ready = append(ready, s.ready)
	}
	m.mu.Unlock()
	for _, r := range ready {
		select {
		case <-r:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// supervise connects, waits for the connection to end and starts again,
// with backoff, until ctx ends.
func (m *Manager) supervise(ctx context.Context, s *supervised) {
	defer close(s.done)
	readyOnce := sync.OnceFunc(func() { close(s.ready) })
	defer readyOnce()
	for {
		sess, tools, prompts, err := m.start(ctx, s)
		if ctx.Err() != nil {
			if sess != nil {
				_ = sess.Close()
			}
			return
		}
		if errors.Is(err, ErrSignIn) {
			// Not a failure: nothing changes until the user signs in.
			m.set(s, func(st *Status) {
				st.State, st.LastError, st.SignedIn, st.Retry = StateSignIn, err.Error(), false, time.Time{}
				st.Tools, st.Prompts = []Tool{}, []Prompt{}
			}, nil)
			readyOnce()
			select {
			case <-ctx.Done():
				return
			case <-s.wake:
				continue
			}
		}
		if err == nil {
			up := time.Now()
			signedIn := m.Tokens.Has(s.name, s.cfg)
			m.set(s, func(st *Status) {
				st.State, st.Tools, st.Prompts, st.LastError, st.SignedIn, st.Retry = StateRunning, tools, prompts, "", signedIn, time.Time{}
			}, sess)
			// Roots set while it connected, before SetRoots could see it.
			go sess.roots.sync(m.currentRoots)
			readyOnce()
			woken, waitErr := waitOrDone(ctx, sess, s.wake)
			_ = sess.Close()
			if ctx.Err() != nil {
				m.set(s, func(st *Status) {}, nil)
				return
			}
			if woken {
				continue // signed in or out: connect again at once
			}
			err = fmt.Errorf("the server exited (%v)", orText(waitErr, "connection closed"))
			if time.Since(up) > time.Minute {
				m.set(s, func(st *Status) { st.Failures = 0 }, nil) // it had been healthy
			}
		}
		if lines := s.stderr.Lines(); len(lines) > 0 {
			err = fmt.Errorf("%w; its last stderr line: %s", err, lines[len(lines)-1])
		}
		var failures int
		var wait time.Duration
		m.set(s, func(st *Status) {
			st.Failures++
			st.Restarts++
			st.LastError = err.Error()
			st.Tools, st.Prompts = []Tool{}, []Prompt{}
			st.State = StateRestarting
			if st.Failures >= FailAfter {
				st.State = StateFailing
			}
			failures = st.Failures
			wait = m.backoff(failures)
			st.Retry = time.Now().Add(wait)
		}, nil)
		readyOnce()
		// Warned of when it first fails and when it is taken for failing;
		// the tries between are logged below warnings (a terminal shows
		// warnings, and the status says the rest).
		level := slog.LevelInfo
		if failures == 1 || failures == FailAfter {
			level = slog.LevelWarn
		}
		m.log().Log(ctx, level, "MCP server failed; restarting", "server", s.name, "failures", failures, "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
			select { // a Retry that came as the wait ended is spent
			case <-s.wake:
			default:
			}
		case <-s.wake: // Retry: the user fixed what failed
		}
	}
}

// Retry tries a failed server again at once rather than after its
// backoff: the user has fixed what failed (installed its command, started
// what it reaches). A server that runs is left as it is.
func (m *Manager) Retry(name string) error {
	m.mu.Lock()
	s := m.servers[name]
	m.mu.Unlock()
	if s == nil {
		return fmt.Errorf("no MCP server %s is configured (see `shrimp mcp list`)", name)
	}
	if s.cfg.Disabled {
		return fmt.Errorf("MCP server %s is disabled: enable it first", name)
	}
	if err := s.cfg.Check(name); err != nil {
		return fmt.Errorf("MCP server %s cannot start until its settings are mended: %w", name, err)
	}
	if s.cfg.NamesWorkspace() && s.folder == "" {
		return fmt.Errorf("MCP server %s names ${workspaceFolder}: it starts with the first request, in that request's workspace", name)
	}
	for _, st := range m.Statuses() {
		if st.Name == name && st.Retry.After(time.Now()) { // still waiting: not running, nor trying now
			m.reconnect(s)
		}
	}
	return nil
}

// waitOrDone waits for the session to end, ctx to be cancelled or a
// wake (woken).
func waitOrDone(ctx context.Context, sess *Session, wake <-chan struct{}) (woken bool, err error) {
	select {
	case <-sess.Done():
		return false, sess.Wait()
	case <-ctx.Done():
		return false, ctx.Err()
	case <-wake:
		return true, nil
	}
}

func orText(err error, text string) string {
	if err == nil {
		return text
	}
	return err.Error()
}

func (m *Manager) backoff(failures int) time.Duration {
	d, max := m.Backoff, m.MaxBackoff
	if d <= 0 {
		d = time.Second
	}
	if max <= 0 {
		max = time.Minute
	}
	for i := 1; i < failures && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}

// coalesced runs a function asked for again and again at most once at a
// time, and once more after a run during which it was asked for: a server
// that says its tools changed ten thousand times in a row is listed twice,
// not ten thousand times at once.
type coalesced struct {
	state atomic.Int32 // 0 idle, 1 running, 2 running and asked again
}

// ask runs fn on a goroutine of its own, unless a run is under way: then
// one more run follows it.
func (c *coalesced) ask(fn func()) {
	for {
		switch c.state.Load() {
		case 0:
			if c.state.CompareAndSwap(0, 1) {
				go func() {
					for {
						fn()
						if c.state.CompareAndSwap(1, 0) {
							return
						}
						c.state.Store(1) // it was asked again meanwhile
					}
				}()
				return
			}
		case 1:
			if c.state.CompareAndSwap(1, 2) {
				return
			}
		default:
			return
		}
	}
}

// start connects and lists the tools and prompts. A server whose prompts
// cannot be listed still runs, without them (its tools are what matter).
func (m *Manager) start(ctx context.Context, s *supervised) (*Session, []Tool, []Prompt, error) {
	refresh := func() { s.relist.ask(func() { m.refresh(s) }) }
	var rootDirs func() []string
	if s.cfg.OffersRoots() {
		rootDirs = m.currentRoots
	}
	cfg := s.cfg.InWorkspace(s.folder)
	sess, err := connectWith(ctx, s.name, cfg, s.stderr, refresh, &s.notMCP, keptAuthOf(m.Tokens, s.name, cfg), rootDirs)
	if err != nil {
		return nil, nil, nil, err
	}
	lctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	tools, err := sess.Tools(lctx)
	if err != nil {
		_ = sess.Close()
		return nil, nil, nil, err
	}
	return sess, tools, m.prompts(lctx, sess), nil
}

// prompts lists a server's prompts; none when that fails (logged).
func (m *Manager) prompts(ctx context.Context, sess *Session) []Prompt {
	p, err := sess.Prompts(ctx)
	if err != nil {
		m.log().Warn("MCP server's prompts could not be listed", "server", sess.name, "err", err)
		return []Prompt{}
	}
	return p
}

// refresh lists a running server's tools and prompts again after it said
// either changed (or a new standalone stream was given: heldStreams).
func (m *Manager) refresh(s *supervised) {
	m.mu.Lock()
	sess := s.sess
	m.mu.Unlock()
	if sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	tools, err := sess.Tools(ctx)
	if err != nil {
		m.log().Warn("MCP server's changed tools could not be listed", "server", s.name, "err", err)
		return
	}
	prompts := m.prompts(ctx, sess)
	m.mu.Lock()
	gone := s.sess != sess // it reconnected meanwhile, and listed its own
	same := reflect.DeepEqual(s.st.Tools, tools) && reflect.DeepEqual(s.st.Prompts, prompts)
	m.mu.Unlock()
	if gone || same {
		return // nothing changed (read again after a new stream): nobody is told
	}
	m.set(s, func(st *Status) { st.Tools, st.Prompts = tools, prompts }, sess)
}

// set changes a server's status under the lock, bumps the generation and
// tells OnChange.
func (m *Manager) set(s *supervised, f func(*Status), sess *Session) {
	m.mu.Lock()
	before := s.st.State
	f(&s.st)
	s.sess = sess
	if s.st.State != before {
		s.st.Since = time.Now()
	}
	if m.servers[s.name] == s {
		m.gen++
	}
	m.mu.Unlock()
	m.changed(s)
}

func (m *Manager) changed(s *supervised) {
	if m.OnChange == nil {
		return
	}
	m.mu.Lock()
	if cur, ok := m.servers[s.name]; ok && cur != s {
		// Replaced by one started for another workspace (SetRoots): its
		// last words would be read as the new one's.
		m.mu.Unlock()
		return
	}
	st := s.snapshot()
	m.mu.Unlock()
	m.OnChange(st)
}

// snapshot copies the status; call with Manager.mu held.
func (s *supervised) snapshot() Status {
	st := s.st
	st.Tools = slices.Clone(st.Tools)
	s.latest.Mark(st.Tools)
	nameOffered(st.Name, st.Tools)
	st.Prompts = slices.Clone(st.Prompts)
	st.Stderr = s.stderr.Lines()
	st.NotMCP = s.notMCP.Load()
	return st
}

// Statuses returns every configured server's status, by name.
func (m *Manager) Statuses() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.servers))
	for _, name := range slices.Sorted(maps.Keys(m.servers)) {
		out = append(out, m.servers[name].snapshot())
	}
	return out
}

// Generation changes whenever a server's tools or state change: a
// registry built from the manager is stale when it differs.
func (m *Manager) Generation() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen
}

// ErrNotRunning means a tool's server is not connected now.
var ErrNotRunning = errors.New("MCP server not running")

// Call runs a tool of a running server with the server's timeout (its
// "timeout" in seconds, default DefaultTimeout; the time a question of
// the server's waits for the user is not counted). When ctx is cancelled the
// SDK tells the server (notifications/cancelled) and the call returns.
func (m *Manager) Call(ctx context.Context, server, tool string, args []byte) (string, error) {
	return use(ctx, m, server, tool, func(ctx context.Context, sess *Session) (string, error) {
		return sess.Call(ctx, tool, args)
	})
}

// ListResources lists a running server's resources (Session.ListResources),
// as Call runs a tool.
func (m *Manager) ListResources(ctx context.Context, server string) (string, error) {
	return use(ctx, m, server, KindListResources, func(ctx context.Context, sess *Session) (string, error) {
		return sess.ListResources(ctx)
	})
}

// Resources lists a running server's resources for the user to pick
// (Session.Resources), as Call runs a tool.
func (m *Manager) Resources(ctx context.Context, server string) ([]Resource, error) {
	return use(ctx, m, server, "resource list", func(ctx context.Context, sess *Session) ([]Resource, error) {
		return sess.Resources(ctx)
	})
}

// ReadResource reads a running server's resource (Session.ReadResource),
// as Call runs a tool.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (string, error) {
	return use(ctx, m, server, KindReadResource, func(ctx context.Context, sess *Session) (string, error) {
		return sess.ReadResource(ctx, uri)
	})
}

// GetPrompt fills in a running server's prompt (Session.GetPrompt), as
// Call runs a tool.
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) (string, error) {
	return use(ctx, m, server, "prompt "+name, func(ctx context.Context, sess *Session) (string, error) {
		return sess.GetPrompt(ctx, name, args)
	})
}

// Complete suggests values for a prompt's argument of a running server
// (Session.Complete), as Call runs a tool.
func (m *Manager) Complete(ctx context.Context, server, prompt, arg, typed string, filled map[string]string) ([]string, error) {
	return use(ctx, m, server, "completion of prompt "+prompt, func(ctx context.Context, sess *Session) ([]string, error) {
		return sess.Complete(ctx, prompt, arg, typed, filled)
	})
}

// use runs one request (named what in errors) on a running server's
// session with the server's timeout, and tells a server that is gone from
// one that answered with an error.
func use[T any](ctx context.Context, m *Manager, server, what string, f func(context.Context, *Session) (T, error)) (T, error) {
	var none T
	m.mu.Lock()
	s := m.servers[server]
	var sess *Session
	var st Status
	if s != nil {
		sess, st = s.sess, s.snapshot()
	}
	m.mu.Unlock()
	if s == nil {
		return none, fmt.Errorf("%w: %s is not configured any more (see `shrimp mcp list`)", ErrNotRunning, server)
	}
	if sess == nil {
		msg := fmt.Sprintf("%s is %s", server, st.State)
		if st.LastError != "" {
			msg += ": " + st.LastError
		}
		return none, fmt.Errorf("%w: %s; try again later or check it with `shrimp mcp check %s`", ErrNotRunning, msg, server)
	}
	timeout := time.Duration(s.cfg.Timeout) * time.Second
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cctx, cancel := withClock(ctx, timeout)
	defer cancel()
	out, err := f(cctx, sess)
	switch {
	case err == nil:
		return out, nil
	case ctx.Err() != nil:
		return none, fmt.Errorf("%s on MCP server %s: stopped: %w", what, server, ctx.Err())
	case timedOut(cctx):
		return none, fmt.Errorf("%s on MCP server %s gave no answer within %s (raise \"timeout\" for %s in mcp.json if it needs longer)", what, server, timeout, server)
	}
	if errors.Is(err, ErrToolFailed) {
		return none, err
	}
	if errors.Is(err, ErrSignIn) {
		// The server refused the sign-in (revoked, or it expired for
		// good): the supervisor connects again, and waits for a new one.
		m.reconnect(s)
		return none, fmt.Errorf("%s on MCP server %s was not run: the server asks the user to sign in again (Sign in in Extensions, or `shrimp mcp login %s`)", what, server, server)
	}
	// Anything else may be a server that is gone: a stdio server's exit
	// ends the session by itself; an HTTP server's is found by a ping,
	// and the session is closed so the supervisor reconnects.
	if !waitClosed(sess, 200*time.Millisecond) {
		pctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		perr := sess.Ping(pctx)
		cancel()
		if perr == nil {
			return none, err // it answers: the call itself went wrong
		}
		_ = sess.Close()
	}
	msg := fmt.Sprintf("MCP server %s stopped during %s and is being restarted", server, what)
	if lines := s.stderr.Lines(); len(lines) > 0 {
		msg += "; its last stderr line: " + lines[len(lines)-1]
	} else {
		msg += fmt.Sprintf(" (%v)", err)
	}
	return none, errors.New(msg)
}

// SignIn signs the user in to a server that asks for it (SignIn, with
// m.Tokens) and connects it again with the sign-in. open shows the
// sign-in page's address to the user.
func (m *Manager) SignIn(ctx context.Context, name string, open func(address string) error) error {
	s, err := m.supervisedOf(name)
	if err != nil {
		return err
	}
	if err := SignIn(ctx, name, s.cfg, m.Tokens, open); err != nil {
		return err
	}
	m.reconnect(s)
	return nil
}

// SignOut forgets a server's sign-in and connects it again without it.
func (m *Manager) SignOut(name string) error {
	s, err := m.supervisedOf(name)
	if err != nil {
		return err
	}
	if _, err := m.Tokens.Forget(name); err != nil {
		return fmt.Errorf("forget the sign-in to %s: %w", name, err)
	}
	m.reconnect(s)
	return nil
}

// supervisedOf is an enabled server signed in to over OAuth.
func (m *Manager) supervisedOf(name string) (*supervised, error) {
	m.mu.Lock()
	s := m.servers[name]
	m.mu.Unlock()
	switch {
	case s == nil:
		return nil, fmt.Errorf("no MCP server %s is configured (see `shrimp mcp list`)", name)
	case m.Tokens == nil:
		return nil, errors.New("sign-ins are not kept here")
	case s.cfg.Disabled:
		return nil, fmt.Errorf("MCP server %s is disabled: enable it first", name)
	case !wantsOAuth(s.cfg):
		return nil, fmt.Errorf("MCP server %s is not signed in to: only a server reached by url (streamable HTTP) without an Authorization header of its own is", name)
	}
	return s, nil
}

// reconnect makes a server connect again at once, whether it runs or
// waits for a sign-in.
func (m *Manager) reconnect(s *supervised) {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// waitClosed reports whether the session ends within d.
func waitClosed(sess *Session, d time.Duration) bool {
	select {
	case <-sess.Done():
		return true
	case <-time.After(d):
		return false
	}
}

// DefaultTimeout bounds one tool call when the server sets no timeout.
const DefaultTimeout = 2 * time.Minute

// Close stops every server and waits for their processes to go.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	all := slices.Collect(maps.Values(m.servers))
	m.mu.Unlock()
	// Side by side: a server that ignores the end of its stdin costs its
	// grace period once, not once per server.
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(s.stop)
	}
	wg.Wait()
}

// PID is the process of a running stdio server (0 when none), for tests
// and diagnostics.
func (m *Manager) PID(server string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.servers[server]; s != nil && s.sess != nil && s.sess.cmd != nil && s.sess.cmd.Process != nil {
		return s.sess.cmd.Process.Pid
	}
	return 0
}
