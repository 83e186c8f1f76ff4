package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/recalleval"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// chainReplies plays fs.list → fs.read → fs.write → answer for one request.
func chainReplies() []ollamatest.Reply {
	return []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{"path": "."}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.read", Args: map[string]any{"path": "notes.txt"}}),
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "summary.txt", "content": "1 note"}}),
		ollamatest.Text("Done: summary.txt is written."),
	}
}

func systemPrompt(r ollamatest.Request) string {
	for _, m := range r.Chat.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}

func TestProcedureLearnRecallForget(t *testing.T) {
	var replies []ollamatest.Reply
	for range 3 {
		replies = append(replies, chainReplies()...)
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: replies})
	data, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("note\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Request 1: three tool calls, then an answer: a procedure is learned.
	r1 := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "summarize the notes in this folder into summary.txt")
	if r1.code != 0 {
		t.Fatalf("request 1: %s", r1.stderr)
	}
	if len(r1.data(t, "memory:procedure-recalled")) != 0 || strings.Contains(systemPrompt(srv.Requests()[0]), "→") {
		t.Fatal("request 1 recalled something from an empty memory")
	}
	learned := r1.data(t, "memory:procedure-learned")
	if len(learned) != 1 || learned[0]["chain"] != "fs.list → fs.read → fs.write" {
		t.Fatalf("learned events %v", learned)
	}
	// No run with recall yet: its row has no medians (dashes, not zeros).
	code, out, errOut := run("--data-dir", data, "procedures", "worth")
	if code != 0 || !regexp.MustCompile(`with recall +0 +– +– +– +– +– *\n`).MatchString(out) {
		t.Fatalf("worth before any recall: %d %q %s", code, out, errOut)
	}
	code, out, errOut = run("--data-dir", data, "procedures", "list", "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("procedures list: %d %s %s", code, out, errOut)
	}
	p := list[0]
	id := p["id"].(string)
	for _, k := range []string{"id", "trigger", "tools", "uses", "demerits", "status", "missing_tools"} {
		if _, ok := p[k]; !ok {
			t.Fatalf("procedures list lacks %q: %v", k, p)
		}
	}
	if p["status"] != "active" || p["trigger"] != "summarize the notes in this folder into summary.txt" {
		t.Fatalf("procedure %v", p)
	}

	// Request 2, worded differently: the model is handed the chain.
	n := len(srv.Requests())
	r2 := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "into summary.txt, summarise the notes of this folder please")
	if r2.code != 0 {
		t.Fatalf("request 2: %s", r2.stderr)
	}
	hint := systemPrompt(srv.Requests()[n])
	if !strings.Contains(hint, "The earlier request") || !strings.Contains(hint, "fs.list → fs.read → fs.write") || !strings.Contains(hint, id) {
		t.Fatalf("request 2 system prompt lacks the hint:\n%s", hint)
	}
	rec := r2.data(t, "memory:procedure-recalled")
	if len(rec) != 1 {
		t.Fatalf("recalled events %v", rec)
	}
	procs := rec[0]["procedures"].([]any)
	if procs[0].(map[string]any)["id"] != id || procs[0].(map[string]any)["score"].(float64) < 0.5 {
		t.Fatalf("recalled %v", procs)
	}
	// It followed the recalled chain: one use, the wording kept as a variant.
	if upd := r2.data(t, "memory:procedure-updated"); len(upd) != 1 || upd[0]["uses"].(float64) != 1 {
		t.Fatalf("updated events %v", upd)
	}
	// Its measures: the run recalled the procedure and followed it.
	_, out, _ = run("--data-dir", data, "sessions", "export", r2.lines[0].Session, "--format", "json")
	var export struct {
		Runs []struct {
			Request string `json:"request"`
			Metrics struct {
				Turns     int      `json:"turns"`
				ToolCalls int      `json:"tool_calls"`
				Malformed *int     `json:"malformed_calls"`
				TokensIn  int      `json:"tokens_in"`
				TokensOut int      `json:"tokens_out"`
				WallMS    *int64   `json:"wall_ms"`
				Recalled  []string `json:"recalled"`
				Followed  *string  `json:"followed"`
			} `json:"metrics"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &export); err != nil || len(export.Runs) != 1 {
		t.Fatalf("export runs: %v %.300s", err, out)
	}
	m := export.Runs[0].Metrics
	if m.Turns != 4 || m.ToolCalls != 3 || m.Malformed == nil || *m.Malformed != 0 || m.TokensIn == 0 || m.TokensOut == 0 || m.WallMS == nil ||
		len(m.Recalled) != 1 || m.Recalled[0] != id || m.Followed == nil || *m.Followed != id {
		t.Fatalf("run metrics: %+v", m)
	}
	_, out, _ = run("--data-dir", data, "sessions", "export", r1.lines[0].Session, "--format", "json")
	if err := json.Unmarshal([]byte(out), &export); err != nil || len(export.Runs) != 1 || export.Runs[0].Metrics.Followed != nil || len(export.Runs[0].Metrics.Recalled) != 0 {
		t.Fatalf("the first run's metrics: %v %+v", err, export.Runs)
	}
	if _, md, _ := run("--data-dir", data, "sessions", "export", r2.lines[0].Session, "--format", "md"); !strings.Contains(md, "followed `"+id+"`") {
		t.Fatalf("markdown export lacks the run table:\n%.600s", md)
	}
	_, out, _ = run("--data-dir", data, "procedures", "show", id, "--json")
	var show map[string]any
	if json.Unmarshal([]byte(out), &show) != nil || len(show["triggers"].([]any)) != 2 {
		t.Fatalf("procedures show: %s", out)
	}
	// What it is worth: the run that taught it, the run that followed it.
	runs, _ := show["runs"].(map[string]any)
	if learnedRun, _ := runs["learned"].(map[string]any); learnedRun == nil || learnedRun["request"] != "summarize the notes in this folder into summary.txt" || len(runs["uses"].([]any)) != 1 {
		t.Fatalf("procedures show runs: %v", show["runs"])
	}
	if _, out, _ = run("--data-dir", data, "procedures", "show", id); !regexp.MustCompile(`(?m)^taught it +\S+ \S+ +4 +3 .*summarize the notes in this folder into summary\.txt$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^followed it .*summarise the notes of this folder please$`).MatchString(out) {
		t.Fatalf("procedures show lacks its runs:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^  1\. fs\.list \{"path":"\."\}$`).MatchString(out) || !regexp.MustCompile(`(?m)^  3\. fs\.write \{"path":"summary\.txt","content":".+$`).MatchString(out) {
		t.Fatalf("procedures show lacks its steps' example arguments:\n%s", out)
	}
	code, out, errOut = run("--data-dir", data, "procedures", "worth")
	if code != 0 || !regexp.MustCompile(`with recall +1 +4 +3 +0 `).MatchString(out) || !regexp.MustCompile(`without +1 +4 +3 +0 `).MatchString(out) ||
		!strings.Contains(out, "  "+id+"  0\n") || !strings.Contains(out, "observational") {
		t.Fatalf("procedures worth: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := run("--data-dir", data, "procedures", "worth", "--days", "-1"); code != 2 || !strings.Contains(errOut, "--days") {
		t.Fatalf("worth --days -1: %d %s", code, errOut)
	}

	// The user forgets it: request 3 gets no hint.
	if code, out, errOut := run("--data-dir", data, "procedures", "forget", id); code != 0 || !strings.Contains(out, "forgotten") {
		t.Fatalf("forget: %d %s %s", code, out, errOut)
	}
	n = len(srv.Requests())
	r3 := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "summarize the notes in this folder into summary.txt")
	if r3.code != 0 {
		t.Fatalf("request 3: %s", r3.stderr)
	}
	if strings.Contains(systemPrompt(srv.Requests()[n]), "Last time") || len(r3.data(t, "memory:procedure-recalled")) != 0 {
		t.Fatal("a forgotten procedure was recalled")
	}
	// Restore brings it back.
	if code, out, _ := run("--data-dir", data, "procedures", "restore", id); code != 0 || !strings.Contains(out, "active") {
		t.Fatalf("restore: %s", out)
	}
	code, out, _ = run("--data-dir", data, "procedures", "recall", "--json", "summarize the notes in this folder")
	var hits []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &hits) != nil || len(hits) == 0 {
		t.Fatalf("recall after restore: %s", out)
	}
}

