// Package model is Shrimp's adapter to Ollama, over the official
// github.com/ollama/ollama/api client. It turns Ollama's wire behaviour into
// what the agent loop needs: a streamed chat with tools (recognising tool
// calls local models write into their text), token counts, text that
// Ollama would read as the model's control tokens sent as text
// (special.go), and errors that tell the user what to do ("start it with
// `ollama serve`", "run `ollama pull NAME`").
package model

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/modelname"
	"github.com/shrimp-harness/shrimp/internal/ollamaerr"
	"github.com/shrimp-harness/shrimp/internal/toolname"
)

// DefaultHost is where Ollama listens unless OLLAMA_HOST says otherwise.
const DefaultHost = "http://127.0.0.1:11434"

// DefaultIdleTimeout is how long a chat may go without a streamed chunk
// before it is given up: long enough for a large model to load from a slow
// disk on a CPU-only machine.
const DefaultIdleTimeout = 5 * time.Minute

// ConnectTimeout bounds connecting to the Ollama server.
const ConnectTimeout = 10 * time.Second

// Client talks to one Ollama server; SetHost points it at another.
type Client struct {
	mu   sync.RWMutex
	host string
	api  *api.Client
	idle atomic.Int64 // idle timeout in nanoseconds; 0 means DefaultIdleTimeout
	keep atomic.Int64 // keep-alive in nanoseconds (KeepAlive)
	// noTools holds the models (host and name) Ollama said have no tool
	// calling: their requests describe the tools in the prompt
	// (prompted.go) from the first.
	noTools sync.Map
	// loads holds what the client knows of each model's loading
	// (loading.go), under loadMu.
	loadMu     sync.Mutex
	loads      map[modelKey]*modelLoad
	slowAnswer time.Duration                    // psSlow unless set (tests)
	busyFirst  time.Duration                    // the first wait when Ollama is busy: busyFirstWait unless set (tests)
	aliases    atomic.Pointer[toolname.Aliases] // other agents' names for tools (SetAliases)
	// templates holds each model's template tokens (host and name →
	// *templateRead: special.go).
	templates sync.Map
	// headless holds, for each model (host and name) asked about, the
	// closing tag of the thinking it writes without the opening one (""
	// for none: think.go): its answers are read as thinking up to it.
	headless sync.Map
	// kept is where what the client learns of a model outlasts the
	// process (SetKeep).
	kept atomic.Pointer[keeper]
}

// keeper gets and puts values kept across runs of Shrimp.
type keeper struct {
	get func(ctx context.Context, key string) string
	put func(ctx context.Context, key, value string)
}

// SetKeep gives the client somewhere to keep what it learns about a
// model across runs of Shrimp (the app's settings): get returns the value
// kept under key ("" when none), put keeps one. A command-line chat is a
// process of its own, so what one learns must be kept for the next.
func (c *Client) SetKeep(get func(ctx context.Context, key string) string, put func(ctx context.Context, key, value string)) {
	c.kept.Store(&keeper{get, put})
}

// headlessKey is the setting a model's thinking without its opening tag
// is kept under.
func headlessKey(modelKey string) string { return "model.thinking-closed-only " + modelKey }

// headlessClose returns the closing tag of the thinking the model (host
// and name) writes without its opening one, "" for none.
func (c *Client) headlessClose(ctx context.Context, modelKey string) string {
	if v, ok := c.headless.Load(modelKey); ok {
		return v.(string)
	}
	close := ""
	if k := c.kept.Load(); k != nil {
		close = k.get(ctx, headlessKey(modelKey))
	}
	v, _ := c.headless.LoadOrStore(modelKey, close)
	return v.(string)
}

// learnHeadless keeps that the model writes its thinking without the
// opening tag, closed by close; it reports whether that was new.
func (c *Client) learnHeadless(ctx context.Context, modelKey, close string) bool {
	if prev, _ := c.headless.Swap(modelKey, close); prev == close {
		return false
	}
	if k := c.kept.Load(); k != nil {
		k.put(context.WithoutCancel(ctx), headlessKey(modelKey), close)
	}
	return true
}

