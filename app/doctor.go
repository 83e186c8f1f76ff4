package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/doctor"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/sentence"
	"github.com/shrimp-harness/shrimp/backend/store"
	"github.com/shrimp-harness/shrimp/backend/tool/shell"
	"github.com/shrimp-harness/shrimp/backend/vectors"
	"github.com/shrimp-harness/shrimp/backend/webview"
	"github.com/shrimp-harness/shrimp/internal/plural"
	"github.com/shrimp-harness/shrimp/internal/shebang"
	"github.com/shrimp-harness/shrimp/internal/sqlite"
)

// BuiltinToolTokens is about how many tokens the built-in tools'
// definitions take in a request (JSON over four, as the budget counts
// them), for the doctor's advice; cli.TestToolCapPrefersRelevant measures
// it and fails when it is off by more than a tenth.
const BuiltinToolTokens = 1600

// RecommendedModel is a small model that calls tools well.
type RecommendedModel struct {
	Name string `json:"name"`
	Size string `json:"size"` // download size
	Note string `json:"note"`
}

// RecommendedModels are offered to a user who has no model that can call
// tools (first run, shrimp doctor), smallest first.
var RecommendedModels = []RecommendedModel{
	{"qwen3:1.7b", "1.4 GB", "fast on any laptop; fine for simple file chores"},
	{"llama3.2:3b", "2.0 GB", "Meta's small model with tool calling"},
	{"qwen3:4b", "2.5 GB", "the best small tool caller; needs about 4 GB of RAM"},
}

// MinOllama is the oldest Ollama whose tool calling Shrimp is tested with.
const MinOllama = "0.5.0"

// MinGo is the oldest Go release whose standard library has the fixes for
// every known vulnerability Shrimp's code reaches (docs/SECURITY.md): the
// toolchain line of go.mod, which the Makefile builds with
// (TestGoRelease keeps the two equal).
const MinGo = "go1.26.10"

// Doctor runs shrimp doctor's checks on an open app.
func (a *App) Doctor(ctx context.Context) []doctor.Result {
	return doctor.Run(ctx, doctorChecks(doctorParts{
		dir: a.Config.DataDir, mc: a.Model, st: a.Store, model: a.Config.Model, embedModel: a.Config.EmbedModel,
		// Another process's index: ErrLocked beside this one's own memory.
		memory: func(ctx context.Context) (*procedures.Memory, error) {
			m, err := a.Memory(ctx)
			return m, cmp.Or(err, a.MemoryShared())
		},
	}), 0)
}

// DoctorWithout runs the checks that need no open app, for when Open
// failed (openErr): the database check reports that failure.
func DoctorWithout(ctx context.Context, cfg Config, openErr error) []doctor.Result {
	cfg = cfg.FromEnv()
	p := doctorParts{dir: cfg.DataDir, model: cfg.Model, embedModel: cfg.EmbedModel, openErr: openErr}
	if mc, err := model.New(cfg.OllamaHost); err == nil {
		p.mc = mc
	}
	return doctor.Run(ctx, doctorChecks(p), 0)
}

// doctorParts is what the checks look at; st and memory are nil when the
// app could not be opened.
type doctorParts struct {
	dir   string
	mc    *model.Client
	st    *store.Store
	model string
	// embedModel is the Ollama embedding model recall is set to use ("":
	// none).
	embedModel string
	openErr    error
	memory     func(context.Context) (*procedures.Memory, error)
}

