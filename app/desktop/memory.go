package desktop

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/doctor"
	"github.com/shrimp-harness/shrimp/backend/facts"
	"github.com/shrimp-harness/shrimp/backend/metrics"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/backend/vectors"
	"github.com/shrimp-harness/shrimp/backend/working"
	"github.com/shrimp-harness/shrimp/internal/jsonplain"
)

// ProcedureView is one procedure as the procedure browser shows it.
type ProcedureView struct {
	ID           string    `json:"id"`
	Trigger      string    `json:"trigger"`
	Triggers     []string  `json:"triggers"`
	Tools        []string  `json:"tools"`
	Uses         int       `json:"uses"`
	Demerits     int       `json:"demerits"`
	Status       string    `json:"status"` // active, forgotten or stale
	MissingTools []string  `json:"missing_tools"`
	Sessions     []string  `json:"sessions"`
	Examples     []string  `json:"examples"` // arguments of each step, as JSON text
	LastUsed     time.Time `json:"last_used"`
	Score        float64   `json:"score"`    // for search results
	Declined     []string  `json:"declined"` // requests runs did not use it for: not offered for them until restored
}

// Procedures is the bound service of the procedure browser.
type Procedures struct {
	app   *app.App
	files pickers // the file dialog of Export and Import (share.go)
}

// NewProcedures returns the service.
func NewProcedures(a *app.App) *Procedures { return &Procedures{app: a} }

func (p *Procedures) open() (*procedures.Memory, func(string) bool, error) {
	mem, err := p.app.Memory(context.Background())
	if err != nil {
		return nil, nil, err
	}
	return mem, p.app.ToolChecker(), nil
}

func (p *Procedures) procedureView(pr procedures.Procedure, has func(string) bool, score float64) ProcedureView {
	status, missing := procedures.Status(pr, has)
	v := ProcedureView{ID: pr.ID, Trigger: pr.Trigger, Triggers: pr.Triggers, Tools: pr.Tools, Uses: pr.Uses, Demerits: pr.Demerits,
		Status: status, MissingTools: missing, Sessions: pr.Sessions, LastUsed: pr.LastUsed, Score: score,
		Declined: p.app.DeclinedRequests(context.Background(), pr.ID)}
	if v.MissingTools == nil {
		v.MissingTools = []string{}
	}
	if v.Sessions == nil {
		v.Sessions = []string{}
	}
	v.Examples = make([]string, 0, len(pr.Examples))
	for _, e := range pr.Examples {
		v.Examples = append(v.Examples, string(e)) // bounded when learned (jsoncut), older ones by store migration 19
	}
	return v
}

// List returns every procedure, most recently used first.
func (p *Procedures) List() ([]ProcedureView, error) {
	mem, has, err := p.open()
	if err != nil {
		return nil, err
	}
	out := []ProcedureView{}
	for _, pr := range mem.List() {
		out = append(out, p.procedureView(pr, has, 0))
	}
	return out, nil
}

// Search runs a request through the same recall the agent uses.
func (p *Procedures) Search(query string) ([]ProcedureView, error) {
	mem, has, err := p.open()
	if err != nil {
		return nil, err
	}
	hits, err := mem.Recall(context.Background(), query, has, 20)
	if err != nil {
		return nil, err
	}
	out := []ProcedureView{}
	for _, h := range hits {
		out = append(out, p.procedureView(h.Procedure, has, h.Score))
	}
	return out, nil
}

// Forget drops a procedure from recall until it is restored.
func (p *Procedures) Forget(id string) (ProcedureView, error) {
	mem, has, err := p.open()
	if err != nil {
		return ProcedureView{}, err
	}
	pr, err := mem.Forget(context.Background(), id, true)
	if err != nil {
		return ProcedureView{}, err
	}
	return p.procedureView(pr, has, 0), nil
}

// Restore brings a forgotten procedure back into recall, its demerits
// cleared, and offers it again for the requests runs declined it for.
func (p *Procedures) Restore(id string) (ProcedureView, error) {
	_, has, err := p.open()
	if err != nil {
		return ProcedureView{}, err
	}
	pr, err := p.app.RestoreProcedure(context.Background(), id)
	if err != nil {
		return ProcedureView{}, err
	}
	return p.procedureView(pr, has, 0), nil
}