func TestProcedureNotLearnedFromDeniedOrShortRuns(t *testing.T) {
	short := []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.list", Args: map[string]any{}}),
		ollamatest.Text("ok"),
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: append(short, chainReplies()...)})
	data, ws := t.TempDir(), t.TempDir()
	_ = os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("x"), 0o644)
	chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "list files")
	// fs.write is denied (read mode, headless): no learning.
	chat(t, data, srv.URL, ws, "--model", "m", "--approve", "read", "summarize notes into summary.txt")
	_, out, _ := run("--data-dir", data, "procedures", "list", "--json")
	if strings.TrimSpace(out) != "[]" {
		t.Fatalf("learned from a short or denied run: %s", out)
	}
}

func TestForgetToolByTheModel(t *testing.T) {
	var replies []ollamatest.Reply
	replies = append(replies, chainReplies()...)
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: nil, Replies: replies})
	data, ws := t.TempDir(), t.TempDir()
	_ = os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("x"), 0o644)
	chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "summarize the notes into summary.txt")
	_, out, _ := run("--data-dir", data, "procedures", "list", "--json")
	var list []map[string]any
	_ = json.Unmarshal([]byte(out), &list)
	id := list[0]["id"].(string)

	forget := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			return ollamatest.Text("Understood.")
		}
		return ollamatest.Tools(ollamatest.Call{Name: "memory.procedures.forget", Args: map[string]any{"id": id, "reason": "wrong folder"}})
	}})
	for i := 1; i <= 3; i++ {
		r := chat(t, data, forget.URL, ws, "--model", "m", "--approve", "all", "summarize the notes into summary.txt")
		ev := r.data(t, "memory:procedure-forgotten")
		if len(ev) != 1 || ev[0]["dropped"] != (i == 3) {
			t.Fatalf("round %d: forgotten events %v", i, ev)
		}
		if rec := r.data(t, "memory:procedure-recalled"); len(rec) != 1 {
			t.Fatalf("round %d: not recalled before the forget: %v", i, rec)
		}
	}
	_, out, _ = run("--data-dir", data, "procedures", "list", "--json")
	if !strings.Contains(out, `"status":"forgotten"`) || !strings.Contains(out, `"demerits":3`) {
		t.Fatalf("after three forgets: %s", out)
	}
}

