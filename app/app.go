// Package app is Shrimp's composition root, shared by both doors (the
// window in app/desktop and the CLI in app/cli): from one Config it opens
// the data directory, the event bus and the Ollama client, and closes them
// in reverse order. It holds wiring only; behaviour lives in backend/.
package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/bus"
	"github.com/shrimp-harness/shrimp/backend/facts"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/backend/metrics"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/procedures/agentmem"
	"github.com/shrimp-harness/shrimp/backend/redact"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/backend/tool/shell"
	"github.com/shrimp-harness/shrimp/backend/undo"
	"github.com/shrimp-harness/shrimp/backend/usage"
	"github.com/shrimp-harness/shrimp/internal/datadir"
)

// Version is the release version, set at build time with
// -ldflags "-X github.com/shrimp-harness/shrimp/app.Version=v1.2.3".
var Version = "v0.1.0-dev"

// Config is everything both doors need to open the harness.
type Config struct {
	DataDir    string // "" means $SHRIMP_DATA_DIR, else the XDG data dir
	OllamaHost string // "" means $OLLAMA_HOST, else model.DefaultHost
	Model      string // "" means $SHRIMP_MODEL, else the first installed model
	// IdleTimeout is how long a model request may go without a streamed
	// chunk: 0 means $SHRIMP_IDLE_TIMEOUT, else the saved setting, else
	// model.DefaultIdleTimeout.
	IdleTimeout time.Duration
	// EmbedModel is an Ollama embedding model recall compares meanings
	// with: "" means $SHRIMP_EMBED_MODEL, else the saved setting, else
	// none (the built-in sentence encoder only).
	EmbedModel string
}

// FromEnv fills the empty fields of c from the environment.
func (c Config) FromEnv() Config {
	if c.OllamaHost == "" {
		c.OllamaHost = os.Getenv("OLLAMA_HOST")
	}
	if c.Model == "" {
		c.Model = os.Getenv("SHRIMP_MODEL")
	}
	if c.EmbedModel == "" {
		c.EmbedModel = os.Getenv("SHRIMP_EMBED_MODEL")
	}
	c.DataDir = datadir.Default(c.DataDir)
	return c
}

// App is an opened harness.
type App struct {
	Config   Config
	Log      *slog.Logger
	Bus      *bus.Bus[agent.Event]
	Model    *model.Client
	Store    *store.Store
	Recorder *session.Recorder
	Runner   *session.Runner
	// Hooks are the user's commands on events (hooks.json in the data
	// directory, read again whenever it changes).
	Hooks *hooks.Hooks
	// Undo keeps what the file tools and shell commands change, so a
	// request's file changes can be undone (UndoPlan, UndoFiles).
	Undo *undo.Keeper

	// think is what requests ask of a reasoning model's thinking when
	// they do not say (SHRIMP_THINK, else Settings): a model.Think.
	think atomic.Value

	memOnce sync.Once
	mem     *procedures.Memory
	memErr  error
	// memShared is procedures.ErrLocked when another process owns the
	// index on disk and this one keeps its own in memory.
	memShared error
	declines  *agentmem.Declines // nil when they could not be loaded
	// recorders are the subscribers that record events in a session
	// after its run ended (the learner once memory is open, the
	// measures, usage): Runner.Settle waits for them.
	recordersMu sync.Mutex
	recorders   []*bus.Subscription[agent.Event]

	mcpOnce sync.Once
	mcp     atomic.Pointer[mcp.Manager]
	mcpEdit sync.Mutex
	// roots counts the runs under way by workspace: the MCP servers'
	// roots (mcp.go).
	rootsMu sync.Mutex
	roots   map[string]int

	factsOnce sync.Once
	facts     *facts.Facts
	factsErr  error

	shortfalls sync.Map // host|model name|build → *agent.Shortfall
	// shown caches what /api/show said of each model (host|name →
	// shownModel: its build, its trained context length, its
	// capabilities), for
	// this App alone: a cache shared by every App of a process gave one
	// whose Ollama came up on a port another had used that one's model.
	shown sync.Map
	// begun holds, by session ID, what the session-start hooks added for
	// a session at its first request in this process (a begunContext).
	begun sync.Map
	// fileWrites holds when a file tool last wrote each protected file
	// (absolute path → time.Time), in any run: a shell command under way
	// meanwhile in the same workspace must not put back a write the user
	// answered for (liveTools.protect).
	fileWrites sync.Map
	// known holds, by session and workspace, each file as the file tools
	// of its requests last read or wrote it (session|dir → *files.Known):
	// a file read in one request and saved by the user before the next is
	// not written over unseen.
	known sync.Map

	stopPrune chan struct{} // closed to stop pruneFileHistory
	pruned    chan struct{} // closed once it has stopped
	// stopCaches cancels a prune of the commands' caches under way (not
	// waited for: a large folder's removal must not hold up closing; one
	// cut short is removed the next time); cachesBusy keeps two apart.
	stopCaches context.CancelFunc
	cachesCtx  context.Context
	cachesBusy atomic.Bool

	closeOnce sync.Once
	closeErr  error
}