// Decline is the user's "not for this request" on a recalled procedure's
// badge: it is not offered for request again until it is restored.
func (p *Procedures) Decline(id, request, session string) (ProcedureView, error) {
	_, has, err := p.open()
	if err != nil {
		return ProcedureView{}, err
	}
	pr, err := p.app.DeclineProcedure(context.Background(), id, request, session)
	if err != nil {
		return ProcedureView{}, err
	}
	return p.procedureView(pr, has, 0), nil
}

// ProcedureRuns is what a procedure's page shows of its worth: the run
// that taught it and every run it was handed to.
type ProcedureRuns struct {
	Learned *metrics.Run  `json:"learned"`
	Uses    []metrics.Run `json:"uses"`
}

// Runs returns the run that learned a procedure and the runs that
// recalled it, oldest first.
func (p *Procedures) Runs(id string) (ProcedureRuns, error) {
	r, err := p.app.ProcedureRuns(context.Background(), id)
	return ProcedureRuns(r), err
}

// Worth compares the runs of the last days days (0: all) that were handed
// a procedure with those that were not, and estimates each procedure's
// saved turns: an observational comparison, labelled so in the window.
func (p *Procedures) Worth(days int) (metrics.Comparison, error) {
	return p.app.Worth(context.Background(), days)
}

// Sessions is the bound service for stored sessions.
type Sessions struct {
	app      *app.App
	searches latestOnly // one search reads the messages at a time
}

// NewSessions returns the service.
func NewSessions(a *app.App) *Sessions { return &Sessions{app: a} }

// SessionList is the start of the sessions list: as many as were asked
// for, and how many there are in all.
type SessionList struct {
	Sessions []store.Session `json:"sessions"`
	Total    int             `json:"total"`
}

// List returns the limit most recently updated sessions (the view shows a
// page and asks for more: reading 50,000 at once took the view seconds)
// and how many there are.
func (s *Sessions) List(limit int) (SessionList, error) {
	out, total, err := s.app.Store.RecentSessions(context.Background(), max(limit, 1))
	if out == nil {
		out = []store.Session{}
	}
	return SessionList{Sessions: out, Total: total}, err
}

// Search returns the limit most recently updated sessions whose title or
// messages contain text, and how many do.
func (s *Sessions) Search(text string, limit int) (SessionList, error) {
	if strings.TrimSpace(text) == "" {
		return s.List(limit)
	}
	var out []store.Session
	var total int
	err := s.searches.do(func() (err error) {
		out, total, err = s.app.Store.SearchSessions(context.Background(), text, max(limit, 1))
		return err
	})
	if out == nil {
		out = []store.Session{}
	}
	return SessionList{Sessions: out, Total: total}, err
}

// errSuperseded answers a search a newer one replaced before it ran.
var errSuperseded = errors.New("a newer search replaced this one")

// latestOnly runs one call at a time, and drops a call that a newer one
// superseded while it waited: typing in the Sessions view's search box
// asks again at every pause, and each search reads every message (a
// second or more in a long history), so searches piled up, each holding
// one of the database's few connections, the runs' writes waiting behind
// them. The view shows only the latest answer anyway.
type latestOnly struct {
	mu     sync.Mutex
	latest atomic.Uint64
}

func (l *latestOnly) do(f func() error) error {
	mine := l.latest.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.latest.Load() != mine {
		return errSuperseded
	}
	return f()
}

// Open returns a whole session (messages and every event) to show it.
func (s *Sessions) Open(id string) (SessionExport, error) {
	// A run the app never ended (it was killed) is shown ended.
	if _, err := s.app.Runner.CloseInterrupted(context.Background(), id); err != nil && !errors.Is(err, store.ErrNotFound) {
		slog.Warn("close an interrupted run", "session", id, "err", err)
	}
	v, err := session.Load(context.Background(), s.app.Store, id)
	if err != nil {
		return SessionExport{}, err
	}
	return SessionExport{Session: v.Session, Events: coalesce(v.Events)}, nil
}