func doctorChecks(p doctorParts) []doctor.Check {
	models := &modelSurvey{}
	return []doctor.Check{
		{Name: "ollama", Run: func(ctx context.Context) doctor.Result { return checkOllama(ctx, p.mc, models) }},
		{Name: "tool models", Run: func(ctx context.Context) doctor.Result { return checkToolModels(ctx, p.mc, models) }},
		{Name: "context size", Run: func(ctx context.Context) doctor.Result { return checkContext(ctx, p, models) }},
		{Name: "data directory", Run: func(context.Context) doctor.Result { return doctor.Writable(p.dir) }},
		{Name: "database", Run: func(ctx context.Context) doctor.Result { return checkDatabase(ctx, p) }},
		{Name: "procedure index", Run: func(ctx context.Context) doctor.Result { return checkIndex(ctx, p) }},
		{Name: "other process", Run: func(ctx context.Context) doctor.Result { return checkLock(ctx, p) }},
		{Name: "window", Run: func(context.Context) doctor.Result { return doctor.Window(doctor.HasLibrary, os.Getenv) }},
		{Name: "desktop", Run: checkDesktop},
		{Name: "window drawing", Run: func(context.Context) doctor.Result { return doctor.Drawing(webview.Choose("/", os.LookupEnv)) }},
		{Name: "sentence encoder", Run: func(context.Context) doctor.Result { return doctor.Encoder(sentence.Kernel()) }},
		{Name: "go release", Run: func(context.Context) doctor.Result { return checkGoRelease(runtime.Version()) }},
		{Name: "embedding model", Run: func(ctx context.Context) doctor.Result { return checkEmbedModel(ctx, p, models) }},
		{Name: "disk space", Run: func(context.Context) doctor.Result { return doctor.DiskFree(p.dir, doctor.Free) }},
		{Name: "window log", Run: func(context.Context) doctor.Result { return checkLog(filepath.Join(p.dir, LogFile)) }},
		{Name: "file history", Run: func(ctx context.Context) doctor.Result { return checkFileHistory(ctx, p) }},
		{Name: "shell", Run: func(context.Context) doctor.Result { return checkShell(shell.Interpreter()) }},
		{Name: "shell sandbox", Run: func(ctx context.Context) doctor.Result { return checkSandbox(ctx, p) }},
		{Name: "commands' caches", Run: func(context.Context) doctor.Result { return checkCaches(shell.Usage()) }},
		{Name: "mcp servers", Run: func(context.Context) doctor.Result { return checkMCP(p.dir, os.LookupEnv, exec.LookPath) }},
		{Name: "hooks", Run: func(context.Context) doctor.Result { return checkHooks(p.dir, exec.LookPath) }},
	}
}

// checkShell says what shell.run runs commands with: bash, which models
// write for, or /bin/sh where there is none (dash on Debian makes a
// folder named "{a,b}" of mkdir -p {a,b} and refuses source).
func checkShell(interpreter string) doctor.Result {
	if shell.IsBash(interpreter) {
		return doctor.Result{Status: doctor.Pass, Detail: "commands run with " + interpreter}
	}
	return doctor.Result{Status: doctor.Warn, Detail: "no bash here: commands run with " + interpreter + ", and models write bash ({a,b}, source, [[ ]], &> do something else or fail)",
		Fix: "install bash (apt install bash, apk add bash)"}
}

// checkHooks reads hooks.json and looks for each enabled hook's command: a
// pre-tool-call hook that cannot start denies every call it applies to,
// so one missing fails the check.
func checkHooks(dir string, lookPath func(string) (string, error)) doctor.Result {
	file := filepath.Join(dir, hooks.FileName)
	cfg, err := hooks.Load(file)
	if err != nil {
		return doctor.Result{Status: doctor.Fail, Detail: err.Error(), Fix: "mend or remove " + file + " (shrimp hooks list shows it once it reads)"}
	}
	if len(cfg.Hooks) == 0 {
		return doctor.Result{Status: doctor.Pass, Detail: "none configured"}
	}
	enabled := lo.CountBy(cfg.Hooks, func(h hooks.Hook) bool { return !h.Disabled })
	status := doctor.Pass
	var problems []string
	for _, h := range cfg.Hooks {
		switch {
		case h.Disabled:
			continue
		case !h.Findable(lookPath):
			problems = append(problems, fmt.Sprintf("hook %s (%s) runs %s, which is not found: %s", h.ID, h.On(), h.Program(), h.Unstartable()))
		default:
			why := h.ScriptProblem(lookPath)
			if why == "" {
				continue
			}
			problems = append(problems, fmt.Sprintf("hook %s (%s) cannot start: %s; until it can, %s", h.ID, h.On(), why, h.Unstartable()))
		}
		switch {
		case h.FailsClosed():
			status = doctor.Fail
		case status == doctor.Pass:
			status = doctor.Warn
		}
	}
	detail := fmt.Sprintf("%d configured, %d enabled", len(cfg.Hooks), enabled)
	if asks := lo.CountBy(cfg.Hooks, func(h hooks.Hook) bool { return !h.Disabled && h.Prompt != "" }); asks > 0 {
		detail += fmt.Sprintf(" (%d of them asking the request's model)", asks)
	}
	if len(problems) == 0 {
		return doctor.Result{Status: doctor.Pass, Detail: detail + ", their commands found"}
	}
	return doctor.Result{Status: status, Detail: detail + "; " + strings.Join(problems, "; "),
		Fix: "install the command or give its full path (shrimp hooks remove ID, then add it again), mend the script as said, or switch the hook off (shrimp hooks disable ID, or in Extensions)"}
}