func TestProceduresEval(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds.jsonl")
	lines := `{"kind":"tool","name":"fs.list"}
{"kind":"tool","name":"shell.run"}
{"kind":"procedure","id":"p1","trigger":"convert all the heic photos from my phone to jpg","tools":["fs.list","shell.run"],"uses":1}
{"kind":"procedure","id":"p2","trigger":"read the text out of the newest screenshot","tools":["fs.list","ocr.image"],"uses":0}
{"kind":"procedure","id":"p3","trigger":"undo the last commit but keep my changes","tools":["shell.run"],"uses":0}
{"kind":"forget","id":"p3","times":3}
{"kind":"query","id":"q1","text":"convrt the heic phtos from my phone to jpeg","expect":"p1","type":"typo"}
{"kind":"query","id":"q2","text":"read the text out of the newest screenshot","expect":null,"type":"unknown-tool"}
{"kind":"query","id":"q3","text":"undo the last commit but keep my changes","expect":null,"type":"forgotten"}
{"kind":"query","id":"q4","text":"tell me a riddle","expect":null,"type":"unrelated"}
`
	if err := os.WriteFile(ds, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("procedures", "eval", "--dataset", ds, "--engine", "all")
	if code != 0 {
		t.Fatalf("eval: %s", errOut)
	}
	got := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Query, Engine string
			Results       []string
			Micros        int64
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Results == nil {
			t.Fatalf("bad line %q", l)
		}
		got[r.Engine+"/"+r.Query] = r.Results
	}
	want := map[string]string{"bleve/q1": "p1", "bleve/q2": "", "bleve/q3": "", "bleve/q4": "", "like/q1": "", "like/q2": "", "like/q3": ""}
	for k, w := range want {
		g := strings.Join(got[k], ",")
		if g != w {
			t.Errorf("%s = %q, want %q", k, g, w)
		}
	}
	if code, _, errOut := run("procedures", "eval"); code != 2 || !strings.Contains(errOut, "--dataset") {
		t.Fatalf("eval without dataset: %d %s", code, errOut)
	}
}

