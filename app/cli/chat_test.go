package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
	"github.com/shrimp-harness/shrimp/internal/tail"
)

// line is one `chat --json` event as printed.
type line struct {
	Seq     int64           `json:"seq"`
	Session string          `json:"session"`
	Type    string          `json:"type"`
	Time    time.Time       `json:"time"`
	Data    json.RawMessage `json:"data"`
}

type chatResult struct {
	code   int
	stderr string
	lines  []line
	raw    string
}

func (r chatResult) data(t *testing.T, typ string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range r.lines {
		if l.Type == typ {
			var m map[string]any
			if err := json.Unmarshal(l.Data, &m); err != nil {
				t.Fatalf("%s data: %v", typ, err)
			}
			out = append(out, m)
		}
	}
	return out
}

// chat runs `shrimp chat --json` in-process against srv.
func chat(t *testing.T, dataDir, host, workspace string, args ...string) chatResult {
	t.Helper()
	all := append([]string{"--data-dir", dataDir, "--ollama", host, "chat", "--json", "--workspace", workspace}, args...)
	code, out, errOut := run(all...)
	res := chatResult{code: code, stderr: errOut, raw: out}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("stdout line is not a JSON event: %q: %v", sc.Text(), err)
		}
		res.lines = append(res.lines, l)
	}
	checkStream(t, res)
	return res
}

// checkStream asserts the --json contract on every run.
func checkStream(t *testing.T, r chatResult) {
	t.Helper()
	if len(r.lines) == 0 {
		return
	}
	if r.lines[0].Type != "agent:run-started" {
		t.Errorf("first event is %s, want agent:run-started", r.lines[0].Type)
	}
	ended := false
	for i, l := range r.lines {
		if l.Session == "" || l.Time.IsZero() || l.Seq == 0 {
			t.Errorf("event %d lacks seq/session/time: %+v", i, l)
		}
		if i > 0 && l.Seq <= r.lines[i-1].Seq {
			t.Errorf("seq not increasing: %d after %d", l.Seq, r.lines[i-1].Seq)
		}
		if ended && strings.HasPrefix(l.Type, "agent:") {
			t.Errorf("%s after agent:run-ended", l.Type)
		}
		if l.Type == "agent:run-ended" {
			ended = true
		}
	}
	if !ended {
		t.Errorf("no agent:run-ended in %d events", len(r.lines))
	}
}

func types(r chatResult) []string {
	var out []string
	for _, l := range r.lines {
		out = append(out, l.Type)
	}
	return out
}

func TestChatPlainAnswer(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("Hello! I am a tiny test model.")}})
	data := t.TempDir()
	r := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "say hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	resp := r.data(t, "agent:response")
	if len(resp) != 1 || resp[0]["text"] != "Hello! I am a tiny test model." {
		t.Fatalf("response = %v", resp)
	}
	usage := r.data(t, "usage:updated")
	if len(usage) != 1 {
		t.Fatalf("usage:updated events: %d", len(usage))
	}
	// The request carried num_ctx and the tools.
	req := srv.Requests()[0].Chat
	// No num_ctx set for the model: /api/show says 4096, less than the default.
	if req.Options["num_ctx"] != float64(4096) || len(req.Tools) == 0 {
		t.Fatalf("request lacks num_ctx or tools: %+v", req.Options)
	}

	// Every printed event is in the store, identical.
	code, out, errOut := run("--data-dir", data, "sessions", "show", r.lines[0].Session, "--json")
	if code != 0 {
		t.Fatalf("sessions show: %d %s", code, errOut)
	}
	var view struct {
		Session  map[string]any `json:"session"`
		Messages []map[string]any
		Events   []line
	}
	if err := json.Unmarshal([]byte(out), &view); err != nil {
		t.Fatal(err)
	}
	if len(view.Events) != len(r.lines) {
		t.Fatalf("store has %d events, printed %d", len(view.Events), len(r.lines))
	}
	for i := range view.Events {
		a, b := view.Events[i], r.lines[i]
		if a.Seq != b.Seq || a.Type != b.Type || string(compactJSON(a.Data)) != string(compactJSON(b.Data)) {
			t.Fatalf("event %d differs: stored %+v printed %+v", i, a, b)
		}
	}
	if len(view.Messages) != 2 || view.Session["prompt_tokens"].(float64) == 0 {
		t.Fatalf("messages %v, session %v", view.Messages, view.Session)
	}
	// Per-message tokens: Ollama's count for the answer, an estimate for the request.
	if got, want := view.Messages[1]["tokens"], view.Session["completion_tokens"]; got != want {
		t.Fatalf("answer tokens %v, Ollama counted %v", got, want)
	}
	if got := view.Messages[0]["tokens"]; got != float64((len("say hello")+3)/4) {
		t.Fatalf("request tokens %v", got)
	}
}

func compactJSON(b []byte) []byte {
	var v any
	_ = json.Unmarshal(b, &v)
	out, _ := json.Marshal(v)
	return out
}

func TestChatThreeToolChain(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("buy shrimp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "notes.txt"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "out/summary.txt", "content": "1 item: buy shrimp\n"}}),
		ollamatest.Text("I wrote the summary to out/summary.txt."),
	}})
	r := chat(t, t.TempDir(), srv.URL, ws, "--model", "m", "--approve", "all", "summarize my notes into out/summary.txt")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.raw)
	}
	got, err := os.ReadFile(filepath.Join(ws, "out", "summary.txt"))
	if err != nil || string(got) != "1 item: buy shrimp\n" {
		t.Fatalf("workspace file: %q, %v", got, err)
	}
	calls := r.data(t, "agent:tool-call")
	results := r.data(t, "agent:tool-result")
	if len(calls) != 3 || len(results) != 3 {
		t.Fatalf("calls %d results %d", len(calls), len(results))
	}
	for i, want := range []string{"fs.list", "fs.read", "fs.write"} {
		if calls[i]["name"] != want || results[i]["error"] != "" || calls[i]["id"] != results[i]["id"] {
			t.Fatalf("step %d: call %v result %v", i, calls[i], results[i])
		}
	}
	if !strings.Contains(results[1]["output"].(string), "buy shrimp") {
		t.Fatalf("fs.read output: %v", results[1]["output"])
	}
	// The model saw each tool result in the next request.
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Chat.Messages
	if last[len(last)-1].Role != "tool" || !strings.Contains(last[len(last)-1].Content, "wrote") {
		t.Fatalf("last request's last message: %+v", last[len(last)-1])
	}
}

func TestChatDeniedTool(t *testing.T) {
	tests := []struct{ mode, reason string }{
		{"ask", "nobody can be asked"}, // headless: ask cannot ask
		{"none", "switched off"},
		{"read", "nobody can be asked"}, // fs.write is not read-only
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			ws := t.TempDir()
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
				ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "x.txt", "content": "no"}}),
				ollamatest.Text("OK, I did not write it."),
			}})
			r := chat(t, t.TempDir(), srv.URL, ws, "--model", "m", "--approve", tt.mode, "write x")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(ws, "x.txt")); !os.IsNotExist(err) {
				t.Fatal("denied fs.write ran")
			}
			res := r.data(t, "agent:tool-result")
			if len(res) != 1 || res[0]["denied"] != true || !strings.Contains(res[0]["error"].(string), tt.reason) {
				t.Fatalf("tool result %v", res)
			}
			dec := r.data(t, "approval:decided")
			if len(dec) != 1 || dec[0]["allow"] != false {
				t.Fatalf("approval:decided %v", dec)
			}
			// The model was told, as a tool result.
			msgs := srv.Requests()[1].Chat.Messages
			if m := msgs[len(msgs)-1]; m.Role != "tool" || !strings.Contains(m.Content, "denied") {
				t.Fatalf("model saw %+v", m)
			}
		})
	}
}