// coalesce turns each run of consecutive streamed pieces of one kind
// (agent:token, agent:thinking) into one event holding their text, with
// the seqs it spans: a session of 1,000 answers is ~300,000 pieces, which
// took seconds to load, send and replay in the window.
func coalesce(evs []agent.Event) []StoredEvent {
	out := make([]StoredEvent, 0, len(evs)/8+1)
	var text strings.Builder
	open := false // the last of out is a run of pieces, its text in text
	closeRun := func() {
		if open {
			b, _ := json.Marshal(agent.Delta{Text: text.String()})
			out[len(out)-1].Data = string(b)
			text.Reset()
			open = false
		}
	}
	for _, e := range evs {
		raw, _ := e.RawData()
		if e.Type == agent.TypeToken || e.Type == agent.TypeThinking {
			var d agent.Delta
			if json.Unmarshal(raw, &d) == nil {
				if last := len(out) - 1; open && out[last].Type == string(e.Type) && out[last].Seq == e.Seq-1 {
					text.WriteString(d.Text)
					out[last].Seq, out[last].Time = e.Seq, e.Time
					continue
				}
				closeRun()
				out = append(out, StoredEvent{Seq: e.Seq, FirstSeq: e.Seq, Session: e.Session, Type: string(e.Type), Time: e.Time})
				text.WriteString(d.Text)
				open = true
				continue
			}
		}
		closeRun()
		out = append(out, StoredEvent{Seq: e.Seq, Session: e.Session, Type: string(e.Type), Time: e.Time, Data: string(raw)})
	}
	closeRun()
	return out
}

// SessionExport is a session as the window opens it.
type SessionExport struct {
	Session store.Session `json:"session"`
	Events  []StoredEvent `json:"events"`
}

// Export renders a session as Markdown ("md") or JSON ("json").
func (s *Sessions) Export(id, format string) (string, error) {
	v, err := session.Load(context.Background(), s.app.Store, id)
	if err != nil {
		return "", err
	}
	switch format {
	case "md", "markdown":
		return v.Markdown(), nil
	case "json":
		// As `shrimp sessions export --format json` writes it: "<", ">"
		// and "&" as themselves, in stored events too.
		b, err := jsonplain.Marshal(v, "  ")
		return string(jsonplain.Unescaped(b)), err
	}
	return "", fmt.Errorf("unknown export format %q: use md or json", format)
}

// Rename names a session (in place of its first request's words) and
// returns the name kept: on one line, secrets out, cut to a title's
// length.
func (s *Sessions) Rename(id, title string) (string, error) {
	return s.app.RenameSession(context.Background(), id, title)
}

// Delete removes a session with its messages and events.
func (s *Sessions) Delete(id string) error {
	return s.app.DeleteSession(context.Background(), id)
}

// Image returns an image attached to a request, by the SHA-256 its run's
// start names, as a data URL for an <img>; an error when no session holds
// it any more.
func (s *Sessions) Image(sha256 string) (string, error) {
	img, err := s.app.Store.StoredImage(context.Background(), sha256)
	if err != nil {
		return "", err
	}
	if !attach.Decodable(img.Type) { // only images attach took are stored; nothing else is shown
		return "", fmt.Errorf("image %.12s is kept as %s, not an image the window shows", sha256, img.Type)
	}
	return "data:" + img.Type + ";base64," + base64.StdEncoding.EncodeToString(img.Data), nil
}

// Events returns a session's stored events after seq (to replay a session
// or heal a gap in the live timeline).
func (s *Sessions) Events(sessionID string, after int64) ([]StoredEvent, error) {
	evs, err := s.app.Store.Events(context.Background(), sessionID, after)
	if err != nil {
		return nil, err
	}
	out := make([]StoredEvent, 0, len(evs))
	for _, e := range evs {
		raw, _ := e.RawData()
		out = append(out, StoredEvent{Seq: e.Seq, Session: e.Session, Type: string(e.Type), Time: e.Time, Data: string(raw)})
	}
	return out, nil
}

// StoredEvent is an event as stored; Data is its JSON text. FirstSeq,
// when set, is the first seq of the streamed pieces it stands for (Seq
// the last).
type StoredEvent struct {
	Seq      int64     `json:"seq"`
	FirstSeq int64     `json:"first_seq,omitempty"`
	Session  string    `json:"session"`
	Type     string    `json:"type"`
	Time     time.Time `json:"time"`
	Data     string    `json:"data"`
}