// checkCaches says what the commands' cache folders take (go's modules,
// npm's, … one a workspace) and when they go.
func checkCaches(u shell.CacheUsage, err error) doctor.Result {
	keep := fmt.Sprintf("each is removed %d days after the last command in its workspace, or %d days after the workspace is gone; deleting the folder is safe", int(CacheIdle.Hours()/24), int(CacheGone.Hours()/24))
	switch {
	case err != nil:
		return doctor.Result{Status: doctor.Warn, Detail: err.Error(), Fix: "set HOME (or XDG_CACHE_HOME); until then commands keep their tools' caches in the project"}
	case u.Folders == 0:
		return doctor.Result{Status: doctor.Pass, Detail: "none yet (" + u.Root + "); " + keep}
	}
	return doctor.Result{Status: doctor.Pass, Detail: fmt.Sprintf("%s of commands' caches take %.1f MB in %s; %s",
		plural.N(u.Folders, "workspace's folder", "workspaces' folders"), float64(u.Bytes)/1e6, u.Root, keep)}
}

// LogFile is the window's log in the data folder (main keeps it), and
// LogMax the size past which it starts again (the last one kept as
// LogFile.1).
const (
	LogFile = "shrimp.log"
	LogMax  = 1 << 20
)

// checkFileHistory says how many file changes can be undone, how much
// their kept contents take, and whether others can read them.
func checkFileHistory(ctx context.Context, p doctorParts) doctor.Result {
	dir := filepath.Join(p.dir, FileHistoryDir)
	if p.st == nil {
		return doctor.Result{Status: doctor.Warn, Detail: "the database cannot be opened, so what can be undone is not known", Fix: "mend the database first (see database)"}
	}
	changes, sessions, err := p.st.FileChanges().Count(ctx)
	if err != nil {
		return doctor.Result{Status: doctor.Warn, Detail: err.Error(), Fix: "run shrimp doctor again; if it says the same, see database"}
	}
	var size int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	detail := fmt.Sprintf("%s in %s can be undone; their earlier contents take %.1f MB in %s (kept %d days)",
		plural.N(int(changes), "file change", "file changes"), plural.N(int(sessions), "session", "sessions"), float64(size)/1e6, dir, int(KeepChangesFor.Hours()/24))
	if st, err := os.Stat(dir); err == nil && st.Mode().Perm()&0o077 != 0 {
		return doctor.Result{Status: doctor.Warn, Detail: detail + fmt.Sprintf("; others may read it (mode %v), and it holds copies of your files", st.Mode().Perm()), Fix: "chmod 700 " + dir}
	}
	return doctor.Result{Status: doctor.Pass, Detail: detail}
}

// checkLog says where the window's log is and the last error it holds.
func checkLog(path string) doctor.Result {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return doctor.Result{Status: doctor.Pass, Detail: "no window log yet (" + path + ")"}
	case err != nil:
		return doctor.Result{Status: doctor.Warn, Detail: "the window log cannot be read: " + err.Error(), Fix: "check the permissions of " + path}
	}
	last := ""
	for line := range strings.Lines(string(b)) {
		if strings.Contains(line, " level=ERROR ") {
			last = strings.TrimSpace(line)
		}
	}
	if last == "" {
		return doctor.Result{Status: doctor.Pass, Detail: path + ": no errors"}
	}
	if r := []rune(last); len(r) > 300 {
		last = string(r[:300]) + "…"
	}
	return doctor.Result{Status: doctor.Warn, Detail: "the window's last error (" + path + "): " + last,
		Fix: "if it is not explained by the checks above, attach " + path + " to a bug report (secrets are taken out)"}
}