func TestChatReadModeRunsReadOnlyTools(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{}}),
		ollamatest.Text("Empty."),
	}})
	r := chat(t, t.TempDir(), srv.URL, t.TempDir(), "--model", "m", "--approve", "read", "list")
	if res := r.data(t, "agent:tool-result"); r.code != 0 || len(res) != 1 || res[0]["error"] != "" {
		t.Fatalf("exit %d, results %v", r.code, res)
	}
}

func TestChatWorkspaceEscapesRefused(t *testing.T) {
	parent := t.TempDir()
	ws := filepath.Join(parent, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(parent, "secret.txt")
	if err := os.WriteFile(secret, []byte("top secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(parent, filepath.Join(ws, "up")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call ollamatest.Call
	}{
		{"dotdot read", ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "../secret.txt"}}},
		{"absolute read", ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": secret}}},
		{"symlink read", ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "up/secret.txt"}}},
		{"symlink write", ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "up/evil.txt", "content": "x"}}},
		{"dotdot list", ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "../"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Tools(tt.call), ollamatest.Text("ok")}})
			r := chat(t, t.TempDir(), srv.URL, ws, "--model", "m", "--approve", "all", "escape")
			res := r.data(t, "agent:tool-result")
			if len(res) != 1 {
				t.Fatalf("results %v", res)
			}
			errText, _ := res[0]["error"].(string)
			if !strings.Contains(errText, "outside the workspace "+ws) {
				t.Fatalf("error %q does not name the workspace", errText)
			}
			if strings.Contains(res[0]["output"].(string), "top secret") {
				t.Fatal("secret leaked")
			}
			if _, err := os.Stat(filepath.Join(parent, "evil.txt")); err == nil {
				t.Fatal("write escaped the workspace")
			}
		})
	}
	// A write outside the workspace as written is refused before anyone
	// is asked: the user never sees a question about a call that cannot
	// run (in ask mode without a terminal it would be denied as unasked).
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "../evil.txt", "content": "x"}}), ollamatest.Text("ok")}})
	r := chat(t, t.TempDir(), srv.URL, ws, "--model", "m", "--approve", "ask", "escape")
	if res := r.data(t, "agent:tool-result"); len(res) != 1 || res[0]["denied"] == true || !strings.Contains(res[0]["error"].(string), "outside the workspace "+ws) {
		t.Fatalf("results %v", res)
	}
	if asked := r.data(t, "approval:requested"); len(asked) != 0 {
		t.Fatalf("asked about a call that cannot run: %v", asked)
	}
}

// TestModelWithoutToolCalling: a model whose template has no tool calling
// (Ollama's 400 "does not support tools", as for gemma3) still works: the
// tools go into its prompt, its calls come back as <tool_call> text and
// run, the history it is sent writes calls and results as text, and the
// run says once why.
func TestModelWithoutToolCalling(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("buy milk"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "gemma3", NoTools: true, Replies: []ollamatest.Reply{
		ollamatest.Text("I will read it.\n<tool_call>\n{\"name\": \"fs.read\", \"arguments\": {\"path\": \"notes.txt\"}}\n</tool_call>"),
		ollamatest.Text("The note says: buy milk."),
	}})
	r := chat(t, t.TempDir(), srv.URL, ws, "--model", "gemma3", "--approve", "read", "what does notes.txt say?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.raw)
	}
	res := r.data(t, "agent:tool-result")
	if len(res) != 1 || res[0]["name"] != "fs.read" || !strings.Contains(fmt.Sprint(res[0]["output"]), "buy milk") {
		t.Fatalf("results %v", res)
	}
	warned := 0
	for _, e := range r.data(t, "agent:error") {
		if strings.Contains(fmt.Sprint(e["message"]), "describes the tools in its prompt") {
			warned++
		}
	}
	if warned != 1 {
		t.Fatalf("warned %d times: %s", warned, r.raw)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Chat
	if len(last.Tools) != 0 || !strings.Contains(systemPrompt(reqs[len(reqs)-1]), `{"description":`) || !strings.Contains(systemPrompt(reqs[len(reqs)-1]), `"name":"fs.read"`) {
		t.Fatalf("the second request: %d tools, system %q", len(last.Tools), systemPrompt(reqs[len(reqs)-1]))
	}
	var sawCall, sawResult bool
	for _, m := range last.Messages {
		switch {
		case m.Role == "tool" || len(m.ToolCalls) > 0:
			t.Fatalf("a native call or result in the history: %+v", m)
		case m.Role == "assistant" && strings.Contains(m.Content, `<tool_call>`) && strings.Contains(m.Content, `"name":"fs.read"`):
			sawCall = true
		case m.Role == "user" && strings.Contains(m.Content, `<tool_response name="fs.read">`) && strings.Contains(m.Content, "buy milk"):
			sawResult = true
		}
	}
	if !sawCall || !sawResult {
		t.Fatalf("history %+v", last.Messages)
	}
	if resp := r.data(t, "agent:response"); len(resp) != 1 || resp[0]["text"] != "The note says: buy milk." {
		t.Fatalf("response %v", resp)
	}
}