// shortfall is what this process's runs of a model learned about how far
// prompt estimates fall short of its tokenizer: of the build details last
// described (a model pulled again may come with another tokenizer).
func (a *App) shortfall(model string) *agent.Shortfall {
	key := a.Model.Host() + "|" + model
	if v, ok := a.shown.Load(key); ok {
		key += "|" + v.(shownModel).rev
	}
	s, _ := a.shortfalls.LoadOrStore(key, &agent.Shortfall{})
	return s.(*agent.Shortfall)
}

// Facts opens the long-term facts on first use.
func (a *App) Facts(ctx context.Context) (*facts.Facts, error) {
	a.factsOnce.Do(func() {
		a.facts, a.factsErr = facts.Open(ctx, a.Store)
		if a.factsErr == nil {
			a.facts.Redact = a.Recorder.RedactText
		}
	})
	return a.facts, a.factsErr
}

// SecretFactNote says, when a fact the user stores looks like it holds a
// secret, where it goes ("" otherwise). The user's own fact is kept (the
// model's memory.facts.set refuses such a value), but they are told.
func (a *App) SecretFactNote(key, value string) string {
	if _, secret := facts.Secret(a.Recorder.RedactText, key, value); !secret {
		return ""
	}
	return fmt.Sprintf("%s looks like it holds a secret: a fact goes into every prompt, where an instruction in a page or a file could get the model to send it on; keep secrets in your environment or password manager", key)
}

// Memory opens the procedural memory on first use and starts its learner.
// When another process owns the index on disk (the window, while
// `shrimp chat` runs in a terminal), this one builds its own in memory
// from the database they share: both recall and learn, and each sees the
// other's procedures (MemoryShared says so).
func (a *App) Memory(ctx context.Context) (*procedures.Memory, error) {
	a.memOnce.Do(func() {
		a.mem, a.memErr = procedures.Open(ctx, a.Store, a.Config.DataDir)
		if errors.Is(a.memErr, procedures.ErrLocked) {
			a.memShared = a.memErr
			if a.mem, a.memErr = procedures.OpenInMemory(ctx, a.Store); a.memErr != nil {
				a.memErr = fmt.Errorf("%w, and it could not be read from the database: %w", a.memShared, a.memErr)
			}
		}
		if a.memErr != nil {
			return
		}
		if a.Config.EmbedModel != "" {
			if err := a.mem.SetEmbedder(ctx, model.Embedder{Client: a.Model, Model: a.Config.EmbedModel}); err != nil {
				a.Log.Warn("embedding model not used: recall compares meanings with the built-in encoder", "model", a.Config.EmbedModel, "err", err)
			}
		}
		var err error
		if a.declines, err = agentmem.OpenDeclines(ctx, a.Store); err != nil {
			a.Log.Warn("declined recalls not loaded: a recall a run did not use may be offered again", "err", err)
		}
		l := &agentmem.Learner{Memory: a.mem, Declines: a.declines, Emit: a.Recorder.Emit}
		var sub *bus.Subscription[agent.Event]
		sub, a.memErr = a.Bus.Subscribe("learner", l.Handle,
			bus.Buffer[agent.Event](4096), bus.OnFull(bus.Block[agent.Event](5*time.Second)),
			bus.Filter(func(e agent.Event) bool { return e.Type.Area() == "agent" || e.Type == agentmem.TypeRecalled }))
		a.recordsAfterRuns(sub)
	})
	return a.mem, a.memErr
}

