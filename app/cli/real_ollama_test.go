//go:build ollama

// The real-server tier: `shrimp chat --json` against ollama v0.24.0 with
// scripted GGUF models. Run with `make test-ollama` (go test -tags ollama).
// It fails, not skips, when the server cannot be built; set
// SHRIMP_SKIP_OLLAMA=1 to skip it with a printed reason.

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/model"
	"github.com/shrimp-harness/shrimp/backend/recalleval"
	"github.com/shrimp-harness/shrimp/internal/ollamatest/realserver"
)

var real *realserver.Server

func TestMain(m *testing.M) {
	if os.Getenv("SHRIMP_SKIP_OLLAMA") == "1" {
		fmt.Println("real-ollama tier skipped: SHRIMP_SKIP_OLLAMA=1 is set")
		os.Exit(0)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	start := time.Now()
	bin, err := realserver.Binary(ctx, func(s string) { fmt.Println("real-ollama:", s) })
	if err != nil {
		fmt.Printf("real-ollama tier FAILED: the ollama v%s test server could not be built: %v\n", realserver.Version, err)
		os.Exit(1)
	}
	dir, _ := os.MkdirTemp("", "shrimp-real-ollama-")
	real, err = realserver.Start(ctx, bin, dir)
	if err != nil {
		fmt.Printf("real-ollama tier FAILED: ollama serve did not start: %v\n", err)
		os.Exit(1)
	}
	for _, mdl := range []realserver.Model{realserver.ChainModel(), realserver.TextModel(), realserver.NoToolsModel(), realserver.EmbedModel()} {
		if err := real.Create(ctx, mdl); err != nil {
			real.Stop()
			fmt.Printf("real-ollama tier FAILED: %v\n", err)
			os.Exit(1)
		}
	}
	fmt.Printf("real-ollama: server %s ready with 4 models after %v\n", real.URL, time.Since(start).Round(time.Millisecond))
	code := m.Run()
	if code != 0 {
		fmt.Println("ollama serve log (tail):")
		logs := real.Logs()
		if len(logs) > 4000 {
			logs = logs[len(logs)-4000:]
		}
		fmt.Println(logs)
	}
	real.Stop()
	cancel()
	os.RemoveAll(dir)
	removeBuiltBinary()
	os.Exit(code)
}

func TestRealChainPerformsThreeToolCalls(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the shrimp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	r := chat(t, data, real.URL, ws, "--model", "shrimp-test-chain", "--approve", "all", "tidy up my notes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.raw)
	}
	calls := r.data(t, "agent:tool-call")
	var names []string
	for _, c := range calls {
		names = append(names, c["name"].(string))
	}
	if strings.Join(names, " ") != "fs.list fs.read fs.write" {
		t.Fatalf("tool calls %v", names)
	}
	for _, res := range r.data(t, "agent:tool-result") {
		if res["error"] != "" {
			t.Fatalf("tool result error: %v", res)
		}
	}
	got, err := os.ReadFile(filepath.Join(ws, "out.txt"))
	if err != nil || string(got) != "done" {
		t.Fatalf("out.txt = %q, %v", got, err)
	}
	resp := r.data(t, "agent:response")
	if len(resp) != 1 || strings.TrimSpace(resp[0]["text"].(string)) != realserver.ChainAnswer {
		t.Fatalf("response %v", resp)
	}
	// Real token counts reach usage:updated and the session store.
	usage := r.data(t, "usage:updated")
	if len(usage) != 1 {
		t.Fatalf("usage events %v", usage)
	}
	perRun := usage[0]["run"].(map[string]any)
	if perRun["prompt_tokens"].(float64) <= 0 || perRun["completion_tokens"].(float64) <= 0 || perRun["calls"].(float64) != 4 {
		t.Fatalf("usage %v", perRun)
	}
	code, out, _ := run("--data-dir", data, "sessions", "list", "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("sessions list %d %s", code, out)
	}
	if list[0]["prompt_tokens"].(float64) != perRun["prompt_tokens"].(float64) {
		t.Fatalf("stored prompt tokens %v, run %v", list[0]["prompt_tokens"], perRun["prompt_tokens"])
	}
}

func TestRealTextStreamsInSeveralTokens(t *testing.T) {
	r := chat(t, t.TempDir(), real.URL, t.TempDir(), "--model", "shrimp-test-text", "--approve", "all", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	toks := r.data(t, "agent:token")
	if len(toks) < 2 {
		t.Fatalf("%d agent:token events, want more than one", len(toks))
	}
	var text strings.Builder
	for _, tk := range toks {
		text.WriteString(tk["text"].(string))
	}
	if strings.TrimSpace(text.String()) != realserver.TextAnswer {
		t.Fatalf("streamed %q", text.String())
	}
}

func TestRealModelsList(t *testing.T) {
	code, out, errOut := run("--ollama", real.URL, "models", "list")
	if code != 0 {
		t.Fatalf("models list: %s", errOut)
	}
	// Each with its trained context (v0.24.0's list has none: /api/show
	// has it) and what Shrimp can use it for.
	for name, use := range map[string]string{"shrimp-test-chain:latest": "chat with tools", "shrimp-test-text:latest": "chat with tools",
		"shrimp-test-notools:latest": "chat, tools in its prompt", "shrimp-test-embed:latest": "recall (embedding: --embed-model)"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` .* [0-9]+ +` + regexp.QuoteMeta(use) + `$`).MatchString(out) {
			t.Errorf("models list has no line for %s with its context and %q:\n%s", name, use, out)
		}
	}
}

// TestRealThinkOff: v0.24.0 takes "think": false from a model that does
// not think (it refuses only a request to think), and refuses an effort
// from it, which is asked again without: the scripted server copies both.
func TestRealThinkOff(t *testing.T) {
	for _, think := range []string{"--think=off", "--think=low"} {
		r := chat(t, t.TempDir(), real.URL, t.TempDir(), "--model", "shrimp-test-text", "--approve", "all", think, "hello")
		if r.code != 0 || len(r.data(t, "agent:response")) != 1 {
			t.Errorf("%s: exit %d, stderr %q", think, r.code, r.stderr)
		}
	}
}

// TestRealModelWithoutToolCalling: the real server refuses tools for a
// template without them (HTTP 400); the request is sent again with the
// tools in the prompt, and the model's answer comes back, with a warning
// saying why.
func TestRealModelWithoutToolCalling(t *testing.T) {
	r := chat(t, t.TempDir(), real.URL, t.TempDir(), "--model", "shrimp-test-notools", "hello")
	resp := r.data(t, "agent:response")
	if r.code != 0 || len(resp) != 1 || !strings.Contains(fmt.Sprint(resp[0]["text"]), "tiny test model") || !strings.Contains(r.raw, "describes the tools in its prompt") {
		t.Fatalf("exit %d, stderr %q\n%s", r.code, r.stderr, r.raw)
	}
}

// TestRealModelNamedInAnotherCase: the real server takes a model's name in
// any case and without its tag (what the scripted one copies), and the
// session keeps the name Ollama lists.
func TestRealModelNamedInAnotherCase(t *testing.T) {
	data := t.TempDir()
	r := chat(t, data, real.URL, t.TempDir(), "--model", "Shrimp-Test-TEXT", "--approve", "all", "hello")
	if r.code != 0 || len(r.data(t, "agent:response")) != 1 {
		t.Fatalf("exit %d, stderr %q\n%s", r.code, r.stderr, r.raw)
	}
	code, out, _ := run("--data-dir", data, "sessions", "list", "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0]["model"] != "shrimp-test-text:latest" {
		t.Fatalf("sessions list: %d %s", code, out)
	}
}

// TestRealImageForModelThatCannotSee: v0.24.0 lists a model without a
// vision projector with no "vision" capability, and would drop an image
// sent to it (its runners keep only the "[img-0]" tag): the request is
// refused before it runs, naming no model that can (none is installed).
func TestRealImageForModelThatCannotSee(t *testing.T) {
	shot := filepath.Join(t.TempDir(), "shot.png")
	// A 1×1 PNG, as the encoder writes it.
	const onePixel = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00\x00\x00:~\x9bU\x00\x00\x00\nIDATx\x9cc`\x00\x00\x00\x02\x00\x01H\xaf\xa4q\x00\x00\x00\x00IEND\xaeB`\x82"
	if err := os.WriteFile(shot, []byte(onePixel), 0o600); err != nil {
		t.Fatal(err)
	}
	r := chat(t, t.TempDir(), real.URL, t.TempDir(), "--model", "shrimp-test-text", "--image", shot, "what is this")
	if r.code == 0 || !strings.Contains(r.stderr, "shrimp-test-text cannot see images") || !strings.Contains(r.stderr, "ollama pull gemma3") || len(r.lines) != 0 {
		t.Fatalf("exit %d, stderr %q, %d events; want a refusal before the run", r.code, r.stderr, len(r.lines))
	}
}

// TestRealServerDropsImagesForABlindModel pins what Blind and the refusal
// above are for: v0.24.0 takes an image sent to a model without a vision
// projector without a word (200, an answer), so the model answers about
// a picture it never saw.
func TestRealServerDropsImagesForABlindModel(t *testing.T) {
	c, err := api.ClientFromEnvironment()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(real.URL)
	c = api.NewClient(u, http.DefaultClient)
	var answer strings.Builder
	stream := false
	err = c.Chat(context.Background(), &api.ChatRequest{Model: "shrimp-test-text", Stream: &stream, Messages: []api.Message{
		{Role: "user", Content: "what is in this picture?", Images: []api.ImageData{[]byte("\x89PNG\r\n\x1a\n not decoded")}},
	}}, func(r api.ChatResponse) error { answer.WriteString(r.Message.Content); return nil })
	if err != nil || answer.Len() == 0 {
		t.Fatalf("v0.24.0 refused an image for a model that cannot see (%v): Blind and the refusal could say so instead", err)
	}
}

// TestRealKeepAliveAndUnload: v0.24.0 keeps a model chatted with a
// keep-alive of -1 until it stops (its expiry ~292 years out), and
// Shrimp's Unload (a chat with no messages and a keep-alive of 0, its
// answer one object, not a stream) takes it out of memory.
func TestRealKeepAliveAndUnload(t *testing.T) {
	c, err := model.New(real.URL)
	if err != nil {
		t.Fatal(err)
	}
	c.SetKeepAlive(-1)
	ctx := context.Background()
	if err := c.Chat(ctx, &api.ChatRequest{Model: "shrimp-test-text", Messages: []api.Message{{Role: "user", Content: "hello"}}}, func(api.ChatResponse) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// The scheduler sets the new expiry once it has taken the finished
	// request back, in the background: /api/ps read at once may still
	// show the model's earlier one (seen in a fresh-clone CI run).
	var in []model.InMemory
	for deadline := time.Now().Add(time.Minute); ; {
		in, err = c.InMemory(ctx)
		if err == nil && slices.ContainsFunc(in, func(m model.InMemory) bool { return m.Name == "shrimp-test-text:latest" && m.Forever }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("in memory: %+v, %v; want shrimp-test-text until Ollama stops", in, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := c.Unload(ctx, "shrimp-test-text"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute) // the scheduler unloads in the background
	for {
		in, err = c.InMemory(ctx)
		if err == nil && !slices.ContainsFunc(in, func(m model.InMemory) bool { return m.Name == "shrimp-test-text:latest" }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still in memory a minute after Unload: %+v, %v", in, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRealMissingModel(t *testing.T) {
	r := chat(t, t.TempDir(), real.URL, t.TempDir(), "--model", "nope", "hello")
	if r.code == 0 || !strings.Contains(r.stderr, "ollama pull nope") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestRealProcedureScenario is the procedural-memory scenario on the real
// server: learn from three real tool calls, recall on a reworded request,
// and recall nothing once the user forgot it.
func TestRealProcedureScenario(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the shrimp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r1 := chat(t, data, real.URL, ws, "--model", "shrimp-test-chain", "--approve", "all", "tidy up the notes in this folder into out.txt")
	if r1.code != 0 || len(r1.data(t, "memory:procedure-learned")) != 1 {
		t.Fatalf("request 1: exit %d, learned %v, %s", r1.code, r1.data(t, "memory:procedure-learned"), r1.stderr)
	}
	r2 := chat(t, data, real.URL, ws, "--model", "shrimp-test-chain", "--approve", "all", "into out.txt, tidy up this folder's notes")
	rec := r2.data(t, "memory:procedure-recalled")
	if r2.code != 0 || len(rec) != 1 {
		t.Fatalf("request 2: exit %d, recalled %v", r2.code, rec)
	}
	p := rec[0]["procedures"].([]any)[0].(map[string]any)
	if p["chain"] != "fs.list → fs.read → fs.write" {
		t.Fatalf("recalled %v", p)
	}
	if upd := r2.data(t, "memory:procedure-updated"); len(upd) != 1 || upd[0]["uses"].(float64) != 1 {
		t.Fatalf("updated %v", upd)
	}
	if code, _, errOut := run("--data-dir", data, "procedures", "forget", p["id"].(string)); code != 0 {
		t.Fatalf("forget: %s", errOut)
	}
	r3 := chat(t, data, real.URL, ws, "--model", "shrimp-test-chain", "--approve", "all", "tidy up the notes in this folder into out.txt")
	if r3.code != 0 || len(r3.data(t, "memory:procedure-recalled")) != 0 {
		t.Fatalf("request 3 recalled a forgotten procedure: %v", r3.data(t, "memory:procedure-recalled"))
	}
}

// TestRealDoctor: shrimp doctor reads the real server's version and each
// model's capabilities (/api/show), so a model whose template has no tools
// is not counted.
func TestRealDoctor(t *testing.T) {
	code, out, errOut := run("--data-dir", t.TempDir(), "--ollama", real.URL, "doctor", "--json")
	var rows []struct {
		Check  string `json:"check"`
		Status string `json:"status"`
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errOut)
	}
	by := map[string]string{}
	for _, r := range rows {
		by[r.Check] = r.Status + ": " + r.Detail
	}
	t.Logf("exit %d; ollama %q; tool models %q; context %q", code, by["ollama"], by["tool models"], by["context size"])
	if !strings.HasPrefix(by["ollama"], "pass: Ollama "+realserver.Version) {
		t.Errorf("ollama check: %s", by["ollama"])
	}
	if !strings.HasPrefix(by["tool models"], "pass") || !strings.Contains(by["tool models"], "shrimp-test-chain:latest") ||
		strings.Contains(by["tool models"], "shrimp-test-notools") {
		t.Errorf("tool models check: %s", by["tool models"])
	}
}

// embedRow runs shrimp doctor --json with args and returns its embedding
// model check as "status: detail (fix)".
func embedRow(t *testing.T, args ...string) string {
	t.Helper()
	_, rows := runDoctorJSON(t, args...)
	r := rows["embedding model"]
	return fmt.Sprintf("%s: %s (%s)", r.Status, r.Detail, r.Fix)
}

// TestRealEmbedModel: an embedding model on the real server, as a user
// meets it. Ollama lists it for "embedding" (and a chat model not), shrimp
// doctor sees it answer /api/embed, a learned procedure's wording gets its
// vector in the background and is counted, procedures eval scores the
// sample through it, and choosing it as the chat model is a clear error.
func TestRealEmbedModel(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the shrimp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	emb := []string{"--data-dir", data, "--ollama", real.URL, "--embed-model", "shrimp-test-embed"}
	row := embedRow(t, emb...)
	t.Log(row)
	// Named as Ollama lists it (the name given was without its tag).
	if !strings.HasPrefix(row, "pass: shrimp-test-embed:latest answers /api/embed (64 values") || !strings.Contains(row, "no procedures yet") {
		t.Fatalf("embedding model check before any procedure: %s", row)
	}
	row = embedRow(t, "--data-dir", data, "--ollama", real.URL, "--embed-model", "shrimp-test-chain")
	t.Log(row)
	if !strings.HasPrefix(row, "warn: shrimp-test-chain:latest is not an embedding model (Ollama lists it for completion, tools)") {
		t.Fatalf("a chat model as the embedding model: %s", row)
	}

	r := chat(t, data, real.URL, ws, "--model", "shrimp-test-chain", "--approve", "all", "--embed-model", "shrimp-test-embed", "tidy up the notes in this folder into out.txt")
	if r.code != 0 || len(r.data(t, "memory:procedure-learned")) != 1 {
		t.Fatalf("learning with an embedding model set: exit %d, %s", r.code, r.stderr)
	}
	// The procedure's wordings (its trigger as written and as read) are
	// embedded in the background by whichever process has the memory
	// open; each doctor run gets on with it.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		row = embedRow(t, emb...)
		if m := regexp.MustCompile(`(\d+) of (\d+) stored requests have its vectors`).FindStringSubmatch(row); m != nil && m[1] == m[2] && m[1] != "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the learned wording never got its vector: %s", row)
		}
	}
	t.Log(row)
	if !strings.HasPrefix(row, "pass:") || !strings.Contains(row, "recall uses it once 20 have them") {
		t.Fatalf("embedding model check with one procedure: %s", row)
	}

	// The evaluation path on the real server: every trigger and query of
	// the sample through /api/embed, calibrated, scored.
	set := filepath.Join("..", "..", "backend", "recalleval", "testdata", "sample.jsonl")
	code, out, errOut := run("--ollama", real.URL, "--embed-model", "shrimp-test-embed", "procedures", "eval", "--dataset", set)
	labels, err := recalleval.ReadLabels(set)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.TrimSpace(out), "\n") + 1; code != 0 || n != len(labels) {
		t.Fatalf("procedures eval with the real server's embedding model: exit %d, %d lines for %d queries: %s", code, n, len(labels), errOut)
	}

	c := chat(t, t.TempDir(), real.URL, ws, "--model", "shrimp-test-embed", "hello")
	t.Logf("chat with the embedding model: exit %d, %s", c.code, c.stderr)
	if c.code == 0 || !strings.Contains(c.stderr, "shrimp-test-embed") || !strings.Contains(c.stderr, "embedding model") {
		t.Fatalf("chatting with an embedding model: exit %d, stderr %q", c.code, c.stderr)
	}
}

// TestRealModelLoading: against ollama v0.24.0, a chat after the model
// was unloaded (its keep-alive ran out) says it waits for the load, with
// Ollama's load time; a chat right after says nothing; a chat at another
// context size says Ollama loads it again, with the size it was at.
func TestRealModelLoading(t *testing.T) {
	u, err := url.Parse(real.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	unload := &api.ChatRequest{Model: "shrimp-test-text", KeepAlive: &api.Duration{Duration: 0}}
	client := api.NewClient(u, http.DefaultClient)
	if err := client.Chat(ctx, unload, func(api.ChatResponse) error { return nil }); err != nil {
		t.Fatalf("unload: %v", err)
	}
	// The unload is scheduled: wait until Ollama no longer lists it.
	for deadline := time.Now().Add(time.Minute); ; {
		ps, err := client.ListRunning(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(ps.Models, func(m api.ProcessModelResponse) bool { return strings.HasPrefix(m.Name, "shrimp-test-text") }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still in memory a minute after the unload: %+v", ps.Models)
		}
		time.Sleep(50 * time.Millisecond)
	}
	data := t.TempDir()
	events := func(r chatResult) (loading, loaded []map[string]any) {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		return r.data(t, "agent:model-loading"), r.data(t, "agent:model-loaded")
	}
	loading, loaded := events(chat(t, data, real.URL, t.TempDir(), "--model", "shrimp-test-text", "hello"))
	if len(loading) != 1 || loading[0]["loaded"] != nil || len(loaded) != 1 || loaded[0]["seconds"].(float64) < 0 {
		t.Fatalf("after an unload: loading %v, loaded %v", loading, loaded)
	}
	if loading, loaded := events(chat(t, data, real.URL, t.TempDir(), "--model", "shrimp-test-text", "hello")); len(loading)+len(loaded) != 0 {
		t.Fatalf("in memory: loading %v, loaded %v", loading, loaded)
	}
	if code, _, errOut := run("--data-dir", data, "models", "ctx", "shrimp-test-text", "1024"); code != 0 {
		t.Fatal(errOut)
	}
	loading, _ = events(chat(t, data, real.URL, t.TempDir(), "--model", "shrimp-test-text", "hello"))
	if len(loading) != 1 || loading[0]["num_ctx"] != float64(1024) || loading[0]["loaded"] == nil {
		t.Fatalf("at another context size: %v", loading)
	}
	if loading, _ := events(chat(t, data, real.URL, t.TempDir(), "--model", "shrimp-test-text", "hello")); len(loading) != 0 {
		t.Fatalf("at that size again: %v", loading)
	}
}

// TestRealModelParams: v0.24.0 shows the test model's Modelfile
// temperature in the form ModelfileParams reads, and takes the user's
// sampling settings (whole numbers as integers) with a chat.
func TestRealModelParams(t *testing.T) {
	data := t.TempDir()
	code, out, errOut := run("--data-dir", data, "--ollama", real.URL, "models", "params", "shrimp-test-text", "top_k=5", "seed=3", "temperature=0.1")
	if code != 0 || !regexpLine(out, `temperature +0.1 +set here`) || !regexpLine(out, `top_k +5 +set here`) {
		t.Fatalf("set: %d %s %s", code, out, errOut)
	}
	r := chat(t, data, real.URL, t.TempDir(), "--model", "shrimp-test-text", "--approve", "all", "hello")
	if r.code != 0 || len(r.data(t, "agent:response")) != 1 {
		t.Fatalf("a chat with them: exit %d, stderr %q", r.code, r.stderr)
	}
	code, out, errOut = run("--data-dir", data, "--ollama", real.URL, "models", "params", "shrimp-test-text", "--reset")
	if code != 0 || !regexpLine(out, `temperature +0 +its Modelfile`) || !regexpLine(out, `top_k +default +Ollama`) {
		t.Fatalf("reset: %d %s %s", code, out, errOut)
	}
}

// TestRealSentBackByACheck: a pre-run-end hook sends the real model back
// once after its answer; Ollama takes the conversation with the check's
// message after the answer (its template renders user after assistant)
// and the model answers again, reading a longer prompt.
func TestRealSentBackByACheck(t *testing.T) {
	data := t.TempDir()
	check := `grep -q '"sent_back":0' && { echo 'the tests fail: TestParse' >&2; exit 2; }; exit 0`
	if code, _, errOut := run("--data-dir", data, "hooks", "add", "pre-run-end", "--", "/bin/sh", "-c", check); code != 0 {
		t.Fatal(errOut)
	}
	r := chat(t, data, real.URL, t.TempDir(), "--model", "shrimp-test-text", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	resp, back := r.data(t, "agent:response"), r.data(t, "agent:sent-back")
	if len(resp) != 2 || len(back) != 1 || !strings.Contains(back[0]["text"].(string), "the tests fail: TestParse") {
		t.Fatalf("responses %v, sent back %v", resp, back)
	}
	for _, a := range resp {
		if strings.TrimSpace(a["text"].(string)) != realserver.TextAnswer {
			t.Fatalf("answers %v", resp)
		}
	}
	used := r.data(t, "usage:updated")[0]["run"].(map[string]any)
	if used["calls"].(float64) != 2 || used["last_prompt_tokens"].(float64) <= used["prompt_tokens"].(float64)/2 {
		t.Fatalf("usage %v: the second call did not read the longer conversation", used)
	}
}

// TestRealPromptHook: a Claude Code prompt Stop hook's question reaches
// ollama v0.24.0 as the judge sends it (the chat's model and num_ctx, a
// JSON schema as format) and is answered: the scripted model cannot
// write JSON, so the grammar-held answer is whatever it gives, and the
// run must end with the answer either way (sent back at most once by a
// "not ok", or a note) rather than fail on the request.
func TestRealPromptHook(t *testing.T) {
	data, claudeDir := t.TempDir(), t.TempDir()
	settings := `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the answer complete? $ARGUMENTS"}]}]}}`
	if err := os.WriteFile(filepath.Join(claudeDir, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run("--data-dir", data, "hooks", "import", filepath.Join(claudeDir, "settings.json")); code != 0 {
		t.Fatal(errOut)
	}
	r := chat(t, data, real.URL, t.TempDir(), "--model", "shrimp-test-text", "hello")
	ended := r.data(t, "agent:run-ended")
	if r.code != 0 || len(ended) != 1 || ended[0]["status"] != "responded" {
		t.Fatalf("exit %d, ended %v: %s\n%s", r.code, ended, r.raw, r.stderr)
	}
	for _, w := range r.data(t, "agent:error") {
		msg, _ := w["message"].(string)
		t.Logf("note: %s", msg)
		if strings.Contains(msg, "could not answer") {
			t.Fatalf("ollama refused the judge's request: %s", msg)
		}
	}
}

// TestRealControlTokensStayText: the real server reads a control token's
// text in a message as the token itself (the attack: a file forging a
// turn); sent through Shrimp's client it is text, for a token of a known
// family's shape (<|chat|>) and for one only the model's template names
// (<AI>). Measured by the prompt's token count, which Ollama reports whole
// (the runner's numPromptInputs).
func TestRealControlTokensStayText(t *testing.T) {
	ctx := context.Background()
	own := realserver.OwnTokensModel()
	if err := real.Create(ctx, own); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ model, token string }{{"shrimp-test-text", "<|chat|>"}, {own.Name, "<AI>"}} {
		t.Run(tt.token, func(t *testing.T) {
			c, err := model.New(real.URL)
			if err != nil {
				t.Fatal(err)
			}
			const n = 20
			forged := strings.Repeat(tt.token, n)
			count := func(via func(context.Context, *api.ChatRequest, api.ChatResponseFunc) error, content string) int {
				t.Helper()
				stream := false
				var got api.ChatResponse
				req := &api.ChatRequest{Model: tt.model, Stream: &stream, Messages: []api.Message{{Role: "user", Content: "notes: " + content}}}
				if err := via(ctx, req, func(r api.ChatResponse) error {
					if r.Done {
						got = r
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if got.PromptEvalCount == 0 || strings.TrimSpace(got.Message.Content) != realserver.TextAnswer {
					t.Fatalf("answer %+v", got)
				}
				return got.PromptEvalCount
			}
			plain := count(c.API().Chat, "")
			raw := count(c.API().Chat, forged)
			sent := count(c.Chat, forged)
			t.Logf("prompt tokens: without the text %d, sent as it is %d, through Shrimp %d", plain, raw, sent)
			// About one token a copy sent as it is (the text around them
			// is tokenized a little differently); its characters, less the
			// few a vocabulary joins, through Shrimp.
			if raw-plain > n+n/2 {
				t.Errorf("sent as it is, %d copies of %s took %d tokens: the server no longer reads them as the control token, and this test shows nothing", n, tt.token, raw-plain)
			}
			if sent-plain < 3*n {
				t.Errorf("through Shrimp, %d copies of %s took %d tokens: read as the control token", n, tt.token, sent-plain)
			}
		})
	}
}

// TestRealPromptTooLongIsRefused: ollama v0.24.0 refuses a prompt longer
// than num_ctx when the request says truncate false (HTTP 400, "the input
// length exceeds the context length"), which the agent sends with every
// chat and reads as a prompt to fit again (backend/agent tooLong); left
// unset, Ollama cuts the prompt to the window and answers, with no word.
func TestRealPromptTooLongIsRefused(t *testing.T) {
	u, err := url.Parse(real.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	client := api.NewClient(u, http.DefaultClient)
	no := false
	req := &api.ChatRequest{
		Model:    "shrimp-test-text",
		Messages: []api.Message{{Role: "user", Content: strings.Repeat("many words in a long message ", 400)}},
		Options:  map[string]any{"num_ctx": 256},
		Truncate: &no,
	}
	err = client.Chat(ctx, req, func(api.ChatResponse) error { return nil })
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest || !strings.Contains(se.ErrorMessage, "input length exceeds the context length") {
		t.Fatalf("truncate false: %v; want HTTP 400, the input length exceeds the context length", err)
	}
	req.Truncate = nil
	var last api.ChatResponse
	if err := client.Chat(ctx, req, func(r api.ChatResponse) error { last = r; return nil }); err != nil || !last.Done || last.PromptEvalCount > 256 {
		t.Fatalf("truncate unset: %v, %+v; want an answer to a prompt cut to 256 tokens", err, last)
	}
}
