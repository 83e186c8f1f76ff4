// Package ollamatest is a scripted Ollama server for tests. It speaks the
// wire format of a real v0.24.0 server byte for byte (NDJSON with
// Content-Type application/x-ndjson, chunked; tool calls in their own chunk;
// a final done chunk with counts and durations; JSON errors with the real
// status codes), replays the replies it was given in order, and records
// every request it received so tests can assert on what the harness sent.
//
// It is a fake of Ollama, not of Shrimp's own interfaces: the code under
// test talks to it over HTTP through the official client.
package ollamatest

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Call is one tool call a scripted reply makes.
type Call struct {
	Name string
	Args map[string]any
}

// Reply is what the server answers to one /api/chat request.
type Reply struct {
	Thinking  []string // streamed before the text, as message.thinking
	Text      []string // streamed content chunks
	ToolCalls []Call   // sent in one chunk after the text

	Status int    // non-zero: answer with this HTTP status and Error as {"error": ...}
	Error  string // with Status; or, alone, an {"error"} line in the middle of the stream

	CutAfter     int           // close the connection after this many chunks, without a done chunk (0: never)
	StallAfter   int           // after this many chunks send nothing more but keep the connection open, as a hung server does (0: never)
	Delay        time.Duration // pause before each chunk
	PromptTokens int           // prompt_eval_count in the done chunk (default: a count from the request)
	EvalTokens   int           // eval_count in the done chunk (default: chunks sent)
	DoneReason   string        // default "stop"
	// Endless sends Text's chunks over and over until the client closes the
	// connection: a small model caught repeating itself, which Ollama lets
	// run on (it shifts the context window when it fills, by default).
	Endless bool

	load time.Duration // the model was loaded for this reply (Model.LoadTime)
}

// Text returns a reply that streams s word by word.
func Text(s string) Reply {
	var chunks []string
	for _, w := range strings.SplitAfter(s, " ") {
		if w != "" {
			chunks = append(chunks, w)
		}
	}
	return Reply{Text: chunks}
}

// Tools returns a reply that calls the given tools.
func Tools(calls ...Call) Reply { return Reply{ToolCalls: calls} }

// Model describes one installed model and the replies it gives, in order.
type Model struct {
	Name    string
	Family  string
	NoTools bool // answer requests with tools as a real server does for a template without tool support
	NoThink bool // answer requests that ask for thinking (true, or an effort) with a real server's 400
	// Thinks makes /api/show list the "thinking" capability (qwen3,
	// deepseek-r1, gpt-oss). As in Ollama, a request with "think": false
	// gets no thinking, whatever the reply scripts.
	Thinks bool
	// Embedding makes /api/show list the "embedding" capability alone and
	// /api/chat refuse the model, as Ollama does for an embedding model
	// (nomic-embed-text, all-minilm).
	Embedding bool
	// Vision makes /api/show list the "vision" capability (gemma3,
	// qwen2.5vl, llava): such a model is sent images.
	Vision  bool
	Replies []Reply                     // consumed in order
	Respond func(api.ChatRequest) Reply // used when set, instead of Replies
	// Embed gives /api/embed's vector for one input when set; otherwise
	// every model embeds by words (HashEmbed), as any model loaded in a
	// real server can.
	Embed func(string) []float32
	// LoadTime makes the model load as a real server's does: not in
	// memory until its first chat, which first waits LoadTime, and loaded
	// again (waiting again) for a chat with another num_ctx, capped at
	// TrainedCtx when set; /api/ps lists it with its context size, and
	// the done chunk's load_duration is the wait. Unload takes it out of
	// memory (its keep-alive ran out). A model without LoadTime is always
	// listed, with context size 0 (unknown), and never waits. /api/show
	// gives TrainedCtx as the model's context length (4096 when unset).
	LoadTime   time.Duration
	TrainedCtx int
	// Parameters are /api/show's "parameters" after its num_ctx line, as
	// Ollama writes a Modelfile's: "temperature                    0.6"
	// a line.
	Parameters string
	// Template is /api/show's "template": the model's Ollama template,
	// which the server does not render (replies are scripted).
	Template string
}