func TestChatFailures(t *testing.T) {
	bad := ollamatest.Reply{Text: []string{`<tool_call>{"name": "fs.list", "arguments": {`}}
	tests := []struct {
		name    string
		model   ollamatest.Model
		host    string // overrides the server
		wantErr string
		wantEv  string // an agent:error message part, when the run started
	}{
		{name: "ollama down", host: "http://127.0.0.1:9", wantErr: "Ollama is not running at http://127.0.0.1:9", wantEv: "Ollama is not running"},
		// Said before a run starts (from /api/show): no session is kept of
		// a request that could not have run.
		{name: "model missing", model: ollamatest.Model{Name: "other"}, wantErr: "ollama pull m"},
		// Pulled with a tag, asked for without: m means m:latest.
		{name: "model with another tag", model: ollamatest.Model{Name: "m:4b"}, wantErr: "`ollama pull m` or pick an installed model with --model; installed with another tag: m:4b (--model m:4b)"},
		{name: "an embedding model", model: ollamatest.Model{Name: "m", Embedding: true}, wantErr: `"m" is an embedding model, it cannot chat`},
		{name: "malformed calls", model: ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{bad, bad, bad}}, wantErr: "three malformed tool calls", wantEv: "three malformed tool calls"},
		{name: "stream cut", model: ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Text: []string{"Hel", "lo", " there"}, CutAfter: 2}}}, wantErr: "broke mid-answer", wantEv: "broke mid-answer"},
		{name: "error mid-stream", model: ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Text: []string{"Hel"}, Error: "model runner crashed"}}}, wantErr: "model runner crashed", wantEv: "model runner crashed"},
		{name: "server 500", model: ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Status: http.StatusInternalServerError, Error: "llama runner crashed"}}}, wantErr: "llama runner crashed", wantEv: "llama runner crashed"},
		// Ollama v0.24.0's words (llm/server.go) when the process running
		// the model dies: while it answers (an {"error"} line) or loads
		// (500, here killed by the out-of-memory killer).
		{name: "runner stopped mid-answer", model: ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Text: []string{"Hel"}, Error: "model runner has unexpectedly stopped, this may be due to resource limitations or an internal error, check ollama server logs for details"}}},
			wantErr: "lost the process running \"m\"", wantEv: "journalctl -u ollama"},
		{name: "runner killed while loading", model: ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Status: http.StatusInternalServerError, Error: "llama runner process has terminated: signal: killed"}}},
			wantErr: "most often it ran out of memory: pick a smaller model, or a smaller context size", wantEv: "shrimp models ctx m N"},
		{name: "out of memory mid-answer", model: ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Text: []string{"Hel"}, Error: "CUDA error: out of memory"}}},
			wantErr: "do not fit in the memory", wantEv: "shrimp models ctx m N"},
		// Ollama's scheduler, as it words it, when a model and its num_ctx do not fit.
		{name: "not enough memory", model: ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Status: http.StatusInternalServerError, Error: "model requires more system memory (9.4 GiB) than is available (5.1 GiB)"}}}, wantErr: "pick a smaller model, or a smaller context size", wantEv: "shrimp models ctx m N"},
		// Ollama v0.24.0's words for images a model cannot take.
		{name: "one image only", model: ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Status: http.StatusInternalServerError, Error: "this model only supports one image while more than one image requested"}}},
			wantErr: `"m" takes one image a request`, wantEv: "send the images one request at a time"},
		{name: "no vision part", model: ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Status: http.StatusInternalServerError, Error: "this model is missing data required for image input"}}},
			wantErr: `"m" cannot see images after all`, wantEv: "send the request without them"},
		{name: "same call three times", model: ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
			ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
			ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
			ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
		}}, wantErr: "same arguments three times", wantEv: "same arguments three times"},
		// A small model reading two things in turn, each time the same,
		// until the turn limit.
		{name: "round in circles", model: ollamatest.Model{Name: "m", Replies: slices.Repeat([]ollamatest.Reply{
			ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
			ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "nowhere"}}),
		}, 10)}, wantErr: "went round in circles", wantEv: "same 2 calls in a row three times over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host := tt.host
			if host == "" {
				host = ollamatest.New(t, tt.model).URL
			}
			r := chat(t, t.TempDir(), host, t.TempDir(), "--model", "m", "--approve", "all", "do something")
			if r.code == 0 {
				t.Fatalf("exit 0, want failure; stdout:\n%s", r.raw)
			}
			if !strings.Contains(r.stderr, tt.wantErr) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Fatalf("stderr %q, want one line containing %q", r.stderr, tt.wantErr)
			}
			if tt.wantEv != "" {
				errs := r.data(t, "agent:error")
				if len(errs) == 0 || !strings.Contains(errs[len(errs)-1]["message"].(string), tt.wantEv) || errs[len(errs)-1]["kind"] != "error" {
					t.Fatalf("agent:error events %v, want %q", errs, tt.wantEv)
				}
			} else if len(r.lines) != 0 {
				t.Fatalf("printed events for a run that never started: %v", types(r))
			}
		})
	}
}

// TestChatRunawayReply: a model that repeats itself without end (Ollama
// lets it run on) is stopped once its reply outgrows the context window:
// the run fails with what to do, and the request to Ollama is closed, so it
// stops generating.
func TestChatRunawayReply(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Text: []string{"I ", "will ", "check ", "again. "}, Endless: true}}})
	r := chat(t, t.TempDir(), srv.URL, t.TempDir(), "--model", "m", "do something")
	if r.code == 0 || !strings.Contains(r.stderr, "repeat themselves without end") {
		t.Fatalf("exit %d, stderr %q; want a failure saying the model repeated itself", r.code, r.stderr)
	}
	ended := r.data(t, "agent:run-ended")
	if len(ended) != 1 || ended[0]["status"] != "error" {
		t.Fatalf("run ended %v", ended)
	}
	deadline := time.Now().Add(time.Minute)
	for srv.Left() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the scripted Ollama saw %d requests closed mid-reply, want 1", srv.Left())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestChatMalformedCallGoesBackToModel(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.nope", Args: map[string]any{}}),
		{Text: []string{"<tool_call>", `{"name": "fs.list", "arguments": {}}`, "</tool_call>"}},
		ollamatest.Text("Done."),
	}})
	r := chat(t, t.TempDir(), srv.URL, t.TempDir(), "--model", "m", "--approve", "all", "list")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	res := r.data(t, "agent:tool-result")
	if len(res) != 2 || !strings.Contains(res[0]["error"].(string), "available tools: fs.edit, fs.list, fs.read, fs.search, fs.write, memory.facts.delete, memory.facts.search, memory.facts.set, memory.procedures.forget, memory.working.clear, memory.working.get, memory.working.list, memory.working.set, shell.run, tool.output.read, web.fetch") {
		t.Fatalf("results %v", res)
	}
	if res[1]["name"] != "fs.list" || res[1]["error"] != "" {
		t.Fatalf("text-embedded call not run: %v", res[1])
	}
	// The <tool_call> text was not shown as tokens.
	for _, tok := range r.data(t, "agent:token") {
		if strings.Contains(tok["text"].(string), "tool_call") {
			t.Fatalf("tool call text leaked into tokens: %v", tok)
		}
	}
}

func TestChatContinueSession(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("First."), ollamatest.Text("Second.")}})
	data := t.TempDir()
	r1 := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "one")
	id := r1.lines[0].Session
	r2 := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "--session", id, "two")
	if r2.code != 0 || r2.lines[0].Session != id || r2.lines[0].Seq <= r1.lines[len(r1.lines)-1].Seq {
		t.Fatalf("continue: code %d, first seq %d after %d", r2.code, r2.lines[0].Seq, r1.lines[len(r1.lines)-1].Seq)
	}
	msgs := srv.Requests()[1].Chat.Messages
	var contents []string
	for _, m := range msgs {
		if m.Role != "system" {
			contents = append(contents, m.Role+":"+m.Content)
		}
	}
	if strings.Join(contents, "|") != "user:one|assistant:First.|user:two" {
		t.Fatalf("history sent: %v", contents)
	}
	code, out, _ := run("--data-dir", data, "sessions", "list", "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0]["title"] != "one" {
		t.Fatalf("sessions list: %d %s", code, out)
	}
	for _, k := range []string{"id", "title", "model", "created", "updated", "prompt_tokens", "completion_tokens"} {
		if _, ok := list[0][k]; !ok {
			t.Fatalf("sessions list lacks %q: %v", k, list[0])
		}
	}
	code, out, _ = run("--data-dir", data, "sessions", "export", id, "--format", "md")
	if code != 0 || !strings.Contains(out, "## You\n\none") || !strings.Contains(out, "Second.") {
		t.Fatalf("export md: %d\n%s", code, out)
	}
	if code, _, errOut := run("--data-dir", data, "sessions", "show", "nope"); code != 1 || !strings.Contains(errOut, "sessions list") {
		t.Fatalf("unknown session: %d %s", code, errOut)
	}
	// Deleted from the terminal as from the window: asked first (no
	// terminal here, so refused, nothing lost), then with --yes.
	for _, c := range []struct {
		args    []string
		code    int
		said    string
		remains int
	}{
		{[]string{"delete", "nope", "--yes"}, 1, "sessions list", 1},
		{[]string{"delete", id}, 1, "run it again with --yes", 1},
		{[]string{"delete", id, "--yes"}, 0, "Deleted session " + id, 0},
		{[]string{"delete"}, 2, "needs one session ID", 0},
	} {
		code, out, errOut := run(append([]string{"--data-dir", data, "sessions"}, c.args...)...)
		if code != c.code || !strings.Contains(out+errOut, c.said) {
			t.Errorf("sessions %v: %d %q %q, want %d and %q", c.args, code, out, errOut, c.code, c.said)
		}
		_, out, _ = run("--data-dir", data, "sessions", "list", "--json")
		if json.Unmarshal([]byte(out), &list) != nil || len(list) != c.remains {
			t.Errorf("after sessions %v: %s, want %d sessions", c.args, out, c.remains)
		}
	}
}