// Settings is the bound service for the Ollama host, per-tool approval
// rules and per-model context sizes.
type Settings struct {
	app    *app.App
	system *System
}

// NewSettings returns the service; system is refreshed when the host
// changes.
func NewSettings(a *app.App, system *System) *Settings { return &Settings{app: a, system: system} }

// RuleView is one remembered approval rule and the workspace it holds in
// ("" for every workspace).
type RuleView struct {
	Workspace string    `json:"workspace"`
	Tool      string    `json:"tool"`
	Rule      string    `json:"rule"`
	Call      string    `json:"call,omitempty"` // the exact call an "always" holds for ("" for any call of the tool)
	Updated   time.Time `json:"updated"`
}

// Rules lists the remembered approval rules: per tool, then per exact call.
func (s *Settings) Rules() ([]RuleView, error) {
	ctx := context.Background()
	rules, err := s.app.Store.Rules(ctx)
	if err != nil {
		return []RuleView{}, err
	}
	calls, err := s.app.Store.CallRules(ctx)
	out := make([]RuleView, 0, len(rules)+len(calls))
	for _, r := range rules {
		out = append(out, RuleView{Workspace: r.Workspace, Tool: r.Tool, Rule: r.Rule, Updated: r.UpdatedAt})
	}
	for _, c := range calls {
		out = append(out, RuleView{Workspace: c.Workspace, Tool: c.Tool, Rule: approval.RuleAlways, Call: c.Call, Updated: c.UpdatedAt})
	}
	return out, err
}

// RevokeCallRule removes the "always" for one exact call of tool in
// workspace (as Rules lists it).
func (s *Settings) RevokeCallRule(workspace, tool, call string) error {
	gone, err := s.app.Store.RevokeCallRule(context.Background(), workspace, tool, call)
	if err == nil && !gone {
		err = fmt.Errorf("no rule for that %s call in %s: it may have been revoked already", tool, workspace)
	}
	return err
}

// SetRule sets a tool's rule ("always", "ask", "never") in a workspace
// ("" for every workspace, which only "never" may use); rule "" revokes it.
func (s *Settings) SetRule(workspace, tool, rule string) error {
	switch rule {
	case "", "ask", "never":
	case "always":
		if workspace == "" {
			return errors.New("an \"always\" rule is kept for one workspace: pick the workspace it applies to")
		}
	default:
		return fmt.Errorf("unknown rule %q: use always, ask or never", rule)
	}
	if workspace != "" {
		workspace = app.WorkspaceKey(workspace)
	}
	return s.app.Store.SetRule(context.Background(), workspace, tool, rule)
}

// NumCtx returns the context size set for a model (0: the default).
func (s *Settings) NumCtx(model string) (int, error) {
	return s.app.Store.NumCtx(context.Background(), model)
}

// SetNumCtx sets a model's context size; 0 goes back to the default.
func (s *Settings) SetNumCtx(model string, n int) error {
	if n != 0 && n < 512 {
		return fmt.Errorf("a context size must be at least 512 tokens (or 0 for the default)")
	}
	return s.app.Store.SetNumCtx(context.Background(), model, n)
}

// ParamsView is a model's sampling settings as Settings shows them.
type ParamsView struct {
	Specs     []model.ParamSpec `json:"specs"`     // the settings, in order
	Set       model.Params      `json:"set"`       // the user's
	Modelfile model.Params      `json:"modelfile"` // its Modelfile's: what applies where the user set none
	Note      string            `json:"note"`      // why the Modelfile's are not known, when they are not
}

// ModelParams returns a model's sampling settings: the user's, and its
// Modelfile's.
func (s *Settings) ModelParams(name string) (ParamsView, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	set, err := s.app.ModelParams(ctx, name)
	if err != nil {
		return ParamsView{}, err
	}
	v := ParamsView{Specs: model.ParamSpecs, Set: set, Modelfile: model.Params{}}
	if d, err := s.app.Model.Show(ctx, name); err != nil {
		v.Note = err.Error()
	} else if d.Params != nil {
		v.Modelfile = d.Params
	}
	return v, nil
}