// Server is a running scripted server.
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	models   map[string]*Model
	order    []string
	requests []Request
	embeds   []api.EmbedRequest
	next     map[string]int
	left     int                      // chat streams the client closed before their done chunk
	loaded   map[string]int           // models with a LoadTime in memory, at their context size
	unloaded map[string]bool          // models without a LoadTime unloaded since their last chat
	keep     map[string]time.Duration // each model's last keep_alive, for /api/ps's expires_at
	psCalls  int                      // /api/ps requests answered
	shows    int                      // /api/show requests answered
	psWait   time.Duration            // how long /api/ps takes (SlowPS)
	revs     map[string]int           // how often Add replaced each model (pulled again)
}

// Request is one /api/chat request as received.
type Request struct {
	Raw  []byte
	Chat api.ChatRequest
}

// New starts a server with the given models; it stops when the test ends.
func New(t testing.TB, models ...Model) *Server {
	t.Helper()
	s := Start(models...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server outside a test (the GUI smoke test's scripted
// Ollama); Close stops it.
func Start(models ...Model) *Server {
	s := &Server{models: map[string]*Model{}, next: map[string]int{}, loaded: map[string]int{}, unloaded: map[string]bool{}, keep: map[string]time.Duration{}, revs: map[string]int{}}
	for i := range models {
		m := models[i]
		name := normalize(m.Name)
		s.models[name] = &m
		s.order = append(s.order, name)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, `{"version":"0.24.0"}`)
	})
	mux.HandleFunc("HEAD /{$}", func(w http.ResponseWriter, _ *http.Request) {})
	mux.HandleFunc("GET /api/tags", s.tags)
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("POST /api/chat", s.chat)
	mux.HandleFunc("GET /api/ps", s.running)
	mux.HandleFunc("POST /api/pull", s.pull)
	mux.HandleFunc("DELETE /api/delete", s.deleteModel)
	mux.HandleFunc("POST /api/embed", s.embed)
	s.Server = httptest.NewServer(mux)
	return s
}

// Left returns how many chat streams the client closed before their done
// chunk (a client that stops a runaway reply closes its request).
func (s *Server) Left() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.left
}

// Add installs a model while the server runs, as a finished pull would;
// a model of that name already installed is replaced, as pulling it again
// does, and /api/tags lists it with a new digest.
func (s *Server) Add(m Model) {
	name := normalize(m.Name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.models[name]; !ok {
		s.order = append(s.order, name)
	} else {
		s.revs[name]++
	}
	s.models[name] = &m
}

// modelName reads the model a request names ("model", or the older
// "name"), as given and with Ollama's ":latest" tag added.
func modelName(r *http.Request) (normalized, given string) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	given = req.Model + req.Name
	return normalize(given), given
}

// normalize adds the ":latest" tag the way Ollama names models.
func normalize(name string) string {
	if !strings.Contains(name, ":") {
		return name + ":latest"
	}
	return name
}

// installed returns the installed model's name that name (normalized)
// means, or name itself when none: Ollama v0.24.0 takes a model's name in
// any case ("Qwen3:4B" is qwen3:4b: getExistingName in its
// server/routes.go). Call it holding s.mu.
func (s *Server) installed(name string) string {
	if _, ok := s.models[name]; ok {
		return name
	}
	if i := slices.IndexFunc(s.order, func(n string) bool { return strings.EqualFold(n, name) }); i >= 0 {
		return s.order[i]
	}
	return name
}