// modelSurvey asks Ollama once for what three checks need: they run side
// by side, so the first to ask does it and the others wait for it.
type modelSurvey struct {
	once    sync.Once
	status  model.Status
	details map[string]model.Details
	err     error
}

func (s *modelSurvey) get(ctx context.Context, mc *model.Client) *modelSurvey {
	s.once.Do(func() {
		if mc == nil {
			s.err = errors.New("the Ollama host is not a valid URL")
			return
		}
		s.status = mc.Status(ctx)
		if !s.status.Reachable && s.status.Foreign {
			// Something else answers there (a web server, a proxy):
			// installing or starting Ollama would not mend that.
			s.err = errors.New(s.status.Error)
			return
		}
		if !s.status.Reachable {
			s.err = fmt.Errorf("no Ollama answers at %s", s.status.Host)
			if cause := s.status.Error; strings.Contains(cause, "connection refused") {
				s.err = fmt.Errorf("%w (connection refused)", s.err)
			}
			return
		}
		s.details = mc.ShowAll(ctx, s.status.Models)
	})
	return s
}

func ollamaFix() string {
	if _, err := exec.LookPath("ollama"); err == nil {
		return "start it: ollama serve (or sudo systemctl start ollama); another host: --ollama URL or OLLAMA_HOST"
	}
	return "install it: curl -fsSL https://ollama.com/install.sh | sh (see https://ollama.com/download/linux), then ollama serve"
}

func checkOllama(ctx context.Context, mc *model.Client, m *modelSurvey) doctor.Result {
	s := m.get(ctx, mc)
	if s.err != nil && s.status.Foreign {
		return doctor.Result{Status: doctor.Fail, Detail: s.err.Error(), Fix: "point Shrimp at Ollama: --ollama URL, OLLAMA_HOST or Settings (Ollama listens on http://127.0.0.1:11434 unless told otherwise)"}
	}
	if s.err != nil {
		return doctor.Result{Status: doctor.Fail, Detail: s.err.Error(), Fix: ollamaFix()}
	}
	detail := fmt.Sprintf("Ollama %s at %s", s.status.Version, s.status.Host)
	var notes, fixes []string
	if versionLess(s.status.Version, MinOllama) {
		notes = append(notes, "older than "+MinOllama+": tool calls may not stream")
		fixes = append(fixes, "update Ollama: curl -fsSL https://ollama.com/install.sh | sh")
	}
	if doctor.PlainRemote(ctx, s.status.Host, net.DefaultResolver.LookupIPAddr) {
		notes = append(notes, "another machine over plain HTTP: your requests, what the tools read and the answers cross the network unencrypted, to an API without authentication")
		fixes = append(fixes, "reach it through an SSH tunnel (ssh -N -L 11434:127.0.0.1:11434 THAT-HOST, then --ollama http://127.0.0.1:11434) or an HTTPS proxy in front of it")
	}
	if len(notes) == 0 {
		return doctor.Result{Status: doctor.Pass, Detail: detail}
	}
	return doctor.Result{Status: doctor.Warn, Detail: detail + ", " + strings.Join(notes, "; "), Fix: strings.Join(fixes, "; ")}
}

func pullFix() string {
	var names []string
	for _, r := range RecommendedModels {
		names = append(names, r.Name+" ("+r.Size+")")
	}
	return "pull one that can: ollama pull " + RecommendedModels[2].Name + " — or " + strings.Join(names[:2], ", ")
}

// listed returns the name Ollama lists the model name means by, and its
// details; ok is false when it is not listed ("qwen3" is qwen3:latest).
func (s *modelSurvey) listed(name string) (listed string, d model.Details, ok bool) {
	i := slices.IndexFunc(s.status.Models, func(l string) bool { return model.SameModel(l, name) })
	if i < 0 {
		return name, d, false
	}
	d, ok = s.details[s.status.Models[i]]
	return s.status.Models[i], d, ok
}

// toolModels lists the installed models that can call tools, in name order.
func (s *modelSurvey) toolModels() []string {
	var out []string
	for _, name := range s.status.Models {
		if s.details[name].Tools() {
			out = append(out, name)
		}
	}
	return out
}