// MemoryShared returns procedures.ErrLocked (naming the index) when
// another process owns the procedure index and this one keeps its own in
// memory; nil otherwise (or before Memory was opened).
func (a *App) MemoryShared() error { return a.memShared }

// RestoreProcedure gives a procedure a clean slate: the user's forget and
// its demerits are undone, and it is offered again for the requests runs
// declined it for.
func (a *App) RestoreProcedure(ctx context.Context, id string) (procedures.Procedure, error) {
	mem, err := a.Memory(ctx)
	if err != nil {
		return procedures.Procedure{}, err
	}
	p, err := mem.Restore(ctx, id)
	if err != nil {
		return p, err
	}
	return p, a.declines.Clear(ctx, id)
}

// DeclineProcedure is the user's "not for this request": procedure id is
// not offered for request again until it is restored, and
// memory:procedure-declined is published in session.
func (a *App) DeclineProcedure(ctx context.Context, id, request, session string) (procedures.Procedure, error) {
	mem, err := a.Memory(ctx)
	if err != nil {
		return procedures.Procedure{}, err
	}
	p, err := mem.Get(id)
	if err != nil {
		return p, err
	}
	_, err = a.declines.Decline(ctx, p, request, session, a.Recorder.Emit)
	return p, err
}

// DeclinedRequests returns the requests runs declined a procedure for
// (recall does not offer it for them again until it is restored).
func (a *App) DeclinedRequests(ctx context.Context, id string) []string {
	if _, err := a.Memory(ctx); err != nil {
		return []string{}
	}
	return a.declines.Requests(id)
}

// SettingOllamaHost is the saved Ollama host (Settings in the window).
const SettingOllamaHost = "ollama_host"

// SettingIdleTimeout is the saved idle timeout for model requests.
const SettingIdleTimeout = "idle_timeout"

// SettingThink is the saved thinking asked of reasoning models
// (model.ParseThink; "" for the model's own).
const SettingThink = "think"

// ThinkEnv, when set, is what requests ask of a reasoning model's
// thinking (model.ParseThink), over Settings.
const ThinkEnv = "SHRIMP_THINK"

// Think is what requests ask of a reasoning model's thinking when they
// do not say.
func (a *App) Think() model.Think {
	t, _ := a.think.Load().(model.Think)
	return t
}

// SetThink sets and saves what requests ask of a reasoning model's
// thinking (Settings); SHRIMP_THINK, when set, still wins at the next
// start.
func (a *App) SetThink(ctx context.Context, t model.Think) error {
	if err := a.Store.SetSetting(ctx, SettingThink, string(t)); err != nil {
		return err
	}
	a.think.Store(t)
	return nil
}

// thinking is t, or when it does not say, Think.
func (a *App) thinking(t model.Think) model.Think {
	if t == model.ThinkDefault {
		return a.Think()
	}
	return t
}

// SettingKeepAlive is the saved keep-alive sent with chat requests
// (model.ParseKeepAlive; "" for Ollama's own).
const SettingKeepAlive = "keep_alive"

// SettingEmbedModel is the saved Ollama embedding model for recall.
const SettingEmbedModel = "embed_model"

// SettingDefaultModel is the model new chats start with (Settings in the
// window; the CLI takes it after --model and SHRIMP_MODEL).
const SettingDefaultModel = "default_model"

// SettingDefaultApprove is the approval mode new chats in the window start
// with (ask, read, all or none); the CLI asks unless told with --approve.
const SettingDefaultApprove = "default_approve"

// SettingWorkspace is the folder the window's last chat worked in, where
// its next new chat starts.
const SettingWorkspace = "window_workspace"

// TypeSubscriberFailed is published when a bus subscriber panics or errors.
const TypeSubscriberFailed agent.Type = "bus:subscriber-failed"

// SubscriberFailure is the data of a [TypeSubscriberFailed] event.
type SubscriberFailure struct {
	Subscriber string     `json:"subscriber"`
	Error      string     `json:"error"`
	Panic      bool       `json:"panic"`
	EventType  agent.Type `json:"event_type"`
	EventSeq   int64      `json:"event_seq"`
}