// SetModelParams sets a model's sampling settings from what was typed,
// by name ("" for the model's own), and returns them; an error names a
// value that is not a number or out of its range, and nothing is kept.
func (s *Settings) SetModelParams(name string, values map[string]string) (model.Params, error) {
	var args []string
	for _, k := range slices.Sorted(maps.Keys(values)) {
		args = append(args, k+"="+values[k]) // an unknown name is refused, saying which are known
	}
	set, unset, err := model.ParseParams(args)
	if err != nil {
		return nil, err
	}
	return s.app.SetModelParams(context.Background(), name, set, unset)
}

// UsageSummary is what the usage view charts.
type UsageSummary struct {
	Chart  UsageChart         `json:"chart"`
	Recent []store.Session    `json:"recent"` // the latest, most recent first
	Models []store.ModelUsage `json:"models"`
}

// UsageChart is every session's token counts at its last update, oldest
// first, a column each (as the chart takes them): a few numbers a
// session, where whole sessions made 14 MB for 50,000.
type UsageChart struct {
	Time []int64 `json:"time"` // Unix seconds
	In   []int   `json:"in"`
	Out  []int   `json:"out"`
}

// usageRecent is how many sessions the usage view lists.
const usageRecent = 20

// Usage returns token accounting over time, per model and for the latest
// sessions.
func (s *Sessions) Usage() (UsageSummary, error) {
	ctx := context.Background()
	sum := UsageSummary{Chart: UsageChart{Time: []int64{}, In: []int{}, Out: []int{}}, Recent: []store.Session{}, Models: []store.ModelUsage{}}
	points, err := s.app.Store.UsagePoints(ctx)
	if err != nil {
		return sum, err
	}
	for _, p := range points {
		sum.Chart.Time = append(sum.Chart.Time, p.Updated)
		sum.Chart.In = append(sum.Chart.In, p.PromptTokens)
		sum.Chart.Out = append(sum.Chart.Out, p.CompletionTokens)
	}
	if recent, _, err := s.app.Store.RecentSessions(ctx, usageRecent); err != nil {
		return sum, err
	} else if recent != nil {
		sum.Recent = recent
	}
	ms, err := s.app.Store.UsageByModel(ctx)
	if ms != nil {
		sum.Models = ms
	}
	return sum, err
}

// SetOllamaHost points Shrimp at another Ollama server now and on later
// starts (unless OLLAMA_HOST or --ollama names one); "" goes back to the
// default.
func (s *Settings) SetOllamaHost(host string) (string, error) {
	h := strings.TrimSpace(host)
	if h == "" {
		h = model.DefaultHost
	}
	if err := s.app.Model.SetHost(h); err != nil {
		return "", err
	}
	saved := s.app.Model.Host()
	if strings.TrimSpace(host) == "" {
		saved = ""
	}
	if err := s.app.Store.SetSetting(context.Background(), app.SettingOllamaHost, saved); err != nil {
		return "", err
	}
	s.app.Config.OllamaHost = s.app.Model.Host()
	if s.system != nil {
		s.system.Refresh()
	}
	return s.app.Model.Host(), nil
}

// ChatDefaults are what a new chat in the window starts with. They are
// kept in the data directory's settings, beside the others (not in the
// web view's storage, which lives in ~/.local/share/shrimp whatever the
// data directory), so `shrimp chat` uses the same default model.
type ChatDefaults struct {
	// Model is the default model: "" for the one named at start-up
	// (--model, SHRIMP_MODEL), else the first installed that calls tools.
	// `shrimp chat` takes it too, after --model and SHRIMP_MODEL.
	Model string `json:"model"`
	// Approve is the approval mode: ask, read, all or none (the window's
	// only: a terminal asks unless told with --approve).
	Approve string `json:"approve"`
	// Workspace is the folder the last chat worked in ("" until one was
	// chosen).
	Workspace string `json:"workspace"`
}