func checkToolModels(ctx context.Context, mc *model.Client, m *modelSurvey) doctor.Result {
	s := m.get(ctx, mc)
	switch {
	case s.err != nil:
		return doctor.Result{Status: doctor.Fail, Detail: "cannot list the models: Ollama is not reachable", Fix: "reach Ollama first (see the ollama check)"}
	case len(s.status.Models) == 0:
		return doctor.Result{Status: doctor.Fail, Detail: "no models are installed", Fix: pullFix()}
	}
	tools := s.toolModels()
	if len(tools) == 0 {
		// Shrimp still works with them, the tools in their prompts
		// (backend/model), less reliably.
		return doctor.Result{Status: doctor.Warn, Detail: fmt.Sprintf("none of the %d installed models has tool calling in its template (%s): Shrimp describes the tools in their prompts and reads calls from their text, which works less reliably", len(s.status.Models), strings.Join(s.status.Models, ", ")), Fix: pullFix()}
	}
	return doctor.Result{Status: doctor.Pass, Detail: fmt.Sprintf("%d of %d models can call tools: %s", len(tools), len(s.status.Models), strings.Join(tools, ", "))}
}

// checkContext reports the chosen model's trained context and the
// num_ctx Shrimp sends it.
func checkContext(ctx context.Context, p doctorParts, m *modelSurvey) doctor.Result {
	s := m.get(ctx, p.mc)
	// The model a chat takes (ResolveModel): the one named, else the
	// default chosen in Settings while installed, else the first that
	// calls tools.
	name := p.model
	if name == "" {
		name = savedDefault(ctx, p.st, s.status.Models)
	}
	if name == "" {
		if tools := s.toolModels(); len(tools) > 0 {
			name = tools[0]
		}
	}
	if s.err != nil || name == "" {
		return doctor.Result{Status: doctor.Warn, Detail: "no model to look at", Fix: "start Ollama and pull a model that can call tools (see the checks above)"}
	}
	name, d, ok := s.listed(name)
	if !ok {
		return doctor.Result{Status: doctor.Fail, Detail: fmt.Sprintf("the chosen model %s is not installed", name), Fix: "ollama pull " + name + ", or choose another with --model or SHRIMP_MODEL"}
	}
	set := 0
	if p.st != nil {
		set, _ = p.st.NumCtx(ctx, name)
	}
	// What a request sends (the chat's own rule): Ollama gives a model no
	// more than it was trained for.
	n, capped := contextFor(set, d.ContextLength)
	sent, how := cmp.Or(n, agent.DefaultNumCtx), "set with shrimp models ctx"
	switch {
	case capped:
		how = fmt.Sprintf("set to %d with shrimp models ctx, but Ollama gives the model no more than it was trained for", set)
	case set == 0 && n == 0:
		how = "the default"
	case set == 0:
		how = "the model's own limit"
	}
	detail := fmt.Sprintf("%s: trained for %d tokens; Shrimp sends num_ctx %d (%s), of which the built-in tool definitions take about %d", name, d.ContextLength, sent, how, BuiltinToolTokens)
	if d.ContextLength == 0 {
		detail = fmt.Sprintf("%s: Ollama does not say its trained context; Shrimp sends num_ctx %d (%s)", name, sent, how)
	}
	switch {
	case capped:
		return doctor.Result{Status: doctor.Warn, Detail: detail, Fix: fmt.Sprintf("shrimp models ctx %s %d (or 0), so the setting says what it gets; a model trained for more takes more", name, sent)}
	case sent < 8192 && (d.ContextLength == 0 || d.ContextLength > sent):
		return doctor.Result{Status: doctor.Warn, Detail: detail + ": long tasks are compacted often and MCP tools may not fit",
			Fix: fmt.Sprintf("if memory allows: shrimp models ctx %s %d", name, lo.Ternary(d.ContextLength > 0, min(16384, d.ContextLength), 16384))}
	case sent < 8192:
		return doctor.Result{Status: doctor.Warn, Detail: detail + ": long tasks are compacted often and MCP tools may not fit",
			Fix: "a model trained for a longer context (most current ones take 32,768 tokens or more) for long tasks"}
	}
	return doctor.Result{Status: doctor.Pass, Detail: detail}
}