// Requests returns the chat requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Host returns the server's address as an OLLAMA_HOST value.
func (s *Server) Host() string { return s.URL }

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// details is a model's details as /api/tags and /api/ps give them.
type details struct {
	ParentModel       string   `json:"parent_model"`
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

// detailsOf is the details a scripted model is listed with.
func detailsOf(m *Model) details {
	fam := cmp.Or(m.Family, "llama")
	return details{Format: "gguf", Family: fam, Families: []string{fam}, ParameterSize: "41.28K", QuantizationLevel: "F32"}
}

func (s *Server) tags(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	type entry struct {
		Name       string  `json:"name"`
		Model      string  `json:"model"`
		ModifiedAt string  `json:"modified_at"`
		Size       int64   `json:"size"`
		Digest     string  `json:"digest"`
		Details    details `json:"details"`
	}
	var out struct {
		Models []entry `json:"models"`
	}
	out.Models = []entry{}
	for _, name := range s.order {
		e := entry{
			Name: name, Model: name, ModifiedAt: "2026-11-30T04:10:00.000000000Z", Size: 125952,
			Digest:  "b2097355ccdecd21c4ef15b7f8c8124aa81d2517d00a62a042a1daeda0c0aca2",
			Details: detailsOf(s.models[name]),
		}
		if rev := s.revs[name]; rev > 0 {
			// Pulled again: a new manifest, so a new digest, and a later
			// modified_at, as a real server lists it.
			e.Digest = fmt.Sprintf("%x", sha256.Sum256(fmt.Appendf(nil, "%s@%d", name, rev)))
			e.ModifiedAt = time.Date(2026, 11, 30, 4, 10+rev, 0, 0, time.UTC).Format(time.RFC3339Nano)
		}
		out.Models = append(out.Models, e)
	}
	b, _ := json.Marshal(out)
	writeJSON(w, http.StatusOK, string(b))
}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	name, given := modelName(r)
	s.mu.Lock()
	m, ok := s.models[s.installed(name)]
	s.shows++
	s.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, fmt.Sprintf(`{"error":"model '%s' not found"}`, strings.TrimSuffix(given, ":latest")))
		return
	}
	caps := `["completion","tools"]`
	switch {
	case m.Embedding:
		caps = `["embedding"]`
	case m.NoTools:
		caps = `["completion"]`
	}
	if m.Vision {
		caps = strings.Replace(caps, `"completion"`, `"completion","vision"`, 1)
	}
	if m.Thinks {
		caps = strings.Replace(caps, `"completion"`, `"completion","thinking"`, 1)
	}
	trained := cmp.Or(m.TrainedCtx, 4096)
	params, _ := json.Marshal("num_ctx                        4096\n" + m.Parameters)
	tmpl, _ := json.Marshal(m.Template)
	writeJSON(w, http.StatusOK, fmt.Sprintf(`{"parameters":%s,"template":%s,"details":{"parent_model":"","format":"gguf","family":"llama","families":["llama"],"parameter_size":"41.28K","quantization_level":"F32"},"model_info":{"general.architecture":"llama","llama.context_length":%d},"capabilities":%s,"modified_at":"2026-11-30T04:10:00.000000000Z"}`, params, tmpl, trained, caps))
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, `{"error":"read body"}`)
		return
	}
	var req api.ChatRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, fmt.Sprintf(`{"error":%q}`, err.Error()))
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Raw: raw, Chat: req})
	name := s.installed(normalize(req.Model))
	m, ok := s.models[name]
	if len(req.Messages) == 0 && req.KeepAlive != nil && req.KeepAlive.Duration == 0 {
		// Ollama's unload (`ollama stop`): no messages and a keep_alive
		// of 0, answered with one object (v0.24.0's ChatHandler).
		delete(s.loaded, name)
		if ok {
			s.unloaded[name] = true
		}
		s.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusNotFound, fmt.Sprintf(`{"error":"model '%s' not found"}`, req.Model))
			return
		}
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"model":%q,"created_at":%q,"message":{"role":"assistant","content":""},"done_reason":"unload","done":true}`, req.Model, time.Now().UTC().Format(time.RFC3339Nano)))
		return
	}
	delete(s.unloaded, name)
	if req.KeepAlive != nil {
		s.keep[name] = req.KeepAlive.Duration // -1 arrives as math.MaxInt64, as in Ollama
	}
	var reply Reply
	switch {
	case !ok, m.Embedding, m.NoTools && len(req.Tools) > 0, m.NoThink && req.Think.Bool():
		// Refused below without using up a scripted reply.
	case m.Respond != nil:
		reply = m.Respond(req)
	case s.next[name] < len(m.Replies):
		reply = m.Replies[s.next[name]]
		s.next[name]++
	default:
		reply = Reply{Status: http.StatusInternalServerError, Error: fmt.Sprintf("ollamatest: script for %s exhausted after %d replies", name, len(m.Replies))}
	}
	if ok && m.LoadTime > 0 && reply.Status == 0 && !m.Embedding {
		ctx, _ := req.Options["num_ctx"].(float64)
		n := int(ctx)
		if n == 0 {
			n = 2048 // Ollama's default
		}
		if m.TrainedCtx > 0 {
			n = min(n, m.TrainedCtx)
		}
		if have, in := s.loaded[name]; !in || have != n {
			reply.load = m.LoadTime
			s.loaded[name] = n
		}
	}
	s.mu.Unlock()
	if reply.load > 0 {
		select {
		case <-time.After(reply.load):
		case <-r.Context().Done():
			return
		}
	}

	switch {
	case !ok:
		writeJSON(w, http.StatusNotFound, fmt.Sprintf(`{"error":"model '%s' not found"}`, req.Model))
		return
	case m.Embedding: // as ollama v0.24.0 answers (TestRealEmbedModel)
		writeJSON(w, http.StatusBadRequest, fmt.Sprintf(`{"error":"\"%s\" does not support chat"}`, strings.TrimSuffix(req.Model, ":latest")))
		return
	case m.NoTools && len(req.Tools) > 0:
		writeJSON(w, http.StatusBadRequest, fmt.Sprintf(`{"error":"registry.ollama.ai/library/%s does not support tools"}`, name))
		return
	case m.NoThink && req.Think.Bool(): // false is taken by any model (v0.24.0's ChatHandler)
		writeJSON(w, http.StatusBadRequest, fmt.Sprintf(`{"error":"\"%s\" does not support thinking"}`, strings.TrimSuffix(req.Model, ":latest")))
		return
	case reply.Status != 0:
		writeJSON(w, reply.Status, fmt.Sprintf(`{"error":%q}`, reply.Error))
		return
	}
	s.stream(w, r, req, reply)
}

// chunk mirrors the field order of a real server's chat chunk.
type chunk struct {
	Model              string   `json:"model"`
	CreatedAt          string   `json:"created_at"`
	Message            *message `json:"message,omitempty"`
	Error              string   `json:"-"`
	Done               bool     `json:"done"`
	DoneReason         string   `json:"done_reason,omitempty"`
	TotalDuration      int64    `json:"total_duration,omitempty"`
	LoadDuration       int64    `json:"load_duration,omitempty"`
	PromptEvalCount    int      `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration int64    `json:"prompt_eval_duration,omitempty"`
	EvalCount          int      `json:"eval_count,omitempty"`
	EvalDuration       int64    `json:"eval_duration,omitempty"`
}