// Open resolves the config, creates the data directory and wires the parts.
func Open(cfg Config, log *slog.Logger) (*App, error) {
	cfg = cfg.FromEnv()
	explicit := cfg.OllamaHost
	dir, err := datadir.Resolve(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	cfg.DataDir = dir
	mc, err := model.New(cfg.OllamaHost)
	if err != nil {
		return nil, err
	}
	mc.SetAliases(hooks.OtherNames()) // a call written as text to Bash is read as one (the registry renames it)
	cfg.OllamaHost = mc.Host()
	st, err := store.Open(dir)
	if err != nil {
		return nil, err
	}
	// What the model client learns of a model (its thinking written
	// without the opening tag) is kept for the next run of Shrimp.
	mc.SetKeep(func(ctx context.Context, key string) string {
		v, err := st.Setting(ctx, key)
		if err != nil {
			log.Warn("a model's kept setting could not be read", "key", key, "err", err)
		}
		return v
	}, func(ctx context.Context, key, value string) {
		if err := st.SetSetting(ctx, key, value); err != nil {
			log.Warn("a model's setting could not be kept", "key", key, "err", err)
		}
	})
	idle := cfg.IdleTimeout
	if idle == 0 {
		if env := os.Getenv("SHRIMP_IDLE_TIMEOUT"); env != "" {
			if idle, err = model.ParseIdleTimeout(env); err != nil {
				st.Close()
				return nil, fmt.Errorf("SHRIMP_IDLE_TIMEOUT: %w", err)
			}
		} else if saved, _ := st.Setting(context.Background(), SettingIdleTimeout); saved != "" {
			idle, _ = model.ParseIdleTimeout(saved)
		}
	}
	mc.SetIdleTimeout(idle)
	cfg.IdleTimeout = mc.IdleTimeout()
	// How long Ollama keeps the model loaded after a request:
	// $SHRIMP_KEEP_ALIVE, else Settings, else Ollama's own.
	keep, fromEnv := os.Getenv("SHRIMP_KEEP_ALIVE"), true
	if keep == "" {
		keep, _ = st.Setting(context.Background(), SettingKeepAlive)
		fromEnv = false
	}
	switch d, err := model.ParseKeepAlive(keep); {
	case err == nil:
		mc.SetKeepAlive(d)
	case fromEnv: // a saved one was checked when it was set
		st.Close()
		return nil, fmt.Errorf("SHRIMP_KEEP_ALIVE: %w", err)
	}
	if cfg.EmbedModel == "" {
		cfg.EmbedModel, _ = st.Setting(context.Background(), SettingEmbedModel)
	}
	// A host saved in Settings applies when neither --ollama nor OLLAMA_HOST says otherwise.
	if explicit == "" {
		if saved, _ := st.Setting(context.Background(), SettingOllamaHost); saved != "" && mc.SetHost(saved) == nil {
			cfg.OllamaHost = mc.Host()
		}
	}
	a := &App{Config: cfg, Log: log, Model: mc, Store: st}
	// What requests ask of a reasoning model's thinking: $SHRIMP_THINK,
	// else Settings, else the model's own.
	think, fromEnv := os.Getenv(ThinkEnv), true
	if think == "" {
		think, _ = st.Setting(context.Background(), SettingThink)
		fromEnv = false
	}
	switch t, err := model.ParseThink(think); {
	case err == nil:
		a.think.Store(t)
	case fromEnv: // a saved one was checked when it was set
		st.Close()
		return nil, fmt.Errorf("%s: %w", ThinkEnv, err)
	default:
		a.think.Store(model.ThinkDefault)
	}
	a.Bus = bus.New(
		bus.WithLogger[agent.Event](log),
		bus.WithFailures(a.failureEvent, func(e agent.Event) bool { return e.Type == TypeSubscriberFailed }),
		bus.WithReportSink(a.recordFailure),
	)
	a.Recorder = session.NewRecorder(st, a.Bus, log, session.Redacting(redact.FromEnv()))
	a.Runner = &session.Runner{Store: st, Recorder: a.Recorder}
	a.Undo = &undo.Keeper{Changes: st.FileChanges(), Watches: st.ShellWatches(), Dir: filepath.Join(dir, FileHistoryDir), Log: log, Skip: []string{dir}}
	if _, err := a.Undo.Prune(context.Background(), time.Now().Add(-KeepChangesFor)); err != nil {
		log.Warn("file history: older changes could not be pruned", "err", err)
	}
	// Claude Code hooks read the session as its transcript: written only
	// when one runs (hooks.Transcripts).
	a.Hooks = &hooks.Hooks{File: filepath.Join(dir, hooks.FileName), Transcripts: &hooks.Transcripts{Dir: filepath.Join(dir, TranscriptsDir), Messages: st.TextMessages}}
	_, _ = a.Hooks.Current() // a broken file is reported where hooks run
	// Observing hooks are one more subscriber: a slow or failing hook
	// costs its own mailbox (oldest events dropped when full), never the
	// loop; a failure is reported as bus:subscriber-failed.
	obs := &hooks.Observer{Hooks: a.Hooks, Workspace: func(ctx context.Context, id string) string {
		sess, err := st.Session(ctx, id)
		if err != nil {
			return ""
		}
		return sess.Workspace
	}}
	hsub, err := a.Bus.Subscribe("hooks", obs.Handle, bus.Buffer[agent.Event](1024),
		bus.Filter(func(e agent.Event) bool { return e.Type != TypeSubscriberFailed && obs.Wants(e.Type) }))
	if err != nil {
		return nil, err
	}
	hsub.Go(func(ctx context.Context) { a.Hooks.Follow(ctx, time.Second) })
	// Per-run measures: what procedural memory saves, run by run. It must
	// see every run's events, so a full mailbox waits (briefly) instead of
	// dropping.
	meter := &metrics.Recorder{Sink: st.Metrics(), Emit: a.Recorder.Emit}
	msub, err := a.Bus.Subscribe("metrics", meter.Handle, bus.Buffer[agent.Event](4096),
		bus.OnFull(bus.Block[agent.Event](5*time.Second)), bus.Filter(func(e agent.Event) bool { return metrics.Wants(e.Type) }))
	if err != nil {
		return nil, err
	}
	tracker := &usage.Tracker{Sink: st, Emit: a.Recorder.Emit, Extra: extraUsage}
	usub, err := a.Bus.Subscribe("usage", tracker.Handle,
		bus.Filter(func(e agent.Event) bool {
			return e.Type == agent.TypeRunEnded || e.Type == TypeToolSampled || e.Type == TypeHookJudged
		}))
	if err != nil {
		return nil, err
	}
	a.recordsAfterRuns(msub, usub)
	a.Runner.Settle = a.settleRun
	a.stopPrune, a.pruned = make(chan struct{}), make(chan struct{})
	a.cachesCtx, a.stopCaches = context.WithCancel(context.Background())
	go a.pruneFileHistory(PruneEvery)
	return a, nil
}

// recordsAfterRuns notes subscribers that record events in a session
// after its run ended, for settleRun.
func (a *App) recordsAfterRuns(subs ...*bus.Subscription[agent.Event]) {
	a.recordersMu.Lock()
	defer a.recordersMu.Unlock()
	a.recorders = append(a.recorders, subs...)
}

// settleRun waits until each subscriber that records after a run's end
// has handled what was published so far, or ctx ends (Runner.Settle).
func (a *App) settleRun(ctx context.Context) {
	a.recordersMu.Lock()
	subs := slices.Clone(a.recorders)
	a.recordersMu.Unlock()
	for _, s := range subs {
		if s != nil && s.Idle(ctx) != nil {
			return
		}
	}
}

// PruneEvery is how often an open app prunes the file history (changes
// older than KeepChangesFor, contents nothing needs): a window stays open
// for weeks, and opening prunes only once.
var PruneEvery = time.Hour

// TranscriptsDir is where, in the data directory, the sessions Claude
// Code hooks ran in are kept as Claude Code transcripts (transcript_path).
const TranscriptsDir = "claude-transcripts"

// DeleteSession removes a session with everything kept of it (its
// transcript for Claude Code hooks too), unless a request is running in
// it (session.ErrBusy).
func (a *App) DeleteSession(ctx context.Context, id string) error {
	if err := a.Runner.Delete(ctx, id); err != nil {
		return err
	}
	a.begun.Delete(id)
	a.sessionKnown(id, nil)
	if f := a.sessionEnvFile(id); f != "" {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the session's environment: %w", err)
		}
	}
	return a.Hooks.Transcripts.Forget(id)
}