func checkDatabase(ctx context.Context, p doctorParts) doctor.Result {
	path := filepath.Join(p.dir, store.FileName)
	fix := fmt.Sprintf("close Shrimp, move %s aside (it holds your sessions and procedures: keep it) and start again; restore it from a backup if you have one", path)
	if p.st == nil {
		msg := "the database could not be opened"
		if p.openErr != nil {
			msg += ": " + p.openErr.Error()
		}
		if sqlite.IsCorrupt(p.openErr) {
			fix = sqlite.Damaged
		}
		return doctor.Result{Status: doctor.Fail, Detail: msg, Fix: fix}
	}
	if err := p.st.IntegrityCheck(ctx); err != nil {
		return doctor.Result{Status: doctor.Fail, Detail: err.Error(), Fix: sqlite.Damaged}
	}
	return doctor.Result{Status: doctor.Pass, Detail: path + " passed SQLite's integrity check"}
}

// indexHealth is procedures.Memory's, for tests to stand in.
type indexHealth interface {
	IndexHealth() (procedures, indexed int, current bool, err error)
}

func checkIndex(ctx context.Context, p doctorParts) doctor.Result {
	if p.memory == nil {
		return doctor.Result{Status: doctor.Warn, Detail: "not checked: the database could not be opened", Fix: "mend the database first"}
	}
	mem, err := p.memory(ctx)
	switch {
	case errors.Is(err, procedures.ErrLocked):
		return doctor.Result{Status: doctor.Warn, Detail: "not checked: another process owns the index (see the other-process check)", Fix: "run shrimp doctor again with the other Shrimp closed to check it"}
	case err != nil:
		return doctor.Result{Status: doctor.Fail, Detail: err.Error(), Fix: "shrimp doctor --rebuild-index rebuilds it from the database"}
	}
	return judgeIndex(mem)
}

func judgeIndex(ix indexHealth) doctor.Result {
	n, indexed, current, err := ix.IndexHealth()
	fix := "shrimp doctor --rebuild-index (or Settings → Diagnostics → Rebuild index) rebuilds it from the database"
	switch {
	case err != nil:
		return doctor.Result{Status: doctor.Fail, Detail: err.Error(), Fix: fix}
	case n != indexed || !current:
		return doctor.Result{Status: doctor.Warn, Detail: fmt.Sprintf("the search index holds %d of %d procedures (up to date: %v): recall may miss some", indexed, n, current), Fix: fix}
	}
	if n == 1 {
		return doctor.Result{Status: doctor.Pass, Detail: "1 procedure, in the search index"}
	}
	return doctor.Result{Status: doctor.Pass, Detail: fmt.Sprintf("%d procedures, all in the search index", n)}
}

func checkLock(ctx context.Context, p doctorParts) doctor.Result {
	if p.memory == nil {
		return doctor.Result{Status: doctor.Warn, Detail: "not checked: the database could not be opened", Fix: "mend the database first"}
	}
	mem, err := p.memory(ctx)
	if !errors.Is(err, procedures.ErrLocked) {
		return doctor.Result{Status: doctor.Pass, Detail: "no other process is using " + p.dir}
	}
	detail := "another process is using " + p.dir
	fix := "close the other Shrimp window or command, or use another --data-dir"
	if pid, comm := doctor.LockHolder(filepath.Join(p.dir, indexDir+".lock")); pid > 0 {
		detail = fmt.Sprintf("another process is using %s: pid %d (%s)", p.dir, pid, comm)
		fix = fmt.Sprintf("close the other Shrimp window or command (kill %d), or use another --data-dir", pid)
	}
	if mem != nil { // the usual case: the window is open beside a terminal
		return doctor.Result{Status: doctor.Pass, Detail: detail + "; it owns the procedure index, and this one keeps its own from the database they share: both recall and learn, each seeing the other's procedures"}
	}
	return doctor.Result{Status: doctor.Warn, Detail: detail + "; this one runs without procedural memory", Fix: fix}
}

// embedProbe is the text shrimp doctor embeds to see that the embedding
// model answers.
const embedProbe = "sort the bank statements into folders by year"