type message struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	Thinking  string     `json:"thinking,omitempty"`
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Function struct {
		Index     int            `json:"index"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"function"`
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, req api.ChatRequest, reply Reply) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	start := time.Now()
	now := func() string { return time.Now().UTC().Format(time.RFC3339Nano) }
	sent := 0
	finished, hungUp := false, false // the done chunk went out; the server dropped the connection (CutAfter)
	defer func() {
		if !finished && !hungUp && r.Context().Err() != nil { // the client went away mid-stream
			s.mu.Lock()
			s.left++
			s.mu.Unlock()
		}
	}()
	send := func(c chunk) bool {
		if reply.StallAfter > 0 && sent >= reply.StallAfter {
			if flusher != nil {
				flusher.Flush()
			}
			<-r.Context().Done()
			return false
		}
		if reply.CutAfter > 0 && sent >= reply.CutAfter {
			// Drop the connection mid-stream, as a crashed server would.
			hungUp = true
			if hj, ok := w.(http.Hijacker); ok {
				if flusher != nil {
					flusher.Flush()
				}
				conn, _, err := hj.Hijack()
				if err == nil {
					_ = conn.(*net.TCPConn).SetLinger(0)
					_ = conn.Close()
				}
			}
			return false
		}
		if reply.Delay > 0 {
			select {
			case <-time.After(reply.Delay):
			case <-r.Context().Done():
				return false
			}
		}
		var b []byte
		if c.Error != "" {
			b, _ = json.Marshal(map[string]string{"error": c.Error}) // a real server's mid-stream error line
		} else {
			b, _ = json.Marshal(c)
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		sent++
		return r.Context().Err() == nil
	}
	for _, t := range reply.Thinking {
		if req.Think != nil && !req.Think.Bool() {
			break // asked not to think
		}
		if !send(chunk{Model: req.Model, CreatedAt: now(), Message: &message{Role: "assistant", Thinking: t}}) {
			return
		}
	}
	for {
		for _, t := range reply.Text {
			if !send(chunk{Model: req.Model, CreatedAt: now(), Message: &message{Role: "assistant", Content: t}}) {
				return
			}
		}
		if !reply.Endless || len(reply.Text) == 0 {
			break
		}
	}
	if reply.Error != "" {
		send(chunk{Error: reply.Error})
		return
	}
	if len(reply.ToolCalls) > 0 {
		m := &message{Role: "assistant"}
		for i, c := range reply.ToolCalls {
			var tc toolCall
			tc.ID = fmt.Sprintf("call_%08d", i)
			tc.Function.Index = i
			tc.Function.Name = c.Name
			tc.Function.Arguments = c.Args
			if tc.Function.Arguments == nil {
				tc.Function.Arguments = map[string]any{}
			}
			m.ToolCalls = append(m.ToolCalls, tc)
		}
		if !send(chunk{Model: req.Model, CreatedAt: now(), Message: m}) {
			return
		}
	}
	prompt := reply.PromptTokens
	if prompt == 0 {
		prompt = len(req.Messages)*8 + len(req.Tools)*16 + 1
	}
	eval := reply.EvalTokens
	if eval == 0 {
		eval = sent + 1
	}
	reason := reply.DoneReason
	if reason == "" {
		reason = "stop"
	}
	total := time.Since(start).Nanoseconds() + 1
	finished = send(chunk{
		Model: req.Model, CreatedAt: now(), Message: &message{Role: "assistant"}, Done: true, DoneReason: reason,
		TotalDuration: total, LoadDuration: cmp.Or(reply.load.Nanoseconds(), 1_500_000), PromptEvalCount: prompt, PromptEvalDuration: 1000 + int64(prompt)*1000,
		EvalCount: eval, EvalDuration: 1000 + int64(eval)*1000,
	})
}