// SetAliases gives the client other agents' names for tools (name → the
// tool's own, as tool.Registry.SetAliases takes them), so a call written
// as text under one (<tool_call>{"name": "Bash", …}) is read as a call
// when its tool is offered; the agent renames it before it runs.
func (c *Client) SetAliases(names map[string]string) {
	a := toolname.NewAliases(names)
	c.aliases.Store(&a)
}

// SetIdleTimeout sets how long a chat may go without a chunk (0: the default).
func (c *Client) SetIdleTimeout(d time.Duration) { c.idle.Store(int64(d)) }

// IdleTimeout returns how long a chat may go without a chunk.
func (c *Client) IdleTimeout() time.Duration {
	if d := time.Duration(c.idle.Load()); d > 0 {
		return d
	}
	return DefaultIdleTimeout
}

// SetKeepAlive sets how long Ollama keeps a model loaded after a chat
// request: 0 leaves it to Ollama (its OLLAMA_KEEP_ALIVE, 5 minutes unless
// set), less than 0 keeps it until Ollama stops.
func (c *Client) SetKeepAlive(d time.Duration) { c.keep.Store(int64(d)) }

// KeepAlive returns what SetKeepAlive set.
func (c *Client) KeepAlive() time.Duration { return time.Duration(c.keep.Load()) }

// MinKeepAlive is the shortest keep-alive taken: a request makes several
// model calls, and a model unloaded between them is loaded again each time.
const MinKeepAlive = time.Minute

// ParseKeepAlive reads a keep-alive as Settings and SHRIMP_KEEP_ALIVE give
// it: "" (Ollama's own), a duration of at least a minute ("30m", "4h"), or
// "forever" (-1, as Ollama writes it).
func ParseKeepAlive(s string) (time.Duration, error) {
	switch s = strings.TrimSpace(s); s {
	case "":
		return 0, nil
	case "forever", "-1":
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < MinKeepAlive {
		return 0, fmt.Errorf("keep-alive %q is not a duration of at least 1m, nor \"forever\": use for example 30m or 4h (empty: Ollama's own, 5m unless OLLAMA_KEEP_ALIVE says otherwise); a model unloaded sooner is loaded again between the model calls of one request", s)
	}
	return d, nil
}

// KeepAliveText writes a keep-alive as ParseKeepAlive reads it.
func KeepAliveText(d time.Duration) string {
	switch {
	case d == 0:
		return ""
	case d < 0:
		return "forever"
	}
	return d.String()
}

// bounded gives a request that should answer at once (not a chat, not a
// pull) the idle timeout as its deadline, so a hung server cannot hold it.
func (c *Client) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.IdleTimeout())
}

// ParseIdleTimeout reads an idle timeout setting ("90s", "5m").
func ParseIdleTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < time.Second {
		return 0, fmt.Errorf("idle timeout %q is not a duration of at least 1s: use for example 90s or 5m", s)
	}
	return d, nil
}

// New returns a client for host, which may be a bare "host:port", a URL,
// or empty for [DefaultHost].
func New(host string) (*Client, error) {
	c := &Client{}
	if err := c.SetHost(host); err != nil {
		return nil, err
	}
	return c, nil
}

// SetHost points the client at another server; requests in flight finish
// on the old one.
func (c *Client) SetHost(host string) error {
	u, err := ParseHost(host)
	if err != nil {
		return err
	}
	hc := &http.Client{Transport: &http.Transport{
		Proxy:                 nil, // Ollama is local; never route it through a proxy
		DialContext:           (&net.Dialer{Timeout: ConnectTimeout}).DialContext,
		ResponseHeaderTimeout: 0, // model loads can take minutes
		IdleConnTimeout:       90 * time.Second,
	}}
	c.mu.Lock()
	c.host, c.api = u.String(), api.NewClient(u, hc)
	c.mu.Unlock()
	return nil
}