// TestEmbedModelFlag: --embed-model reaches the memory: a recall with it
// embeds through the server's /api/embed once the store has procedures,
// and works on when the model is missing (the built-in encoder answers).
func TestEmbedModelFlag(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: chainReplies()}, ollamatest.Model{Name: "embedder"})
	data, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "--embed-model", "embedder", "summarize the notes in this folder into summary.txt"); r.code != 0 {
		t.Fatalf("chat: %s", r.stderr)
	}
	code, out, errOut := run("--data-dir", data, "--ollama", srv.URL, "--embed-model", "embedder", "procedures", "recall", "--json", "summarize the notes in this folder")
	if code != 0 || !strings.Contains(out, "summary.txt") {
		t.Fatalf("recall with --embed-model: %d %s %s", code, out, errOut)
	}
	var embedded bool
	for _, r := range srv.EmbedRequests() {
		embedded = embedded || r.Model == "embedder"
	}
	if !embedded {
		t.Fatal("no /api/embed request for the embedding model")
	}
	// A model that is not installed: recall still answers.
	code, out, errOut = run("--data-dir", data, "--ollama", srv.URL, "--embed-model", "missing", "procedures", "recall", "--json", "summarize the notes in this folder")
	if code != 0 || !strings.Contains(out, "summary.txt") {
		t.Fatalf("recall with a missing embedding model: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := run("procedures", "list", "--embed-model"); code != 2 || !strings.Contains(errOut, "--embed-model") {
		t.Fatalf("--embed-model without a value: %d %q", code, errOut)
	}
}

// TestDeclinedRecallNotOfferedAgain: a run that answers without using a
// recalled procedure declines it for that request (an event says so), and
// the same request is not handed the procedure again.
func TestDeclinedRecallNotOfferedAgain(t *testing.T) {
	replies := append(chainReplies(), ollamatest.Text("There are no notes worth summarising."), ollamatest.Text("Still none."), ollamatest.Text("None again."))
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: replies})
	data, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	request := "summarize the notes in this folder into summary.txt"
	if r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", request); r.code != 0 || len(r.data(t, "memory:procedure-learned")) != 1 {
		t.Fatalf("request 1 learned nothing: %s", r.stderr)
	}
	r2 := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", request)
	if r2.code != 0 || len(r2.data(t, "memory:procedure-recalled")) != 1 {
		t.Fatalf("request 2 recalled nothing: %s", r2.stderr)
	}
	dec := r2.data(t, "memory:procedure-declined")
	if len(dec) != 1 || dec[0]["request"] != request || dec[0]["procedure"].(map[string]any)["chain"] != "fs.list → fs.read → fs.write" {
		t.Fatalf("declined events %v", dec)
	}
	n := len(srv.Requests())
	r3 := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "Summarize the notes in this folder into summary.txt!")
	if r3.code != 0 {
		t.Fatalf("request 3: %s", r3.stderr)
	}
	if len(r3.data(t, "memory:procedure-recalled")) != 0 || strings.Contains(systemPrompt(srv.Requests()[n]), "The earlier request") {
		t.Fatal("a declined recall was offered again for the same request")
	}
	// The procedure's page says so; restore offers it again.
	id := dec[0]["procedure"].(map[string]any)["id"].(string)
	var show struct{ Declined []string }
	if _, out, _ := run("--data-dir", data, "procedures", "show", id, "--json"); json.Unmarshal([]byte(out), &show) != nil || len(show.Declined) != 1 || show.Declined[0] != request {
		t.Fatalf("procedures show: %s", out)
	}
	if code, out, errOut := run("--data-dir", data, "procedures", "restore", id); code != 0 {
		t.Fatalf("restore: %s %s", out, errOut)
	}
	if _, out, _ := run("--data-dir", data, "procedures", "show", id, "--json"); json.Unmarshal([]byte(out), &show) != nil || len(show.Declined) != 0 {
		t.Fatalf("procedures show after restore: %s", out)
	}
	r4 := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", request)
	if r4.code != 0 || len(r4.data(t, "memory:procedure-recalled")) != 1 {
		t.Fatalf("after restore the request is not offered the procedure: %s", r4.stderr)
	}
}