// pruneFileHistory prunes the file history every interval until the app
// closes, and the commands' cache folders (shell.PruneCaches) when it
// opens and as often.
func (a *App) pruneFileHistory(interval time.Duration) {
	defer close(a.pruned)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		a.pruneCaches()
		select {
		case <-a.stopPrune:
			return
		case <-t.C:
			if _, err := a.Undo.Prune(context.Background(), time.Now().Add(-KeepChangesFor)); err != nil {
				a.Log.Warn("file history: older changes could not be pruned", "err", err)
			}
		}
	}
}

// pruneCaches removes the commands' cache folders nobody used for long
// (shell.PruneCaches), in the background, unless a prune is under way.
func (a *App) pruneCaches() {
	if !a.cachesBusy.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer a.cachesBusy.Store(false)
		if p, err := shell.PruneCaches(a.cachesCtx, time.Now(), CacheIdle, CacheGone); err != nil && a.cachesCtx.Err() == nil {
			a.Log.Warn("commands' caches: some could not be removed", "err", err)
		} else if len(p.Folders) > 0 {
			a.Log.Info("commands' caches removed: not used for long, or their workspace is gone", "folders", p.Folders, "bytes", p.Bytes)
		}
	}()
}

// CacheIdle and CacheGone are how long a workspace's cache folder (go's
// modules, npm's, … for the commands run there) is kept unused, and unused
// once its workspace is gone (a project deleted, a temporary folder).
const (
	CacheIdle = 60 * 24 * time.Hour
	CacheGone = 7 * 24 * time.Hour
)