// client returns the current API client and host.
func (c *Client) client() (*api.Client, string) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.api, c.host
}

// ParseHost turns an OLLAMA_HOST-style value into a base URL the way the
// ollama CLI does: scheme defaults to http, port to 11434 (443 for https)
// and a path is kept. One difference: an http:// address without a port
// is Ollama's port 11434 here, where the ollama CLI (v0.24.0's envconfig)
// takes http's 80; an address on port 80 says so (http://host:80).
func ParseHost(host string) (*url.URL, error) {
	host = strings.TrimSpace(host)
	if host == "" {
		host = DefaultHost
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	u, err := url.Parse(host)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("ollama host %q is not a valid address: use host:port or http://host:port", host)
	}
	if u.Port() == "" {
		port := "11434"
		if u.Scheme == "https" {
			port = "443"
		}
		u.Host = net.JoinHostPort(u.Hostname(), port)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return u, nil
}

// Host returns the base URL this client talks to, a password in it
// included: for connecting and saving, never for showing.
func (c *Client) Host() string { _, h := c.client(); return h }

// Shown returns the base URL for messages: a password in it (Ollama
// behind a proxy that asks for one, given before the host as user and
// password) as xxxxx,
// so error messages, logs and doctor reports, which get pasted into bug
// reports, do not carry it.
func (c *Client) Shown() string {
	h := c.Host()
	if u, err := url.Parse(h); err == nil {
		return u.Redacted()
	}
	return h
}

// API returns the underlying ollama client.
func (c *Client) API() *api.Client { a, _ := c.client(); return a }

// Info describes one installed model.
type Info struct {
	Name          string    `json:"name"`
	Size          int64     `json:"size"`
	Family        string    `json:"family"`
	ParameterSize string    `json:"parameter_size"`
	Quantization  string    `json:"quantization"`
	ContextLength int       `json:"context_length"`
	Modified      time.Time `json:"modified"`
	// Digest is the model's manifest digest: a model pulled again (or
	// created again) under the same name gets a new one.
	Digest string `json:"digest"`
}

// SameModel reports whether listed, a name Ollama lists, is the model a
// user means by name: the same, or name without Ollama's default tag
// (":latest"), in any case, as Ollama takes it ("Qwen3:4B" runs
// qwen3:4b).
func SameModel(listed, name string) bool {
	return strings.EqualFold(listed, name) || strings.EqualFold(listed, modelname.Canonical(name))
}

// listedWait bounds Listed and OtherTags: a local Ollama lists its models in
// milliseconds, and one that stalls is met again, and explained, by the
// request that follows.
const listedWait = 5 * time.Second

// Listed returns name in the case Ollama lists the model by ("Qwen3:4B"
// is qwen3:4b: Ollama takes either), so that a model has one name in
// sessions and settings however it was typed; name itself when it is
// written as listed (a missing ":latest" is the same model everywhere:
// modelname.Canonical), when Ollama does not list it, or cannot be asked
// (the request then says why).
func (c *Client) Listed(ctx context.Context, name string) string {
	name = strings.TrimSpace(name)
	models, err := c.listSoon(ctx)
	if err != nil {
		return name
	}
	if slices.ContainsFunc(models, func(m Info) bool { return m.Name == modelname.Canonical(name) }) {
		return name // also when two listed names differ only in case
	}
	if i := slices.IndexFunc(models, func(m Info) bool { return SameModel(m.Name, name) }); i >= 0 {
		return models[i].Name
	}
	return name
}

// OtherTags returns the installed models that are name with another tag
// ("qwen3:4b" and "qwen3:8b" for "qwen3", which means qwen3:latest), in
// name order; none when Ollama cannot be asked.
func (c *Client) OtherTags(ctx context.Context, name string) []string {
	models, err := c.listSoon(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range models {
		if strings.EqualFold(modelname.Untagged(m.Name), modelname.Untagged(name)) && !SameModel(m.Name, name) {
			out = append(out, m.Name)
		}
	}
	return out
}

// Revision says which build of a model Ollama has under name: its digest
// and when it was last modified, one text that changes when the model is
// pulled or created again. listed is false when Ollama could not be asked
// or does not list the model.
func (c *Client) Revision(ctx context.Context, name string) (rev string, listed bool) {
	models, err := c.listSoon(ctx)
	if err != nil {
		return "", false
	}
	for _, m := range models {
		if SameModel(m.Name, name) {
			return m.Digest + "@" + m.Modified.UTC().Format(time.RFC3339Nano), true
		}
	}
	return "", false
}

// listSoon is List bounded by listedWait, for a name's lookups around a
// request (Listed, OtherTags).
func (c *Client) listSoon(ctx context.Context) ([]Info, error) {
	ctx, cancel := context.WithTimeout(ctx, listedWait)
	defer cancel()
	return c.List(ctx)
}

// FillContext gives each model the list did not say the trained context of
// (Ollama v0.24.0's /api/tags says none) the one /api/show said (details,
// by name, as ShowAll returns them).
func FillContext(models []Info, details map[string]Details) {
	for i := range models {
		if models[i].ContextLength == 0 {
			models[i].ContextLength = details[models[i].Name].ContextLength
		}
	}
}

// List returns the installed models sorted by name.
func (c *Client) List(ctx context.Context) ([]Info, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	resp, err := c.API().List(ctx)
	if err != nil {
		return nil, c.explain(err, "")
	}
	out := make([]Info, 0, len(resp.Models))
	for _, m := range resp.Models {
		out = append(out, Info{
			Name:          m.Name,
			Size:          m.Size,
			Family:        m.Details.Family,
			ParameterSize: m.Details.ParameterSize,
			Quantization:  m.Details.QuantizationLevel,
			ContextLength: m.Details.ContextLength,
			Modified:      m.ModifiedAt,
			Digest:        m.Digest,
		})
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Status is what the status bar shows about the Ollama server.
type Status struct {
	Host      string   `json:"host"`
	Reachable bool     `json:"reachable"`
	Version   string   `json:"version"`
	Models    []string `json:"models"`
	Error     string   `json:"error"`   // a sentence saying what to do, when not reachable
	Foreign   bool     `json:"foreign"` // something answered at the host, but not Ollama
}

// Status asks the server for its version and models. It never fails: an
// unreachable server is a Status with Reachable false and Error set.
func (c *Client) Status(ctx context.Context) Status {
	st := Status{Host: c.Shown(), Models: []string{}}
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	v, err := c.API().Version(ctx)
	if err != nil {
		err = c.explain(err, "")
		st.Error, st.Foreign = err.Error(), errors.Is(err, ErrNotOllama)
		return st
	}
	st.Version = v
	models, err := c.List(ctx)
	if err != nil {
		st.Error = err.Error()
		return st
	}
	st.Reachable = true
	for _, m := range models {
		st.Models = append(st.Models, m.Name)
	}
	return st
}

// ErrUnreachable means no Ollama server answered at the host.
var ErrUnreachable = errors.New("ollama is not reachable")

// ErrNotOllama means something answered at the host, but not as Ollama
// does (another web server on the port, a proxy's page). Such an error is
// an [ErrUnreachable] too.
var ErrNotOllama = errors.New("the host is not Ollama")

// notOllamaError is an [ErrNotOllama] and an [ErrUnreachable] whose text
// is only what happened and what to check.
type notOllamaError struct{ msg string }

func (e notOllamaError) Error() string { return e.msg }
func (e notOllamaError) Is(target error) bool {
	return target == ErrNotOllama || target == ErrUnreachable
}

// ErrModelMissing means the server does not have the requested model.
var ErrModelMissing = errors.New("model not found")

// ErrNoChat means the model cannot chat at all: an embedding model.
var ErrNoChat = errors.New("model cannot chat")

// ErrNoTools means the model's template does not support tool calling.
var ErrNoTools = errors.New("model does not support tools")

// ErrBadReply means the server's reply could not be read.
var ErrBadReply = errors.New("unreadable reply from ollama")

// ErrStalled means the server sent nothing for the idle timeout.
var ErrStalled = errors.New("ollama stalled")

// ErrStreamCut means the response stream ended before its final chunk.
var ErrStreamCut = errors.New("response stream ended early")

// ErrNoMemory means the model could not be loaded or run for lack of
// memory.
var ErrNoMemory = errors.New("not enough memory for the model")

// outOfMemory reports whether an Ollama error message says memory ran out
// (the phrases of Ollama's llm/status.go and its scheduler).
func outOfMemory(msg string) bool {
	for _, p := range []string{"requires more system memory", "out of memory", "out of device memory", "insufficient memory", "not enough memory", "failed to allocate", "cudamalloc failed"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// ErrRunnerStopped means the process Ollama runs the model in stopped
// while loading it or answering (a crash; most often for memory).
var ErrRunnerStopped = errors.New("the model stopped running")

// modelFailure is the error for what Ollama said when running the model
// failed, with what to do: ErrNoMemory, ErrRunnerStopped; nil for
// anything else.
func (c *Client) modelFailure(modelName, said string) error {
	msg := strings.ToLower(said)
	smaller := fmt.Sprintf("pick a smaller model, or a smaller context size for this one (Settings, or `shrimp models ctx %s N`), or close other programs", modelName)
	switch {
	case outOfMemory(msg):
		// "model requires more system memory (…) than is available
		// (…)", or the runner's own allocation failures.
		return fmt.Errorf("%w: %q and its context do not fit in the memory Ollama at %s has (Ollama said: %s); %s, then ask again", ErrNoMemory, modelName, c.Shown(), said, smaller)
	case strings.Contains(msg, "runner process has terminated") || strings.Contains(msg, "runner has unexpectedly stopped"):
		// Ollama v0.24.0's llm/server.go: the runner exited (killed by
		// the system's out-of-memory killer: "signal: killed") or crashed.
		return fmt.Errorf("%w: Ollama at %s lost the process running %q (Ollama said: %s); most often it ran out of memory: %s; %s says why; the conversation is kept: ask again", ErrRunnerStopped, c.Shown(), modelName, said, smaller, ollamaLog())
	}
	return nil
}

// ollamaLog says where Ollama's server log is on this system.
func ollamaLog() string {
	if runtime.GOOS == "darwin" {
		return "Ollama's log (~/.ollama/logs/server.log, or the terminal running `ollama serve`)"
	}
	return "Ollama's log (journalctl -u ollama, or the terminal running `ollama serve`)"
}

// noChat is ErrNoChat for a model, with what to do; said is what Ollama
// said, if it did.
func noChat(modelName, said string) error {
	return fmt.Errorf("%w: %q is an embedding model, it cannot chat%s; pick a chat model that can call tools with --model or in the model picker, for example qwen3:4b; an embedding model goes in --embed-model or Settings", ErrNoChat, modelName, said)
}

// CheckChat says, from what /api/show said of a model (d, err), whether
// a chat with it can start: ErrModelMissing when Ollama does not have it,
// ErrNoChat when it is an embedding model; nil otherwise, and when Show
// failed for another reason (the chat itself then says what is wrong).
func CheckChat(modelName string, d Details, err error) error {
	switch {
	case errors.Is(err, ErrModelMissing):
		return err
	case err == nil && !d.Chats():
		return noChat(modelName, " (Ollama lists it as one)")
	}
	return nil
}

// statusError is Ollama's answer, worded for the user, with the answer
// kept in the chain (errors.As finds the api.StatusError) for those that
// act on its status (the agent fits a prompt again).
type statusError struct {
	msg string
	se  api.StatusError
}

func (e statusError) Error() string { return e.msg }
func (e statusError) Unwrap() error { return e.se }

// explain maps a transport or API error to one that says what to do.
func (c *Client) explain(err error, modelName string) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var se api.StatusError
	if errors.As(err, &se) {
		msg := strings.ToLower(se.ErrorMessage)
		switch {
		case strings.HasPrefix(strings.TrimSpace(se.ErrorMessage), "<"):
			return c.notOllama(fmt.Sprintf("a web page (HTTP %d)", se.StatusCode))
		case modelName == "" && se.StatusCode == http.StatusNotFound:
			// Ollama's own API (the model list) is always there.
			return c.notOllama(fmt.Sprintf("HTTP 404 for Ollama's own API (%s)", se.ErrorMessage))
		case se.StatusCode == http.StatusNotFound && strings.Contains(msg, "not found"):
			return fmt.Errorf("%w: %q is not installed on %s: run `ollama pull %s` or pick an installed model with --model", ErrModelMissing, modelName, c.Shown(), modelName)
		case strings.Contains(msg, "does not support chat") || strings.Contains(msg, "does not support generate"):
			return noChat(modelName, " (Ollama said: "+se.ErrorMessage+")")
		case strings.Contains(msg, "does not support tools"):
			return fmt.Errorf("%w: %q cannot call tools (Ollama said: %s); pick a model with tool support, for example qwen3 or llama3.1", ErrNoTools, modelName, se.ErrorMessage)
		case busy(err):
			return fmt.Errorf("ollama at %s stayed busy for a minute: its queue of requests is full (Ollama said: %s); other programs are using it, or OLLAMA_MAX_QUEUE is set low where it runs: ask again later", c.Shown(), se.ErrorMessage)
		case ollamaerr.PromptTooLong(se.ErrorMessage):
			// A request sent with truncate false whose prompt does not fit
			// num_ctx: kept in the chain for the agent, which compacts
			// the conversation and asks again.
			return statusError{fmt.Sprintf("ollama at %s refused the prompt as longer than the context window (Ollama said: %s)", c.Shown(), se.ErrorMessage), se}
		case strings.Contains(msg, "only supports one image"):
			// llama3.2-vision (mllama): v0.24.0's server/prompt.go.
			return fmt.Errorf("%q takes one image a request (Ollama said: %s): send the images one request at a time, or choose a model that takes several (gemma3, qwen2.5vl)", modelName, se.ErrorMessage)
		case strings.Contains(msg, "missing data required for image input"):
			// A model Ollama lists as seeing whose files lack the vision
			// part (model.ErrNoVisionModel).
			return fmt.Errorf("%q cannot see images after all (Ollama said: %s): its download lacks the part that reads them; choose another model (gemma3, qwen2.5vl), or send the request without them", modelName, se.ErrorMessage)
		}
		if err := c.modelFailure(modelName, se.ErrorMessage); err != nil {
			return err
		}
		return statusError{fmt.Sprintf("ollama at %s answered %d: %s", c.Shown(), se.StatusCode, se.ErrorMessage), se}
	}
	// An {"error"} line in the middle of the stream (HTTP 200): the
	// runner failed while the model answered.
	if err := c.modelFailure(modelName, err.Error()); err != nil {
		return err
	}
	switch msg := err.Error(); {
	case strings.Contains(msg, "invalid character '<'") || strings.HasPrefix(strings.TrimSpace(msg), "<"):
		return c.notOllama("a web page")
	case strings.Contains(msg, "first record does not look like a TLS handshake") || strings.Contains(msg, "server gave HTTP response to HTTPS client"):
		return fmt.Errorf("%w: %s answers in plain HTTP, not HTTPS: use %s", ErrUnreachable, c.Shown(), strings.Replace(c.Shown(), "https://", "http://", 1))
	case strings.Contains(msg, "x509:") || strings.Contains(msg, "tls:"):
		return fmt.Errorf("%w: the TLS connection to %s failed (%v): check the address, and that this machine trusts the server's certificate", ErrUnreachable, c.Shown(), err)
	case strings.Contains(msg, "token too long"):
		return fmt.Errorf("%w: Ollama at %s sent one streamed line over the client's 8 MB limit, which a real Ollama does not do; check that nothing between Shrimp and Ollama (a proxy) changes its answers, then ask again", ErrBadReply, c.Shown())
	case strings.Contains(msg, "Value looks like") || strings.Contains(msg, "can't find closing") || strings.Contains(msg, "Unknown value type"):
		return fmt.Errorf("%w: the model %s sent a tool call whose arguments are not a JSON object, so its reply could not be read (%s); ask again, or try a model with better tool support", ErrBadReply, modelName, msg)
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w: could not connect to Ollama at %s within %v; check that the host is up, the address and port are right, and no firewall drops the connection (%v)", ErrUnreachable, c.Shown(), ConnectTimeout, err)
	}
	if errors.As(err, &oe) || errors.As(err, &ne) || strings.Contains(err.Error(), "connection refused") {
		if _, lerr := exec.LookPath("ollama"); lerr != nil && IsLocal(c.Host()) {
			// `ollama serve` would be "command not found".
			return fmt.Errorf("%w: Ollama is not running at %s, and no `ollama` is installed here (none on PATH): install it with curl -fsSL https://ollama.com/install.sh | sh (or from https://ollama.com/download), then start it with `ollama serve`; or point Shrimp at another host with OLLAMA_HOST (%v)", ErrUnreachable, c.Shown(), err)
		}
		return fmt.Errorf("%w: Ollama is not running at %s — start it with `ollama serve`, or point Shrimp at another host with OLLAMA_HOST (%v)", ErrUnreachable, c.Shown(), err)
	}
	return fmt.Errorf("ollama at %s: %w", c.Shown(), err)
}

// IsLocal reports whether host (an Ollama URL) is this machine: loopback,
// localhost, or the unspecified address an `OLLAMA_HOST=0.0.0.0` server
// listens on.
func IsLocal(host string) bool {
	u, err := url.Parse(host)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "" || h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// notOllama says the host answered, but not as Ollama answers: another web
// server on the port, a proxy's page.
func (c *Client) notOllama(what string) error {
	return notOllamaError{fmt.Sprintf("%s answered with %s, not as Ollama does: check the address (--ollama, OLLAMA_HOST or Settings); Ollama listens on http://127.0.0.1:11434 unless told otherwise", c.Shown(), what)}
}

// Progress is one step of a pull.
type Progress struct {
	Status    string `json:"status"`
	Digest    string `json:"digest,omitempty"`
	Total     int64  `json:"total"`
	Completed int64  `json:"completed"`
}

// Pull downloads a model, calling fn for each progress line. Cancel ctx to
// stop it.
func (c *Client) Pull(ctx context.Context, name string, fn func(Progress)) error {
	stream := true
	err := c.API().Pull(ctx, &api.PullRequest{Model: name, Stream: &stream}, func(p api.ProgressResponse) error {
		fn(Progress{Status: p.Status, Digest: p.Digest, Total: p.Total, Completed: p.Completed})
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("pull %s: %w", name, c.explain(err, name))
	}
	return nil
}

// Delete removes an installed model.
func (c *Client) Delete(ctx context.Context, name string) error {
	if err := c.API().Delete(ctx, &api.DeleteRequest{Model: name}); err != nil {
		return fmt.Errorf("delete %s: %w", name, c.explain(err, name))
	}
	return nil
}

// Details is what /api/show says of a model that Shrimp uses.
type Details struct {
	ContextLength int      `json:"context_length"` // trained context, 0 when not said
	Capabilities  []string `json:"capabilities"`   // completion, tools, thinking, embedding, vision…
	// Params are the sampling settings its Modelfile sets (those
	// ParamSpecs names): what applies where the user set none.
	Params Params `json:"params,omitempty"`
}

// Tools reports whether the model's template supports tool calling.
func (d Details) Tools() bool { return slices.Contains(d.Capabilities, "tools") }

// Sees reports whether the model takes images: Ollama lists "vision",
// or (an older server) no capabilities at all, when nothing is known.
// A model that cannot see is given an image's place holder as text
// (Ollama v0.24.0's runners drop the image and keep its "[img-0]" tag),
// and answers about a picture it never saw.
func (d Details) Sees() bool {
	return len(d.Capabilities) == 0 || d.ListsVision()
}

// ListsVision reports whether Ollama says the model takes images: what
// Sees assumes when nothing is known, this does not (what a list of the
// models that see names).
func (d Details) ListsVision() bool { return slices.Contains(d.Capabilities, "vision") }

// Chats reports whether the model can chat: anything Ollama does not list
// as an embedding model only.
func (d Details) Chats() bool {
	return !slices.Contains(d.Capabilities, "embedding") || slices.Contains(d.Capabilities, "completion")
}

// Embeds reports whether the model is made for embeddings: Ollama lists
// the "embedding" capability, or (an older server) no capabilities at
// all. A chat model answers /api/embed too, with vectors not trained to
// compare meanings.
func (d Details) Embeds() bool {
	return len(d.Capabilities) == 0 || slices.Contains(d.Capabilities, "embedding")
}

// ShowAll asks /api/show about each model and returns what it said, by
// name; a model Ollama could not describe is left out.
func (c *Client) ShowAll(ctx context.Context, names []string) map[string]Details {
	out := map[string]Details{}
	for _, name := range names {
		if d, err := c.Show(ctx, name); err == nil {
			out[name] = d
		}
	}
	return out
}

// Show asks /api/show about a model.
func (c *Client) Show(ctx context.Context, name string) (Details, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	resp, err := c.API().Show(ctx, &api.ShowRequest{Model: name})
	if err != nil {
		return Details{}, c.explain(err, name)
	}
	var d Details
	for k, v := range resp.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			if f, ok := v.(float64); ok {
				d.ContextLength = int(f)
			}
		}
	}
	for _, cp := range resp.Capabilities {
		d.Capabilities = append(d.Capabilities, string(cp))
	}
	if p := ModelfileParams(resp.Parameters); len(p) > 0 {
		d.Params = p
	}
	c.keepTemplate(name, resp.Template) // the chat that follows need not ask again
	return d, nil
}

// Embed returns the embedding model's vectors for inputs (one each, in
// order), from /api/embed; an error says what to do (pull the model, start
// Ollama). The caller bounds it with ctx: the first request loads the
// model, which can take seconds.
func (c *Client) Embed(ctx context.Context, name string, inputs []string) ([][]float32, error) {
	resp, err := c.API().Embed(ctx, &api.EmbedRequest{Model: name, Input: inputs})
	if err != nil {
		if err = c.explain(err, name); errors.Is(err, ErrModelMissing) {
			return nil, fmt.Errorf("%w: embedding model %q is not installed on %s: run `ollama pull %s`, or choose another with --embed-model or in Settings", ErrModelMissing, name, c.Shown(), name)
		}
		return nil, fmt.Errorf("embed with %s: %w", name, err)
	}
	if len(resp.Embeddings) != len(inputs) {
		return nil, fmt.Errorf("%w: embed with %s: %d vectors for %d inputs", ErrBadReply, name, len(resp.Embeddings), len(inputs))
	}
	return resp.Embeddings, nil
}