// TestEvalWithEmbedModel: procedures eval measures recall with an
// embedding model when --embed-model names one: every trigger and every
// query goes through its /api/embed, after the model's documented prompt,
// and the output keeps the kit's format. A model that cannot embed them all
// scores nothing and says why, rather than pass the built-in encoder's
// numbers off as the model's.
func TestEvalWithEmbedModel(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "nomic-embed-text", Embedding: true})
	set := filepath.Join("..", "..", "backend", "recalleval", "testdata", "sample.jsonl")
	ds, err := recalleval.ReadLabels(set)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("--ollama", srv.URL, "--embed-model", "nomic-embed-text", "procedures", "eval", "--dataset", set)
	if code != 0 {
		t.Fatalf("eval with an embedding model: %d %s", code, errOut)
	}
	if n := strings.Count(strings.TrimSpace(out), "\n") + 1; n != len(ds) {
		t.Errorf("%d result lines for %d queries", n, len(ds))
	}
	var texts []string
	for _, r := range srv.EmbedRequests() {
		for _, in := range r.Input.([]any) {
			texts = append(texts, in.(string))
		}
	}
	// As written: the built-in encoder's spelling correction would have
	// made "heic" "heir" and "rebase" "rebate".
	for _, want := range []string{"clustering: convert all the heic photos from my phone to jpg", "clustering: pull the latest changes from main and rebase my branch on top", "clustering: convert all the HEIC photos from my phone to JPG"} {
		if !slices.Contains(texts, want) {
			t.Errorf("%q not embedded", want)
		}
	}
	if len(texts) < len(ds)+20 || slices.ContainsFunc(texts, func(s string) bool { return !strings.HasPrefix(s, "clustering: ") }) {
		t.Errorf("%d texts embedded, want every trigger and query after the prompt: %.300q", len(texts), texts)
	}
	code, _, errOut = run("--ollama", srv.URL, "--embed-model", "mxbai-embed-large", "procedures", "eval", "--dataset", set)
	if code == 0 || !strings.Contains(errOut, "nothing scored") || !strings.Contains(errOut, "ollama pull mxbai-embed-large") {
		t.Errorf("eval with a missing embedding model: %d %q", code, errOut)
	}
}