// checkEmbedModel reports the Ollama embedding model recall is set to
// compare meanings with: installed, made for embeddings, answering
// /api/embed, and how far it has come with the stored requests (the procedures'
// trigger variants).
func checkEmbedModel(ctx context.Context, p doctorParts, m *modelSurvey) doctor.Result {
	name := p.embedModel
	if name == "" {
		return doctor.Result{Status: doctor.Pass, Detail: "none set: recall compares meanings with the built-in sentence encoder"}
	}
	other := "or choose another (or none) in Settings or with --embed-model"
	s := m.get(ctx, p.mc)
	if s.err != nil {
		return doctor.Result{Status: doctor.Warn, Detail: name + " is set, but Ollama is not reachable: recall compares meanings with the built-in encoder until it is",
			Fix: "start Ollama (see the ollama check)"}
	}
	name, d, ok := s.listed(name)
	if !ok {
		return doctor.Result{Status: doctor.Fail, Detail: name + " is set but not installed: recall compares meanings with the built-in encoder",
			Fix: "ollama pull " + name + ", " + other}
	}
	if !d.Embeds() {
		return doctor.Result{Status: doctor.Warn,
			Detail: fmt.Sprintf("%s is not an embedding model (Ollama lists it for %s): its vectors are not made to compare meanings", name, strings.Join(d.Capabilities, ", ")),
			Fix:    "ollama pull nomic-embed-text (or embeddinggemma, all-minilm) and choose it in Settings or with --embed-model, or choose none"}
	}
	start := time.Now()
	vs, err := model.Embedder{Client: p.mc, Model: name}.Embed(ctx, []string{embedProbe})
	if err != nil {
		return doctor.Result{Status: doctor.Fail, Detail: fmt.Sprintf("%s does not embed: %v", name, err), Fix: "see Ollama's log (journalctl -u ollama), " + other}
	}
	took := fmt.Sprintf("%v", time.Since(start).Round(time.Millisecond))
	if took == "0s" {
		took = "under 1ms"
	}
	detail := fmt.Sprintf("%s answers /api/embed (%d values, %s)", name, len(vs[0]), took)
	if prefix := model.EmbedPrefix(name); prefix != "" {
		detail += fmt.Sprintf(", each text after the prompt %q its documentation asks for", prefix)
	}
	if p.memory == nil {
		return doctor.Result{Status: doctor.Pass, Detail: detail}
	}
	mem, err := p.memory(ctx)
	if err != nil {
		return doctor.Result{Status: doctor.Pass, Detail: detail + "; procedural memory is not open (see the checks above)"}
	}
	return judgeEmbedding(detail, mem.EmbedderStatus())
}

// judgeEmbedding words an answering embedding model's progress.
func judgeEmbedding(detail string, es procedures.EmbedderStatus) doctor.Result {
	progress := fmt.Sprintf("%d of %d stored requests have its vectors", es.Embedded, es.Wordings)
	switch {
	case es.Name == "":
		return doctor.Result{Status: doctor.Warn, Detail: detail + ", but recall does not use it: it could not be set (see the log)", Fix: "run shrimp doctor again; if this stays, choose the model again in Settings"}
	case es.Err != nil && es.Embedded < es.Wordings:
		return doctor.Result{Status: doctor.Warn,
			Detail: fmt.Sprintf("%s; %s; the last try failed: %v (tried again at %s)", detail, progress, es.Err, es.Retry.Format("15:04:05")),
			Fix:    "keep Ollama running: the rest are embedded in the background; recall uses the built-in encoder for them until then"}
	case es.Wordings == 0:
		return doctor.Result{Status: doctor.Pass, Detail: fmt.Sprintf("%s; no procedures yet: recall uses it once %d stored requests have its vectors", detail, vectors.MinCalibration)}
	case es.InUse:
		return doctor.Result{Status: doctor.Pass, Detail: detail + "; " + progress + "; recall compares meanings with it"}
	case es.Wordings < vectors.MinCalibration:
		return doctor.Result{Status: doctor.Pass, Detail: fmt.Sprintf("%s; %s; recall uses it once %d have them (the built-in encoder until then)", detail, progress, vectors.MinCalibration)}
	}
	return doctor.Result{Status: doctor.Pass, Detail: fmt.Sprintf("%s; %s, the rest are embedded in the background; recall uses it once %d have them", detail, progress, vectors.MinCalibration)}
}