// running answers /api/ps as a real server does (wire/raw-ps.http): the
// models in memory, with their context size.
func (s *Server) running(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	wait := s.psWait
	s.mu.Unlock()
	if wait > 0 {
		// A server across a network: its answer takes a round trip.
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.psCalls++
	type entry struct {
		Name          string  `json:"name"`
		Model         string  `json:"model"`
		Size          int64   `json:"size"`
		Digest        string  `json:"digest"`
		Details       details `json:"details"`
		ExpiresAt     string  `json:"expires_at"`
		SizeVRAM      int64   `json:"size_vram"`
		ContextLength int     `json:"context_length"`
	}
	out := struct {
		Models []entry `json:"models"`
	}{Models: []entry{}}
	for _, name := range s.order {
		m := s.models[name]
		n, in := s.loaded[name]
		if m.Embedding || m.LoadTime > 0 && !in || s.unloaded[name] {
			continue
		}
		keep := 5 * time.Minute // Ollama's default
		if k, set := s.keep[name]; set {
			keep = k
		}
		out.Models = append(out.Models, entry{Name: name, Model: name, Size: 141440, Digest: fmt.Sprintf("%064x", len(name)),
			Details: detailsOf(m), ExpiresAt: time.Now().Add(keep).UTC().Format(time.RFC3339Nano), ContextLength: n})
	}
	b, _ := json.Marshal(out)
	writeJSON(w, http.StatusOK, string(b))
}

// SlowPS makes /api/ps take d, as an Ollama across a network does.
func (s *Server) SlowPS(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.psWait = d
}

// PSCalls is how many /api/ps requests the server has answered.
func (s *Server) PSCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.psCalls
}

// ShowCalls returns how many /api/show requests were answered.
func (s *Server) ShowCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shows
}

// Unload takes a model with a LoadTime out of memory, as its keep-alive
// running out does: its next chat loads it again.
func (s *Server) Unload(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.loaded, normalize(name))
}

// Pullable names models /api/pull can fetch; others fail the way an
// offline server does. Each pull streams a manifest line, one progress
// line per 64 KiB of a 256 KiB layer, a verify and a success line.
var Pullable = map[string]bool{"tiny-pulled:latest": true}