// TestChatPlainSaysWhatMemoryDid: without --json, what procedural memory
// did for a request is said on standard error, as the window's badges
// say it: learned, recalled, used, marked wrong by the model, declined.
func TestChatPlainSaysWhatMemoryDid(t *testing.T) {
	const forgetMe, noTools = "summarise the notes of this folder, forget the old way", "summarise the notes of this folder in your head"
	var id string
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Respond: func(req api.ChatRequest) ollamatest.Reply {
		var request string
		results := 0
		for _, m := range req.Messages {
			switch m.Role {
			case "user":
				request, results = m.Content, 0
			case "tool":
				results++
			}
		}
		switch {
		case request == noTools:
			return ollamatest.Text("You have one note.")
		case request == forgetMe && results == 0:
			return ollamatest.Tools(ollamatest.Call{Name: "memory.procedures.forget", Args: map[string]any{"id": id, "reason": "wrong folder"}})
		case request == forgetMe:
			return ollamatest.Text("Noted.")
		case results < 3:
			return chainReplies()[results]
		}
		return ollamatest.Text("Done: summary.txt is written.")
	}})
	data, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := func(request string) string {
		t.Helper()
		code, out, errOut := run("--data-dir", data, "--ollama", srv.URL, "--model", "m", "chat", "--workspace", ws, "--approve", "all", request)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s %s", request, code, out, errOut)
		}
		if strings.Contains(out, "shrimp: ") {
			t.Fatalf("%q: memory notes on standard output, which is the answer's:\n%s", request, out)
		}
		return errOut
	}
	first := plain("summarize the notes in this folder into summary.txt")
	m := regexp.MustCompile(`shrimp: learned procedure (p-[0-9a-f]+) from this request: fs\.list → fs\.read → fs\.write`).FindStringSubmatch(first)
	if m == nil || strings.Contains(first, "recalled") {
		t.Fatalf("first request's notes:\n%s", first)
	}
	id = m[1]
	recalled := "shrimp: recalled procedure " + id + ` (learned from "summarize the notes in this folder into summary.txt"): fs.list → fs.read → fs.write`
	steps := []struct {
		request string
		want    []string
	}{
		{"into summary.txt, summarise the notes of this folder please", []string{
			recalled,
			"shrimp: this request counts as a use of procedure " + id + ": fs.list → fs.read → fs.write (used once)",
		}},
		{forgetMe, []string{
			recalled,
			"shrimp: the model marked procedure " + id + " as wrong: wrong folder (demerits: 1)",
		}},
		{noTools, []string{
			recalled,
			"shrimp: the recalled procedure " + id + " was not used, so it is not offered for this request again (shrimp procedures restore " + id + " offers it again)",
		}},
	}
	for _, s := range steps {
		got := plain(s.request)
		for _, w := range s.want {
			if !strings.Contains(got, w+"\n") {
				t.Errorf("%q: standard error lacks %q:\n%s", s.request, w, got)
			}
		}
		if strings.Contains(got, "learned procedure") {
			t.Errorf("%q: a second procedure was learned:\n%s", s.request, got)
		}
	}
}

// TestMadeUpToolIsNotLearned: a small model's call of a tool that does not
// exist (fs.readfile) is answered with the tools there are and is no step
// of the procedure learned from the run, which is active and recalled: in
// its chain it left the procedure stale from the start, never recalled.
func TestMadeUpToolIsNotLearned(t *testing.T) {
	replies := append([]ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.readfile", Args: map[string]any{"path": "notes.txt"}}),
	}, chainReplies()...)
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: append(replies, chainReplies()...)})
	data, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "summarize the notes in this folder into summary.txt")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := r.data(t, "agent:tool-result")
	if len(res) != 4 || res[0]["malformed"] != true || !strings.Contains(res[0]["error"].(string), "fs.read") {
		t.Fatalf("the made-up call's result: %v", res[0])
	}
	learned := r.data(t, "memory:procedure-learned")
	if len(learned) != 1 || learned[0]["chain"] != "fs.list → fs.read → fs.write" {
		t.Fatalf("learned %v, want the chain of the calls that ran", learned)
	}
	_, out, _ := run("--data-dir", data, "procedures", "list", "--json")
	var list []map[string]any
	if json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0]["status"] != "active" {
		t.Fatalf("procedures: %s", out)
	}
	r2 := chat(t, data, srv.URL, ws, "--model", "m", "--approve", "all", "into summary.txt, summarise the notes of this folder please")
	if rec := r2.data(t, "memory:procedure-recalled"); r2.code != 0 || len(rec) != 1 {
		t.Fatalf("not recalled: %v %s", rec, r2.stderr)
	}
}