// failureEvent turns a subscriber failure into an event for the failing
// value's session; recordFailure gives it its place in that session.
func (a *App) failureEvent(f bus.Failure[agent.Event]) agent.Event {
	return agent.Event{
		Type: TypeSubscriberFailed, Session: f.Value.Session,
		Time: time.Now().UTC(),
		Data: SubscriberFailure{
			Subscriber: f.Subscriber, Error: f.Err.Error(), Panic: f.Panic,
			EventType: f.Value.Type, EventSeq: f.Value.Seq,
		},
	}
}

// recordFailure is the bus's report sink: a failure within a session is
// recorded like any event of it (stamped, stored, then published by the
// recorder's writer), so subscribers see it in seq order among the events
// queued around it. Stored and published on a path of its own, it
// overtook or trailed them. One outside a session, or one the recorder
// cannot take (it closed first), is published as it is. A failure raised
// while the bus closes is stored and logged but reaches no subscriber: the
// recorder publishes on a closed bus, which drops it.
func (a *App) recordFailure(e agent.Event, publish func(agent.Event)) {
	if e.Session != "" {
		_, err := a.Recorder.Record(context.Background(), e.Session, e)
		if err == nil {
			return
		}
		a.Log.Error("record subscriber failure", "session", e.Session, "err", err)
	}
	publish(e)
}

// Close drains the bus and releases everything Open acquired. Closing
// again returns the first close's result (closing the procedure index
// twice panicked in Bleve).
func (a *App) Close(ctx context.Context) error {
	a.closeOnce.Do(func() { a.closeErr = a.close(ctx) })
	return a.closeErr
}

func (a *App) close(ctx context.Context) error {
	// MCP servers stop first: their processes must not outlive the app.
	if m := a.mcp.Load(); m != nil {
		m.Close()
	}
	// Let what is in flight land, stop the subscribers (they may still
	// record), then write what the recorder holds.
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_ = a.Settle(sctx)
	cancel()
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	busErr := a.Bus.Close(cctx)
	a.Recorder.Close()
	if a.mem != nil {
		_ = a.mem.Close()
	}
	close(a.stopPrune)
	<-a.pruned
	a.stopCaches()
	stErr := a.Store.Close()
	if busErr != nil {
		return fmt.Errorf("close app: %w", busErr)
	}
	if stErr != nil {
		return fmt.Errorf("close store: %w", stErr)
	}
	return nil
}