func TestChatNumCtxAndThinkFallback(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", NoThink: true, Replies: []ollamatest.Reply{
		{Thinking: []string{"hmm"}, Text: []string{"Thought about it."}},
	}})
	data := t.TempDir()
	if code, _, errOut := run("--data-dir", data, "models", "ctx", "m", "2048"); code != 0 {
		t.Fatalf("models ctx: %s", errOut)
	}
	if code, out, _ := run("--data-dir", data, "models", "ctx", "m"); code != 0 || out != "m: 2048\n" {
		t.Fatalf("models ctx show: %q", out)
	}
	r := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "--think", "think")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		// The first request (with think) is rejected before the script; the retry has none.
		t.Logf("%d requests", len(reqs))
	}
	last := reqs[len(reqs)-1].Chat
	if last.Think != nil || last.Options["num_ctx"] != float64(2048) {
		t.Fatalf("retry think=%v num_ctx=%v", last.Think, last.Options["num_ctx"])
	}
	if th := r.data(t, "agent:thinking"); len(th) != 1 || th[0]["text"] != "hmm" {
		t.Fatalf("thinking events %v", th)
	}
}

// TestContextCappedAtTrained: a context size set above what the model was
// trained for (which Ollama caps it at, cutting a longer prompt from its
// start) is said when it is set, and each request is fitted to, and sends,
// what Ollama gives the model, with a warning.
func TestContextCappedAtTrained(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("Done.")}}) // trained for 4096
	data := t.TempDir()
	code, out, errOut := run("--data-dir", data, "--ollama", srv.URL, "models", "ctx", "m", "32768")
	if code != 0 || out != "m: 32768 tokens from the next request\n" || !strings.Contains(errOut, "m was trained for 4096 tokens") {
		t.Fatalf("models ctx m 32768: %d %q %q", code, out, errOut)
	}
	r := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := srv.Requests()[0].Chat.Options["num_ctx"]; got != float64(4096) {
		t.Errorf("num_ctx sent %v, want the trained 4096", got)
	}
	warned := false
	for _, w := range r.data(t, "agent:error") {
		warned = warned || strings.Contains(w["message"].(string), "Ollama gives it 4096, so this request is fitted to 4096")
	}
	if !warned {
		t.Errorf("no warning that the set size is more than the model takes: %v", r.data(t, "agent:error"))
	}
}

func TestChatBigOutputIsKeptAndPaged(t *testing.T) {
	ws := t.TempDir()
	big := strings.Repeat("abcdefghij", 4000) + "THE END"
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	handle := regexp.MustCompile(`handle (out-[0-9a-f]+) and offset (\d+)`)
	offset := -1 // where the first result says the hidden part starts
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == "user":
			return ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "big.txt"}})
		case last.ToolName == "fs.read":
			m := handle.FindStringSubmatch(last.Content)
			if m == nil {
				return ollamatest.Text("no handle")
			}
			off, _ := strconv.Atoi(m[2])
			offset = off
			return ollamatest.Tools(ollamatest.Call{Name: "tool.output.read", Args: map[string]any{"handle": m[1], "offset": off}})
		}
		return ollamatest.Text("done")
	}})
	r := chat(t, t.TempDir(), srv.URL, ws, "--model", "m", "--approve", "all", "read big.txt")
	res := r.data(t, "agent:tool-result")
	if r.code != 0 || len(res) != 2 {
		t.Fatalf("exit %d, %d results; answer %v", r.code, len(res), r.data(t, "agent:response"))
	}
	// The first result shows the start and the end; the middle is read
	// on from the offset it names.
	first := res[0]["output"].(string)
	if res[0]["handle"] == nil || res[0]["truncated"].(float64) <= 0 || !strings.HasPrefix(first, "abcdefghij") || !strings.Contains(first, "THE END\n[bytes ") {
		t.Fatalf("first result not kept, or not both ends shown: %v", res[0])
	}
	body, _, _ := strings.Cut(res[1]["output"].(string), "\n[bytes ")
	if offset <= 0 || len(body) != 8192 || body != big[offset:offset+8192] {
		t.Fatalf("paged read from %d: %d bytes", offset, len(body))
	}
}

// TestWorkspaceInstructions: the workspace's AGENTS.md and the user-wide
// one reach the system prompt, the run says which files it read, and an
// edit applies to the next request.
func TestWorkspaceInstructions(t *testing.T) {
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	if err := os.MkdirAll(filepath.Join(config, "shrimp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "shrimp", "AGENTS.md"), []byte("Answer in British English."), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("Done."), ollamatest.Text("Done again.")}})
	data, ws := t.TempDir(), t.TempDir()
	agents := filepath.Join(ws, "AGENTS.md")
	if err := os.WriteFile(agents, []byte("This project indents with tabs."), 0o644); err != nil {
		t.Fatal(err)
	}
	r := chat(t, data, srv.URL, ws, "--model", "m", "hello")
	if r.code != 0 {
		t.Fatalf("chat: %s", r.stderr)
	}
	sys := systemPrompt(srv.Requests()[0])
	if !strings.Contains(sys, "indents with tabs") || !strings.Contains(sys, "British English") || strings.Index(sys, "British") > strings.Index(sys, "tabs") {
		t.Fatalf("system prompt lacks the instructions, nearest last:\n%s", sys)
	}
	loaded := r.data(t, "context:instructions-loaded")
	if len(loaded) != 1 {
		t.Fatalf("instructions-loaded events: %v", loaded)
	}
	files := loaded[0]["files"].([]any)
	if len(files) != 2 || files[1].(map[string]any)["path"] != agents || files[1].(map[string]any)["bytes"].(float64) != 31 {
		t.Fatalf("files %v", files)
	}
	if err := os.WriteFile(agents, []byte("This project indents with four spaces."), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := chat(t, data, srv.URL, ws, "--model", "m", "hello again"); r.code != 0 {
		t.Fatalf("chat 2: %s", r.stderr)
	}
	if sys := systemPrompt(srv.Requests()[1]); !strings.Contains(sys, "four spaces") || strings.Contains(sys, "tabs") {
		t.Fatalf("the edit did not apply to the next request:\n%s", sys)
	}
}

// TestChatPlainNamesInstructions: without --json, the instruction files a
// request is run under are named on standard error, the workspace's at the
// start and a subfolder's when a file tool first reaches into it.
func TestChatPlainNamesInstructions(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"AGENTS.md": "Indent with tabs.", "docs/AGENTS.md": "Write in plain English."})
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "docs"}}),
		ollamatest.Text("Done."),
	}})
	code, out, errOut := run("--data-dir", t.TempDir(), "--ollama", srv.URL, "--model", "m", "chat", "--workspace", ws, "--approve", "read", "list the docs")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	want := []string{
		"shrimp: following the instructions in " + filepath.Join(ws, "AGENTS.md") + "\n",
		"shrimp: following the instructions in " + filepath.Join(ws, "docs", "AGENTS.md") + "\n",
	}
	if i, j := strings.Index(errOut, want[0]), strings.Index(errOut, want[1]); i < 0 || j < i {
		t.Fatalf("standard error does not name both files, the workspace's first:\n%s", errOut)
	}
	if strings.Contains(out, "instructions") {
		t.Fatalf("the note is on standard output:\n%s", out)
	}
}