// ChatDefaults returns what new chats start with.
func (s *Settings) ChatDefaults() (ChatDefaults, error) {
	var d ChatDefaults
	for _, f := range []struct {
		key string
		to  *string
	}{{app.SettingDefaultModel, &d.Model}, {app.SettingDefaultApprove, &d.Approve}, {app.SettingWorkspace, &d.Workspace}} {
		v, err := s.app.Store.Setting(context.Background(), f.key)
		if err != nil {
			return ChatDefaults{}, fmt.Errorf("read the defaults for new chats: %w", err)
		}
		*f.to = v
	}
	mode, err := approval.ParseMode(d.Approve)
	if err != nil {
		mode = approval.ModeAsk // written by hand: the safe one
	}
	d.Approve = string(mode)
	return d, nil
}

// SetChatDefaults saves what new chats start with; an approval mode
// other than ask, read, all or none is refused.
func (s *Settings) SetChatDefaults(d ChatDefaults) error {
	mode, err := approval.ParseMode(strings.TrimSpace(d.Approve))
	if err != nil {
		return err
	}
	for _, f := range []struct{ key, value string }{
		{app.SettingDefaultModel, strings.TrimSpace(d.Model)},
		{app.SettingDefaultApprove, string(mode)},
		{app.SettingWorkspace, d.Workspace},
	} {
		if err := s.app.Store.SetSetting(context.Background(), f.key, f.value); err != nil {
			return fmt.Errorf("save the defaults for new chats: %w", err)
		}
	}
	return nil
}

// IdleTimeout returns how long a model request may send nothing before
// it is given up, as a duration ("5m0s").
func (s *Settings) IdleTimeout() string { return s.app.Model.IdleTimeout().String() }

// SetIdleTimeout sets and saves the idle timeout ("90s", "10m"); ""
// goes back to the default. It returns the value now in force.
func (s *Settings) SetIdleTimeout(value string) (string, error) {
	var d time.Duration
	if strings.TrimSpace(value) != "" {
		var err error
		if d, err = model.ParseIdleTimeout(value); err != nil {
			return "", err
		}
	}
	saved := ""
	if d > 0 {
		saved = d.String()
	}
	if err := s.app.Store.SetSetting(context.Background(), app.SettingIdleTimeout, saved); err != nil {
		return "", err
	}
	s.app.Model.SetIdleTimeout(d)
	return s.app.Model.IdleTimeout().String(), nil
}

// Think returns what requests ask of a reasoning model's thinking:
// "" (the model's own), on, off, low, medium or high.
func (s *Settings) Think() string { return string(s.app.Think()) }

// SetThink sets and saves it (model.ParseThink), and returns it as kept.
func (s *Settings) SetThink(value string) (string, error) {
	t, err := model.ParseThink(value)
	if err != nil {
		return s.Think(), err
	}
	if err := s.app.SetThink(context.Background(), t); err != nil {
		return s.Think(), err
	}
	return s.Think(), nil
}

// KeepAlive returns how long Ollama keeps the model loaded after a
// request: "" (Ollama's own), a duration ("30m0s") or "forever".
func (s *Settings) KeepAlive() string { return model.KeepAliveText(s.app.Model.KeepAlive()) }

// SetKeepAlive sets and saves the keep-alive ("30m", "4h", "forever"; ""
// goes back to Ollama's own). It returns the value now in force.
func (s *Settings) SetKeepAlive(value string) (string, error) {
	d, err := model.ParseKeepAlive(value)
	if err != nil {
		return "", err
	}
	if err := s.app.Store.SetSetting(context.Background(), app.SettingKeepAlive, model.KeepAliveText(d)); err != nil {
		return "", err
	}
	s.app.Model.SetKeepAlive(d)
	return s.KeepAlive(), nil
}

// MaxTurns returns the model turns a request may take, and whether
// SHRIMP_MAX_TURNS sets it (over what Settings saves).
func (s *Settings) MaxTurns() (TurnsView, error) {
	n, err := s.app.MaxTurns(context.Background())
	return TurnsView{Turns: n, Default: app.DefaultMaxTurns, Most: app.MostTurns, FromEnv: os.Getenv(app.MaxTurnsEnv) != ""}, err
}

// SetMaxTurns saves the turn limit (0: back to the default) and returns
// it as in force.
func (s *Settings) SetMaxTurns(n int) (TurnsView, error) {
	if err := s.app.SetMaxTurns(context.Background(), n); err != nil {
		return TurnsView{}, err
	}
	return s.MaxTurns()
}