func (s *Server) pull(w http.ResponseWriter, r *http.Request) {
	name, _ := modelName(r)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	line := func(v any) bool {
		b, _ := json.Marshal(v)
		if _, err := w.Write(append(b, '\n')); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		select {
		case <-r.Context().Done():
			return false
		case <-time.After(20 * time.Millisecond):
			return true
		}
	}
	line(map[string]string{"status": "pulling manifest"})
	if !Pullable[name] {
		line(map[string]string{"error": fmt.Sprintf("pull model manifest: Get \"https://registry.ollama.ai/v2/library/%s/manifests/latest\": dial tcp: lookup registry.ollama.ai: no such host", strings.TrimSuffix(name, ":latest"))})
		return
	}
	const total = 256 << 10
	digest := "sha256:a63a930cf563374a8718b3b84859e0b531efd138e82a1dde434dd84ac7bdb8fa"
	for done := int64(64 << 10); done <= total; done += 64 << 10 {
		if !line(map[string]any{"status": "pulling a63a930cf563", "digest": digest, "total": total, "completed": done}) {
			return
		}
	}
	line(map[string]string{"status": "verifying sha256 digest"})
	line(map[string]string{"status": "writing manifest"})
	s.mu.Lock()
	if _, ok := s.models[name]; !ok {
		s.models[name] = &Model{Name: name}
		s.order = append(s.order, name)
	}
	s.mu.Unlock()
	line(map[string]string{"status": "success"})
}

func (s *Server) deleteModel(w http.ResponseWriter, r *http.Request) {
	name, given := modelName(r)
	s.mu.Lock()
	name = s.installed(name)
	_, ok := s.models[name]
	if ok {
		delete(s.models, name)
		for i, n := range s.order {
			if n == name {
				s.order = append(s.order[:i], s.order[i+1:]...)
				break
			}
		}
	}
	s.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, fmt.Sprintf(`{"error":"model '%s' not found"}`, strings.TrimSuffix(given, ":latest")))
		return
	}
	w.WriteHeader(http.StatusOK)
}

// EmbedRequests returns the /api/embed requests received so far.
func (s *Server) EmbedRequests() []api.EmbedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.embeds)
}

// embed answers /api/embed as Ollama v0.24.0 does (wire/raw-embed.http):
// one L2-normalised vector per input, non-streamed, with the durations and
// prompt_eval_count; a model that is not installed gets the 404.
func (s *Server) embed(w http.ResponseWriter, r *http.Request) {
	var req api.EmbedRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, fmt.Sprintf(`{"error":%q}`, err.Error()))
		return
	}
	s.mu.Lock()
	s.embeds = append(s.embeds, req)
	m, ok := s.models[s.installed(normalize(req.Model))]
	s.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, fmt.Sprintf(`{"error":"model '%s' not found"}`, req.Model))
		return
	}
	var inputs []string
	switch in := req.Input.(type) {
	case string:
		inputs = []string{in}
	case []any:
		for _, v := range in {
			if t, ok := v.(string); ok {
				inputs = append(inputs, t)
			}
		}
	}
	if len(inputs) == 0 {
		writeJSON(w, http.StatusBadRequest, `{"error":"invalid input type"}`)
		return
	}
	embed := HashEmbed
	if m.Embed != nil {
		embed = m.Embed
	}
	out := api.EmbedResponse{Model: req.Model, TotalDuration: 146153373, LoadDuration: 1308844}
	for _, in := range inputs {
		out.Embeddings = append(out.Embeddings, embed(in))
		out.PromptEvalCount += len(strings.Fields(in)) + 2
	}
	b, _ := json.Marshal(out)
	writeJSON(w, http.StatusOK, string(b))
}

// HashEmbed is a deterministic embedding by words: each lower-case word
// adds one to one of 64 dimensions (by its FNV hash); the sum is
// L2-normalised. Texts sharing words are close; nothing else is.
func HashEmbed(text string) []float32 {
	v := make([]float32, 64)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := fnv.New32a()
		h.Write([]byte(strings.Trim(w, ".,;:!?'\"")))
		v[h.Sum32()%64]++
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		for i := range v {
			v[i] = float32(float64(v[i]) / math.Sqrt(n))
		}
	}
	return v
}