// TestSessionGoesOnInItsFolder: `chat --session ID` without --workspace
// works in the folder the session worked in, not in whatever directory
// the command was typed in (its history is about that folder's files);
// a session whose folder is gone says so and names the way out.
func TestSessionGoesOnInItsFolder(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("buy shrimp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		if req.Messages[len(req.Messages)-1].Role == "user" {
			return ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "notes.txt"}})
		}
		return ollamatest.Text("read it")
	}})
	first := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "read", "read my notes")
	if first.code != 0 || len(first.lines) == 0 {
		t.Fatalf("exit %d: %s", first.code, first.stderr)
	}
	id := first.lines[0].Session
	// The test's own directory (app/cli) has no notes.txt.
	code, out, errOut := run("--data-dir", data, "--ollama", srv.URL, "chat", "--json", "--session", id, "--model", "m", "--approve", "read", "again please")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "buy shrimp") {
		t.Errorf("the session did not go on in %s: %.600s", ws, out)
	}
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run("--data-dir", data, "--ollama", srv.URL, "chat", "--session", id, "--model", "m", "one more")
	if code == 0 || !strings.Contains(errOut, ws) || !strings.Contains(errOut, "--workspace DIR") {
		t.Errorf("exit %d, stderr %q: want an error naming %s and --workspace", code, errOut, ws)
	}
}

// TestChatShowsTheEndOfAHugeOutput: a command that prints 100 MB and
// fails on its last line: the model is shown that line (a build says why
// it failed at its end), with the bytes left out counted, and Shrimp keeps
// a bounded amount of it (the shell keeps 64 KiB: its first and last 32).
func TestChatShowsTheEndOfAHugeOutput(t *testing.T) {
	cmdline := "head -c 100000000 /dev/zero | tr '\\0' y; echo; echo 'ERROR: x'; exit 1"
	var shown string
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "user" {
			return ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": cmdline}})
		}
		shown = last.Content
		return ollamatest.Text("It failed: ERROR: x.")
	}})
	r := chat(t, t.TempDir(), srv.URL, t.TempDir(), "--model", "m", "--approve", "all", "build it")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(shown, "yyyy") || !strings.Contains(shown, "\nERROR: x\n") || !strings.Contains(shown, "exited with status 1") {
		t.Fatalf("the model was shown %d bytes without the failing line: …%q", len(shown), shown[max(0, len(shown)-300):])
	}
	// 100,000,010 bytes printed, 65,536 kept.
	if !strings.Contains(shown, fmt.Sprintf("[the command printed 100000010 bytes; %d between its first and last part were not kept]", 100000010-65536)) {
		t.Fatalf("the bytes left out are not counted exactly: …%q", shown[max(0, len(shown)-400):])
	}
}

// TestModelLoadingIsSaid: a chat whose model Ollama must first load says
// so before the wait (in --json, before the first model turn's events)
// and how long it took; a chat with the model in memory says nothing; the
// terminal gets the same as notes on standard error.
func TestModelLoadingIsSaid(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", LoadTime: 300 * time.Millisecond,
		Respond: func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("Hello.") }})
	data := t.TempDir()
	r := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "say hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	kinds := types(r)
	at := slices.Index(kinds, "agent:model-loading")
	if at < 0 || at > slices.Index(kinds, "agent:token") || slices.Index(kinds, "agent:model-loaded") < at {
		t.Fatalf("events %v: want the load said before the answer, and its time after", kinds)
	}
	if got := r.data(t, "agent:model-loading"); got[0]["model"] != "m" || got[0]["num_ctx"] != float64(4096) || got[0]["loaded"] != nil {
		t.Errorf("loading: %v", got)
	}
	if got := r.data(t, "agent:model-loaded"); got[0]["seconds"].(float64) < 0.3 {
		t.Errorf("loaded: %v", got)
	}
	r = chat(t, data, srv.URL, t.TempDir(), "--model", "m", "say hello again")
	if kinds := types(r); slices.Contains(kinds, "agent:model-loading") || slices.Contains(kinds, "agent:model-loaded") {
		t.Errorf("in memory, yet %v", kinds)
	}
	srv.Unload("m") // its keep-alive ran out
	code, out, errOut := run("--data-dir", data, "--ollama", srv.URL, "chat", "--model", "m", "--workspace", t.TempDir(), "hello")
	if code != 0 || !strings.Contains(errOut, "shrimp: Ollama loads m into memory (not used lately)") || !strings.Contains(errOut, "shrimp: m loaded in 0.3 s") || !strings.Contains(out, "Hello.") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestChatWithPipedText: text piped in beside a message goes after it