// TurnsView is the turn limit as Settings shows it.
type TurnsView struct {
	Turns   int  `json:"turns"`
	Default int  `json:"default"`
	Most    int  `json:"most"`
	FromEnv bool `json:"from_env"` // SHRIMP_MAX_TURNS sets it: what Settings saves applies once it is unset
}

// MaxTools returns the cap on tool definitions offered per request (0:
// as many as fit in a quarter of the model's context).
func (s *Settings) MaxTools() int {
	v, _ := s.app.Store.Setting(context.Background(), app.SettingMaxTools)
	n, _ := strconv.Atoi(v)
	return n
}

// SetMaxTools saves the cap (0 goes back to the context share). The
// built-in tools are always offered; the cap decides how many MCP tools
// join them.
func (s *Settings) SetMaxTools(n int) error {
	if n < 0 || n > 500 {
		return errors.New("give 0 (as many as fit in a quarter of the context) or a number of tools up to 500")
	}
	v := ""
	if n > 0 {
		v = strconv.Itoa(n)
	}
	return s.app.Store.SetSetting(context.Background(), app.SettingMaxTools, v)
}

// ShellSandbox says whether shell commands run confined to the
// workspace and the temporary folders, and why not.
func (s *Settings) ShellSandbox() app.Sandbox { return s.app.ShellSandbox(context.Background()) }

// SetShellSandbox switches the shell sandbox on or off from the next
// request and returns what that means here.
func (s *Settings) SetShellSandbox(on bool) (app.Sandbox, error) {
	if err := s.app.SetShellSandbox(context.Background(), on); err != nil {
		return app.Sandbox{}, err
	}
	return s.app.ShellSandbox(context.Background()), nil
}

// EmbedModel returns the Ollama embedding model recall compares meanings
// with ("" for the built-in sentence encoder alone).
func (s *Settings) EmbedModel() string { return s.app.Config.EmbedModel }

// SetEmbedModel sets and saves the embedding model ("" goes back to the
// built-in encoder). The model must be installed in Ollama; its vectors
// for the stored procedures are computed in the background, and recall
// uses it once enough are there. It returns the model now in force.
func (s *Settings) SetEmbedModel(name string) (string, error) {
	name = strings.TrimSpace(name)
	ctx := context.Background()
	if name != "" {
		installed, err := s.app.Model.List(ctx)
		if err != nil {
			return "", fmt.Errorf("cannot check the model with Ollama: %w", err)
		}
		if !slices.ContainsFunc(installed, func(i model.Info) bool { return model.SameModel(i.Name, name) }) {
			return "", fmt.Errorf("%q is not installed: run `ollama pull %s` (for example nomic-embed-text, embeddinggemma or all-minilm), then set it again", name, name)
		}
		if d, err := s.app.Model.Show(ctx, name); err == nil && !d.Embeds() {
			return "", fmt.Errorf("%q is not an embedding model (Ollama lists it for %s): its vectors are not made to compare meanings; pull one that is (ollama pull nomic-embed-text, embeddinggemma or all-minilm) and set that", name, strings.Join(d.Capabilities, ", "))
		}
	}
	if err := s.app.Store.SetSetting(ctx, app.SettingEmbedModel, name); err != nil {
		return "", err
	}
	s.app.Config.EmbedModel = name
	mem, err := s.app.Memory(ctx)
	if err != nil {
		return name, nil // saved; applies when the memory opens
	}
	var e procedures.Embedder
	if name != "" {
		e = model.Embedder{Client: s.app.Model, Model: name}
	}
	if err := mem.SetEmbedder(ctx, e); err != nil {
		return "", err
	}
	return name, nil
}

// EmbedStatusView is how far the embedding model has come, for Settings.
type EmbedStatusView struct {
	Model    string `json:"model"`    // as set; "" for the built-in encoder alone
	Wordings int    `json:"wordings"` // the stored procedures' wordings
	Embedded int    `json:"embedded"` // of those, the ones with the model's vectors
	InUse    bool   `json:"in_use"`   // recall compares meanings with the model
	Needed   int    `json:"needed"`   // wordings with vectors recall needs before it uses the model
	Pending  int    `json:"pending"`  // being embedded in the background
	Failed   int    `json:"failed"`   // failed, to be tried again at Retry
	Retry    string `json:"retry"`    // RFC 3339; "" when none wait
	Error    string `json:"error"`    // the last failure; "" after a success
}