// checkGoRelease judges the Go release the binary was built with
// (runtime.Version(): "go1.26.10", "go1.26.10-X:simd"; a development
// build's "devel …" passes).
func checkGoRelease(built string) doctor.Result {
	if versionLess(strings.TrimPrefix(built, "go"), strings.TrimPrefix(MinGo, "go")) {
		return doctor.Result{Status: doctor.Warn,
			Detail: "built with " + built + ", older than " + MinGo + ": its standard library has known vulnerabilities Shrimp's code reaches (net/http, crypto/x509, crypto/tls; docs/SECURITY.md)",
			Fix:    "rebuild with make build (it fetches Go " + strings.TrimPrefix(MinGo, "go") + " from the module proxy) or install the latest package"}
	}
	return doctor.Result{Status: doctor.Pass, Detail: "built with " + built}
}

// versionLess compares dotted versions numerically ("0.24.0" < "0.5.0"
// is false); a version it cannot read is not less.
func versionLess(v, than string) bool {
	a, b := strings.Split(strings.TrimPrefix(v, "v"), "."), strings.Split(than, ".")
	for i := range max(len(a), len(b)) {
		var x, y int
		if i < len(a) {
			if _, err := fmt.Sscan(strings.SplitN(a[i], "-", 2)[0], &x); err != nil {
				return false
			}
		}
		if i < len(b) {
			fmt.Sscan(b[i], &y)
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// checkMCP looks at mcp.json without starting anything: a command that is
// not found, a variable a server takes that is not set, and which servers
// are signed in to.
func checkMCP(dir string, lookup func(string) (string, bool), lookPath func(string) (string, error)) doctor.Result {
	path := filepath.Join(dir, mcp.FileName)
	cfg, err := mcp.Load(path)
	if err != nil {
		return doctor.Result{Status: doctor.Fail, Detail: err.Error(), Fix: "mend or remove " + path + " (Extensions shows the servers once it reads)"}
	}
	if len(cfg.Servers) == 0 {
		return doctor.Result{Status: doctor.Pass, Detail: "none configured"}
	}
	tokens := mcp.NewTokens(filepath.Join(dir, mcp.TokenFile))
	var fine, problems, fixes []string
	disabled := 0
	for _, name := range slices.Sorted(maps.Keys(cfg.Servers)) {
		s := cfg.Servers[name]
		if s.Disabled {
			disabled++
			continue
		}
		var unset []string
		for _, v := range s.Variables() {
			if _, ok := lookup(v); !ok {
				unset = append(unset, v)
			}
		}
		bad := s.Check(name)
		switch {
		case bad != nil:
			problems = append(problems, bad.Error()+"; it cannot start")
			fixes = append(fixes, fmt.Sprintf("mend %q in %s, or remove it (shrimp mcp remove %q) and add it again", name, path, name))
		case len(unset) > 0:
			problems = append(problems, fmt.Sprintf("%s takes %s, which is not set", name, strings.Join(unset, ", ")))
			fixes = append(fixes, fmt.Sprintf("set %s before starting Shrimp, or write the value in %s", strings.Join(unset, ", "), path))
		case s.Command != "" && !strings.Contains(s.Command, "${"):
			if found, err := lookPath(s.Command); err != nil {
				problems = append(problems, fmt.Sprintf("%s's command %s is not found", name, s.Command))
				fixes = append(fixes, fmt.Sprintf("install %s or give its full path (shrimp mcp remove %s, then add it again)", s.Command, name))
			} else if why := shebang.Problem(found); why != "" {
				problems = append(problems, fmt.Sprintf("%s cannot start: %s", name, why))
				fixes = append(fixes, fmt.Sprintf("mend %s as said", found))
			} else {
				fine = append(fine, name)
			}
		case s.URL != "" && tokens.Has(name, s):
			fine = append(fine, name+" (signed in)")
		default:
			fine = append(fine, name)
		}
	}
	detail := fmt.Sprintf("%d configured", len(cfg.Servers))
	if disabled > 0 {
		detail += fmt.Sprintf(", %d disabled", disabled)
	}
	if len(fine) > 0 {
		detail += ": " + strings.Join(fine, ", ")
	}
	if len(problems) > 0 {
		return doctor.Result{Status: doctor.Warn, Detail: detail + "; " + strings.Join(problems, "; "), Fix: strings.Join(fixes, "; ")}
	}
	return doctor.Result{Status: doctor.Pass, Detail: detail + " (not started here: `shrimp mcp status` starts them)"}
}