// (git diff | shrimp chat "write a commit message"); a terminal, a
// device or nothing piped adds nothing.
func TestChatWithPipedText(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("ok") }})
	data := t.TempDir()
	asked := func() string {
		rs := srv.Requests()
		m := rs[len(rs)-1].Chat.Messages
		return m[len(m)-1].Content
	}
	chatWith := func(stdin *os.File) {
		t.Helper()
		var out, errb bytes.Buffer
		code := MainWithInput(context.Background(), []string{"--data-dir", data, "--ollama", srv.URL, "--model", "m", "chat", "--workspace", t.TempDir(), "write a commit message for this"}, stdin, &out, &errb)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = w.WriteString("diff --git a/x b/x\n+hello\n")
		w.Close()
	}()
	chatWith(r)
	r.Close()
	if got := asked(); got != "write a commit message for this\n\ndiff --git a/x b/x\n+hello" {
		t.Fatalf("the model was asked %q", got)
	}
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("  from a file \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chatWith(f)
	if got := asked(); got != "write a commit message for this\n\nfrom a file" {
		t.Fatalf("with a file on standard input the model was asked %q", got)
	}
	// A pipe left open: after a while a note says what the command waits
	// for, and the request goes when it is closed.
	r, w, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	errb := tail.New(1 << 20) // read while the command writes
	said := func() string { return strings.Join(errb.Lines(), "\n") }
	done := make(chan int, 1)
	go func() {
		done <- MainWithInput(context.Background(), []string{"--data-dir", data, "--ollama", srv.URL, "--model", "m", "chat", "--workspace", t.TempDir(), "explain"}, r, io.Discard, errb)
	}()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(said(), "reading what is piped to standard input until it is closed"); {
		if time.Now().After(deadline) {
			t.Fatalf("no note about the open pipe: %q", said())
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, _ = w.WriteString("late text")
	w.Close()
	if code := <-done; code != 0 || asked() != "explain\n\nlate text" {
		t.Fatalf("exit %d, asked %q: %s", code, asked(), said())
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	chatWith(null)
	if got := asked(); got != "write a commit message for this" {
		t.Fatalf("with /dev/null the model was asked %q", got)
	}
	// No message: what is piped in is the message (echo … | shrimp chat);
	// nothing piped is still a usage error that says what to do.
	r, w, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = w.WriteString("  list the files here\n")
		w.Close()
	}()
	var out2, errb2 bytes.Buffer
	if code := MainWithInput(context.Background(), []string{"--data-dir", data, "--ollama", srv.URL, "--model", "m", "chat", "--workspace", t.TempDir()}, r, &out2, &errb2); code != 0 || asked() != "list the files here" {
		t.Fatalf("no message, one piped: exit %d, asked %q: %s", code, asked(), errb2.String())
	}
	r.Close()
	errb2.Reset()
	if code := MainWithInput(context.Background(), []string{"--data-dir", data, "--ollama", srv.URL, "--model", "m", "chat", "--workspace", t.TempDir()}, null, &out2, &errb2); code != 2 || !strings.Contains(errb2.String(), "text piped in with no message is the message") {
		t.Fatalf("no message, nothing piped: exit %d: %s", code, errb2.String())
	}
	// A damaged picture piped in beside a message, or any picture as the
	// message itself, is not sent as words: refused, saying what to do,
	// and no request is made.
	png := filepath.Join(t.TempDir(), "photo.png")
	if err := os.WriteFile(png, append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...), 0o600); err != nil {
		t.Fatal(err)
	}
	before := len(srv.Requests())
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"describe it"}, 1, "attach standard input: a damaged image/png file"},
		{[]string{"-"}, 2, "a picture was piped to standard input with no message: say what to do with it"},
	} {
		args := c.args
		f, err := os.Open(png)
		if err != nil {
			t.Fatal(err)
		}
		errb2.Reset()
		code := MainWithInput(context.Background(), append([]string{"--data-dir", data, "--ollama", srv.URL, "--model", "m", "chat", "--workspace", t.TempDir()}, args...), f, &out2, &errb2)
		f.Close()
		if code != c.code || !strings.Contains(errb2.String(), c.want) || len(srv.Requests()) != before {
			t.Fatalf("%v with an image piped in: exit %d: %s", args, code, errb2.String())
		}
	}
}

// TestJSONKeepsCommandsReadable: `--json` writes a command's "<", ">" and
// "&" as they are, where encoding/json would write \u003c, \u003e and
// \u0026 (for HTML pages), and the events still parse.
func TestJSONKeepsCommandsReadable(t *testing.T) {
	const command = "echo a > b.txt && wc -l < b.txt"
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": command}}),
		ollamatest.Text("ran <it> & done"),
	}})
	data := t.TempDir()
	r := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "--approve", "all", "count the lines")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{`"command":"` + command + `"`, `"text":"ran <it> & done"`} {
		if !strings.Contains(r.raw, want) {
			t.Errorf("--json output lacks %s:\n%s", want, r.raw)
		}
	}
	if strings.Contains(r.raw, `\u003e`) || strings.Contains(r.raw, `\u0026`) {
		t.Errorf("--json output escapes for HTML:\n%s", r.raw)
	}
	code, out, errOut := run("--data-dir", data, "sessions", "show", r.lines[0].Session, "--json")
	if code != 0 || !strings.Contains(out, command) {
		t.Fatalf("sessions show --json: %d %s\n%s", code, errOut, out)
	}
}

// TestModelNamedInAnotherCase: Ollama takes a model's name in any case and
// without its tag (v0.24.0's getExistingName), so `--model M` runs m:latest;
// the session, its context size and the next request's model are then the
// listed model's, not a second one under the typed name.
func TestModelNamedInAnotherCase(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "Mixed-Case:Q4_K_M", Replies: []ollamatest.Reply{ollamatest.Text("one"), ollamatest.Text("two")}})
	data := t.TempDir()
	if code, out, errOut := run("--data-dir", data, "--ollama", srv.URL, "models", "ctx", "mixed-case:q4_k_m", "2048"); code != 0 || out != "Mixed-Case:Q4_K_M: 2048 tokens from the next request\n" {
		t.Fatalf("models ctx: %d %q %q", code, out, errOut)
	}
	r := chat(t, data, srv.URL, t.TempDir(), "--model", "MIXED-CASE:q4_k_m", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1].Chat; last.Model != "Mixed-Case:Q4_K_M" || last.Options["num_ctx"] != float64(2048) {
		t.Fatalf("chat asked for %q with num_ctx %v, want the listed name and the context size set", last.Model, last.Options["num_ctx"])
	}
	code, out, _ := run("--data-dir", data, "sessions", "list", "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0]["model"] != "Mixed-Case:Q4_K_M" {
		t.Fatalf("sessions list: %d %s", code, out)
	}
}

// TestModelsList: each installed model with its trained context (from
// /api/show where the list does not say it) and what Shrimp can use it
// for, as the window's Models view says.
func TestModelsList(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "long", TrainedCtx: 40960}, ollamatest.Model{Name: "plain", NoTools: true, TrainedCtx: 8192}, ollamatest.Model{Name: "emb", Embedding: true, TrainedCtx: 2048},
		ollamatest.Model{Name: "seer", NoTools: true, Vision: true, TrainedCtx: 8192}, ollamatest.Model{Name: "thinker", Thinks: true, TrainedCtx: 40960})
	code, out, errOut := run("--ollama", srv.URL, "models", "list")
	if code != 0 {
		t.Fatalf("models list: %d %s", code, errOut)
	}
	for _, want := range []string{`(?m)^emb:latest .* 2048 +recall \(embedding: --embed-model\)$`, `(?m)^long:latest .* 40960 +chat with tools$`, `(?m)^plain:latest .* 8192 +chat, tools in its prompt$`, `(?m)^seer:latest .* 8192 +chat, tools in its prompt, sees images \(--image\)$`, `(?m)^thinker:latest .* 40960 +chat with tools, thinks \(--think=off answers faster\)$`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("no line matches %s:\n%s", want, out)
		}
	}
	var list []model.Info
	if code, out, _ := run("--ollama", srv.URL, "models", "list", "--json"); code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 5 || list[1].ContextLength != 40960 {
		t.Fatalf("--json: %d %s", code, out)
	}
}

// TestChatImage: --image attaches a file (given before or after the
// message) for a model that can see; the run's start names it, and
// Ollama gets it in the request's message. A file that is not an image
// is refused before Ollama is asked, naming it.
func TestChatImage(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Vision: true, Replies: []ollamatest.Reply{ollamatest.Text("a grey square")}})
	dir := t.TempDir()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 32, 16))); err != nil {
		t.Fatal(err)
	}
	shotPath, notes := filepath.Join(dir, "shot.png"), filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(shotPath, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notes, []byte("not a picture"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	r := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "--image", notes, "what is this")
	if r.code == 0 || !strings.Contains(r.stderr, notes+": not a PNG, JPEG, GIF or WebP image") || len(srv.Requests()) != 0 {
		t.Fatalf("a text file as --image: exit %d, stderr %q, %d requests; want a refusal naming it before Ollama is asked", r.code, r.stderr, len(srv.Requests()))
	}
	r = chat(t, data, srv.URL, t.TempDir(), "--model", "m", "what is this", "--image", shotPath)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	started := r.data(t, "agent:run-started")
	images, _ := started[0]["images"].([]any)
	if len(images) != 1 || images[0].(map[string]any)["name"] != "shot.png" || images[0].(map[string]any)["width"] != 32.0 {
		t.Fatalf("run start %v, want shot.png 32 wide", started[0])
	}
	msgs := srv.Requests()[0].Chat.Messages
	if last := msgs[len(msgs)-1]; len(last.Images) != 1 || !bytes.Equal(last.Images[0], b.Bytes()) {
		t.Fatalf("Ollama got %d images with the request", len(last.Images))
	}
}