// EmbedStatus reports the embedding model's progress with the stored
// procedures (Settings shows it under the model's name).
func (s *Settings) EmbedStatus() (EmbedStatusView, error) {
	v := EmbedStatusView{Model: s.app.Config.EmbedModel, Needed: vectors.MinCalibration}
	if v.Model == "" {
		return v, nil
	}
	mem, err := s.app.Memory(context.Background())
	if err != nil {
		return v, err
	}
	es := mem.EmbedderStatus()
	v.Wordings, v.Embedded, v.InUse, v.Pending, v.Failed = es.Wordings, es.Embedded, es.InUse, es.Pending, es.Failed
	if !es.Retry.IsZero() {
		v.Retry = es.Retry.Format(time.RFC3339)
	}
	if es.Err != nil {
		v.Error = es.Err.Error()
	}
	return v, nil
}

// Memory is the bound service of the memory view: long-term facts and a
// session's working memory.
type Memory struct {
	app *app.App
}

// NewMemory returns the service.
func NewMemory(a *app.App) *Memory { return &Memory{app: a} }

// Facts lists every fact.
func (m *Memory) Facts() ([]store.Fact, error) {
	f, err := m.app.Facts(context.Background())
	if err != nil {
		return nil, err
	}
	return f.List(), nil
}

// SearchFacts finds facts like the agent does.
func (m *Memory) SearchFacts(query string) ([]store.Fact, error) {
	f, err := m.app.Facts(context.Background())
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(query) == "" {
		return f.List(), nil
	}
	out, err := f.Search(query, 50)
	if out == nil {
		out = []store.Fact{}
	}
	return out, err
}

// SetFact adds or edits a fact (source: the user).
func (m *Memory) SetFact(key, value string) (store.Fact, error) {
	f, err := m.app.Facts(context.Background())
	if err != nil {
		return store.Fact{}, err
	}
	r, err := f.Set(context.Background(), key, value, "the user (window)")
	if err == nil {
		m.app.Bus.Publish(facts.UpdatedEvent(r))
	}
	return r, err
}

// FactNote says what to know of a fact before or after it is stored: ""
// unless it looks like it holds a secret (App.SecretFactNote).
func (m *Memory) FactNote(key, value string) string {
	return m.app.SecretFactNote(key, value)
}

// ApproveFact lets a flagged fact into prompts (as quoted data) after the
// user read it.
func (m *Memory) ApproveFact(key string) (store.Fact, error) {
	f, err := m.app.Facts(context.Background())
	if err != nil {
		return store.Fact{}, err
	}
	r, err := f.Approve(context.Background(), key)
	if err == nil {
		m.app.Bus.Publish(facts.UpdatedEvent(r))
	}
	return r, err
}

// DeleteFact removes a fact.
func (m *Memory) DeleteFact(key string) error {
	f, err := m.app.Facts(context.Background())
	if err != nil {
		return err
	}
	if err := f.Delete(context.Background(), key); err != nil {
		return err
	}
	m.app.Bus.Publish(agent.Event{Type: facts.TypeUpdated, Time: time.Now().UTC(), Data: facts.Change{Key: key, Deleted: true}})
	return nil
}

// Working returns a session's working-memory notes.
func (m *Memory) Working(sessionID string) ([]store.WorkingEntry, error) {
	out, err := working.New(m.app.Store, func() string { return sessionID }).Entries(context.Background())
	if out == nil {
		out = []store.WorkingEntry{}
	}
	return out, err
}

// Diagnostics runs shrimp doctor's checks (Settings → Diagnostics).
func (s *Settings) Diagnostics() []doctor.Result {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return s.app.Doctor(ctx)
}

// RebuildIndex rebuilds the procedure search index from the database.
func (s *Settings) RebuildIndex() error {
	ctx := context.Background()
	mem, err := s.app.Memory(ctx)
	if err != nil {
		return err
	}
	return mem.Rebuild(ctx)
}