// TestUseImage: /image in a conversation attaches to the next request,
// lists what is attached, refuses what is no image and drops them all.
func TestUseImage(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 4, 3))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.png"), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := &chatter{e: &env{stderr: &out}}
	steps := []struct{ arg, want string }{
		{"", "No image is attached"},
		{filepath.Join(dir, "a.png"), "Attached a.png (4×3, "},
		{filepath.Join(dir, "missing.png"), "missing.png: no such file"},
		{"", "Attached to the next request: a.png (4×3"},
		{"-", "Dropped 1 image."},
		{"", "No image is attached"},
	}
	for _, s := range steps {
		out.Reset()
		c.useImage(s.arg)
		if !strings.Contains(out.String(), s.want) {
			t.Fatalf("/image %s said %q, want %q", s.arg, out.String(), s.want)
		}
	}
}

// TestTypedPath: /image takes a path as typed or as a terminal puts it
// when a file is dropped on it.
func TestTypedPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/home/u/shot.png", "/home/u/shot.png"},
		{"~/shot.png", "~/shot.png"},
		{"'/home/u/My Pictures/shot.png'", "/home/u/My Pictures/shot.png"}, // GNOME Terminal
		{`'/home/u/it'\''s.png'`, "/home/u/it's.png"},
		{`"/home/u/My Pictures/shot.png"`, "/home/u/My Pictures/shot.png"},
		{`/home/u/My\ Pictures/shot\ \(1\).png`, "/home/u/My Pictures/shot (1).png"},
		{"file:///home/u/My%20Pictures/shot.png", "/home/u/My Pictures/shot.png"}, // Konsole, kitty
		{"file://localhost/tmp/a.png", "/tmp/a.png"},
		{"'", "'"},
	}
	for _, tt := range tests {
		if got := typedPath(tt.in); got != tt.want {
			t.Errorf("typedPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestChatWithPipedImage: a picture piped in beside a message (grim - |
// shrimp chat "what is on my screen") is the message's image.
func TestChatWithPipedImage(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Vision: true, Replies: []ollamatest.Reply{ollamatest.Text("a grey screen")}})
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 16, 9))); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "screen.png")
	if err := os.WriteFile(shot, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errb bytes.Buffer
	code := MainWithInput(context.Background(), []string{"--data-dir", t.TempDir(), "--ollama", srv.URL, "--model", "m", "chat", "--workspace", t.TempDir(), "what is on my screen"}, f, &out, &errb)
	if code != 0 || !strings.Contains(errb.String(), "sent with 1 image: standard input (16×9") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	msgs := srv.Requests()[0].Chat.Messages
	if last := msgs[len(msgs)-1]; last.Content != "what is on my screen" || len(last.Images) != 1 || !bytes.Equal(last.Images[0], b.Bytes()) {
		t.Fatalf("the model was asked %q with %d images", last.Content, len(last.Images))
	}
}

// TestUseModelSaysWhoSees: /model NAME says whether the model can see
// images, and that images already attached would be refused by one that
// cannot.
func TestUseModelSaysWhoSees(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "gemma3:4b", NoTools: true, Vision: true}, ollamatest.Model{Name: "qwen3:4b"})
	a, err := app.Open(app.Config{DataDir: t.TempDir(), OllamaHost: srv.URL}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	var out bytes.Buffer
	c := &chatter{a: a, e: &env{stderr: &out}}
	c.useModel(context.Background(), "gemma3:4b")
	if !strings.Contains(out.String(), "Model: gemma3:4b from the next request on.") || !strings.Contains(out.String(), "It can see images: /image PATH attaches one.") {
		t.Fatalf("/model gemma3:4b said %q", out.String())
	}
	c.opts.Images = []attach.Image{{Name: "a.png"}}
	out.Reset()
	c.useModel(context.Background(), "qwen3:4b")
	if !strings.Contains(out.String(), "It cannot see images: the 1 image attached would be refused") {
		t.Fatalf("/model qwen3:4b with an image attached said %q", out.String())
	}
}

// TestChatRetry: `shrimp chat --session ID --retry` asks the session's
// last request again in place of its attempt (said when that attempt
// changed files, which --undo puts back first), or sends a new MESSAGE in
// its place; the model is never sent a replaced attempt.
func TestChatRetry(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "notes.txt", "content": "gone\n"}}),
		ollamatest.Text("tidied"),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "notes.txt", "content": "gone again\n"}}),
		ollamatest.Text("tidied again"),
		ollamatest.Text("tidied nothing"),
		ollamatest.Text("gently"),
	}})
	data, ws := t.TempDir(), t.TempDir()
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--retry"}, "--retry replaces a request of a session: name it with --session ID"},
		{[]string{"--undo", "tidy"}, "--undo goes with --retry"},
	} {
		if r := chat(t, data, srv.URL, ws, bad.args...); r.code != 2 || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("%q: exit %d, %q", bad.args, r.code, r.stderr)
		}
	}
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "tidy the notes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := r.lines[0].Session
	users := func(i int) []string {
		var out []string
		for _, m := range srv.Requests()[i].Chat.Messages {
			if m.Role == "user" {
				out = append(out, m.Content)
			}
		}
		return out
	}
	// Asked again as it was; its file change stays, and that is said.
	r = chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "--session", id, "--retry")
	if r.code != 0 || !strings.Contains(r.stderr, "the request replaced changed 1 file, left as it changed them (--undo puts them back first)") {
		t.Fatalf("--retry: exit %d, %s", r.code, r.stderr)
	}
	if got := users(2); !slices.Equal(got, []string{"tidy the notes"}) {
		t.Errorf("the retry's model was sent %q", got)
	}
	// --undo: the retried attempt's change is put back first.
	r = chat(t, data, srv.URL, ws, "--model", "m", "--session", id, "--retry", "--undo")
	if r.code != 0 {
		t.Fatalf("--retry --undo: exit %d, %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(notes); string(b) != "gone\n" {
		t.Errorf("notes.txt after --retry --undo: %q (the replaced attempt's write taken back, the first attempt's left)", b)
	}
	// A new message in its place.
	r = chat(t, data, srv.URL, ws, "--model", "m", "--session", id, "--retry", "tidy the notes gently")
	if r.code != 0 || strings.Contains(r.stderr, "left as it changed") {
		t.Fatalf("--retry MESSAGE: exit %d, %s", r.code, r.stderr)
	}
	if got := users(5); !slices.Equal(got, []string{"tidy the notes gently"}) {
		t.Errorf("the edit's model was sent %q", got)
	}
	if resp := r.data(t, "agent:response"); len(resp) != 1 || resp[0]["text"] != "gently" {
		t.Errorf("the edit's answer: %v", resp)
	}
}

// TestChatRetrySaysWhatItDeclines: retried as asked, a request whose
// answered attempt taught a procedure says that procedure is no longer
// offered for it, and how to offer it again.
func TestChatRetrySaysWhatItDeclines(t *testing.T) {
	ws := t.TempDir()
	var replies []ollamatest.Reply
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
		replies = append(replies, ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": f}}))
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: append(replies, ollamatest.Text("they say their names"), ollamatest.Text("again"))})
	data := t.TempDir()
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "read the three text files")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	r = chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "--session", r.lines[0].Session, "--retry")
	if r.code != 0 || !strings.Contains(r.stderr, "(fs.read ×3) is no longer offered for this request: the attempt retried followed it (shrimp procedures restore p-") {
		t.Fatalf("--retry: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestSessionsRename: `shrimp sessions rename ID NAME` names a session, as
// the list then shows; a name without words and an unknown session are
// refused, saying why.
func TestSessionsRename(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{ollamatest.Text("ok")}})
	data := t.TempDir()
	r := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "say hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := r.lines[0].Session
	code, out, errOut := run("--data-dir", data, "sessions", "rename", id, "Greetings", "draft")
	if code != 0 || !strings.Contains(out, `is now named "Greetings draft"`) {
		t.Fatalf("rename: %d %s %s", code, out, errOut)
	}
	if code, out, _ := run("--data-dir", data, "sessions", "list"); code != 0 || !strings.Contains(out, "Greetings draft") || strings.Contains(out, "say hello") {
		t.Errorf("the list after the rename:\n%s", out)
	}
	if code, _, errOut := run("--data-dir", data, "sessions", "rename", id); code != 2 || !strings.Contains(errOut, "needs a session ID and its new name") {
		t.Errorf("rename without a name: %d %s", code, errOut)
	}
	if code, _, errOut := run("--data-dir", data, "sessions", "rename", "nope", "x"); code != 1 || !strings.Contains(errOut, "sessions list") {
		t.Errorf("rename of an unknown session: %d %s", code, errOut)
	}
}

// TestChatThinkOff: --think=off is sent as "think": false and the answer
// comes without thinking; a value --think does not take is a usage error
// that says which it takes.
func TestChatThinkOff(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Thinks: true, Replies: []ollamatest.Reply{{Thinking: []string{"hmm"}, Text: []string{"Quick."}}}})
	data := t.TempDir()
	r := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "--think=off", "answer quickly")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if raw := string(srv.Requests()[0].Raw); !strings.Contains(raw, `"think":false`) {
		t.Errorf("the request sent: %s", raw)
	}
	if th := r.data(t, "agent:thinking"); len(th) != 0 {
		t.Errorf("thinking came with think off: %v", th)
	}
	if r := chat(t, data, srv.URL, t.TempDir(), "--model", "m", "--think=sometimes", "x"); r.code != 2 || !strings.Contains(r.stderr, "not on, off, low, medium or high") {
		t.Errorf("--think=sometimes: exit %d, %s", r.code, r.stderr)
	}
}

// TestChatPlainSaysWhatTheLoopDid: in plain output, a reply sent back for
// only saying what the model would do is followed by the warning, and a
// call that gave what it had given before is marked so.
func TestChatPlainSaysWhatTheLoopDid(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Text("Let me look at the folder."),
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
		ollamatest.Text("The folder is empty."),
	}})
	code, out, errOut := run("--data-dir", t.TempDir(), "--ollama", srv.URL, "--model", "m", "chat", "--workspace", t.TempDir(), "--approve", "all", "what is in this folder?")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	for _, want := range []string{
		"Let me look at the folder.\n[warning] the model said what it would do next but called no tool, so it was asked to go on\n",
		"(same as before)\n",
		"The folder is empty.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "(same as before)") != 1 {
		t.Errorf("the first listing is marked as a repeat too:\n%s", out)
	}
}

// TestChatContextTooSmall: a model whose context holds one of the two
// files it must read, not both, reads them in turn (each read leaves the
// other's result out to fit); the run stops on the third round, saying
// the context is too small and how to raise it, rather than at the turn
// limit.
func TestChatContextTooSmall(t *testing.T) {
	ws := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt"} {
		var b strings.Builder
		for i := range 160 {
			fmt.Fprintf(&b, "%s line %d: the quick brown fox jumps over the lazy dog\n", name, i)
		}
		if err := os.WriteFile(filepath.Join(ws, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) ollamatest.Reply {
		return ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": name}})
	}
	server := func() string {
		return ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 6144, Replies: slices.Repeat([]ollamatest.Reply{read("a.txt"), read("b.txt")}, 10)}).URL
	}
	r := chat(t, t.TempDir(), server(), ws, "--model", "m", "--approve", "all", "compare a.txt and b.txt")
	if r.code == 0 {
		t.Fatalf("exit 0, want the run stopped; stdout:\n%s", r.raw)
	}
	const want = "context (6144 tokens) cannot hold what this request reads: it made the same 2 calls in a row three times over"
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "shrimp models ctx") {
		t.Fatalf("stderr %q, want %q and where to raise the context size", r.stderr, want)
	}
	results := r.data(t, "agent:tool-result")
	if len(results) != 6 {
		t.Fatalf("%d tool results, want 6 (three rounds of two reads)", len(results))
	}
	for i, res := range results {
		if got, want := res["refetched"] == true, i >= 2; got != want {
			t.Errorf("result %d: refetched %v, want %v", i+1, got, want)
		}
	}
	if ended := r.data(t, "agent:run-ended"); len(ended) != 1 || ended[0]["refetched"] != float64(4) {
		t.Errorf("run ended %v, want 4 calls refetched", ended)
	}
	if compacted := r.data(t, "context:compacted"); len(compacted) == 0 {
		t.Error("no context:compacted event: the reads were not left out to fit, so the test shows nothing")
	}
	// The terminal marks the reads made again.
	_, out, _ := run("--data-dir", t.TempDir(), "--ollama", server(), "--model", "m", "chat", "--workspace", ws, "--approve", "all", "compare a.txt and b.txt")
	if n := strings.Count(out, "(again: left out to fit the context)\n"); n != 4 {
		t.Errorf("%d reads marked as made again, want 4:\n%s", n, out)
	}
}

// TestChatWaitsForABusyOllama: Ollama refusing the request because its
// queue is full is asked again a second later, and the run says why it
// waited, once.
func TestChatWaitsForABusyOllama(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		{Status: http.StatusServiceUnavailable, Error: "server busy, please try again.  maximum pending requests exceeded"},
		ollamatest.Text("Here you are."),
	}})
	r := chat(t, t.TempDir(), srv.URL, t.TempDir(), "--model", "m", "say hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	warnings := 0
	for _, e := range r.data(t, "agent:error") {
		if e["kind"] == "warning" && strings.Contains(e["message"].(string), "is busy: its queue of requests is full") {
			warnings++
		}
	}
	if warnings != 1 {
		t.Errorf("warnings %v, want one saying Ollama was busy", r.data(t, "agent:error"))
	}
	if resp := r.data(t, "agent:response"); len(resp) != 1 || resp[0]["text"] != "Here you are." {
		t.Errorf("answer %v", resp)
	}
}
