package desktop

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/hooks"
	"github.com/shrimp-harness/shrimp/backend/mcp"
	"github.com/shrimp-harness/shrimp/backend/session"
	"github.com/shrimp-harness/shrimp/internal/mcptest"
	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// openWindowApp opens an app on the scripted server with the UI bridge
// attached to a recorder, as the window would be.
func openWindowApp(t *testing.T, host, model string) (*app.App, *emitRecorder) {
	t.Helper()
	a, err := app.Open(app.Config{DataDir: t.TempDir(), OllamaHost: host, Model: model}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	rec := &emitRecorder{}
	br := NewBridge(5 * time.Millisecond)
	br.Attach(rec.emit)
	if _, err := br.Subscribe(a.Bus); err != nil {
		t.Fatal(err)
	}
	return a, rec
}

func waitFor(t *testing.T, rec *emitRecorder, typ agent.Type) agent.Event {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		for _, e := range rec.events() {
			if e.Type == typ {
				return e
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %s event reached the window", typ)
	return agent.Event{}
}

// TestChatWithApprovalDialog: a request from the window asks for approval,
// the window's answer lets the tool run, and the events reach the window.
func TestChatWithApprovalDialog(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": "hello.txt", "content": "hi"}}),
		ollamatest.Text("Written <hello.txt> & done."),
	}})
	a, rec := openWindowApp(t, srv.URL, "m")
	approvals := NewApprovals()
	chat := NewChat(a, approvals)
	ws := t.TempDir()

	if _, err := chat.Send(SendRequest{Text: "  "}); err == nil {
		t.Fatal("empty request accepted")
	}
	res, err := chat.Send(SendRequest{Text: "write hello.txt", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	req := waitFor(t, rec, approval.TypeRequested)
	var r approval.Request
	b, _ := json.Marshal(req.Data)
	_ = json.Unmarshal(b, &r)
	if r.Tool != "fs.write" || req.Session != res.SessionID {
		t.Fatalf("approval request %+v", req)
	}
	if err := approvals.Resolve(Answer{ID: "nope", Allow: true}); err == nil {
		t.Fatal("resolving an unknown approval succeeded")
	}
	if err := approvals.Resolve(Answer{ID: r.ID, Allow: true}); err == nil {
		t.Fatal("an answer without its session reached a question")
	}
	// An allow must name the question the user read: one that names
	// none, or another (a question that ended under the same call id),
	// allows nothing and leaves the question pending.
	for _, stale := range []string{"", "an-earlier-question"} {
		if err := approvals.Resolve(Answer{Session: req.Session, ID: r.ID, Question: stale, Allow: true}); err == nil || !strings.Contains(err.Error(), "nothing was allowed") {
			t.Fatalf("an allow naming question %q: %v", stale, err)
		}
	}
	exact, err := approvals.Request(req.Session, r.ID)
	if err != nil || exact.Question == "" || r.Question != "" {
		t.Fatalf("the pending question %q (%v); the event's %q", exact.Question, err, r.Question)
	}
	if err := approvals.Resolve(Answer{Session: req.Session, ID: r.ID, Question: exact.Question, Allow: true}); err != nil {
		t.Fatal(err)
	}
	end := waitFor(t, rec, agent.TypeRunEnded)
	if end.Data.(agent.RunEnded).Status != agent.StatusResponded {
		t.Fatalf("run ended %+v", end.Data)
	}
	if got, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(got) != "hi" {
		t.Fatalf("file %q %v", got, err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for chat.Running(res.SessionID) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if chat.Running(res.SessionID) {
		t.Fatal("run still marked running")
	}
	// Events published after agent:run-ended (usage) land asynchronously.
	if err := a.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := chat.Stop(res.SessionID); err == nil {
		t.Fatal("stopping a finished run succeeded")
	}
	sessions := NewSessions(a)
	list, err := sessions.List(200)
	if err != nil || len(list.Sessions) != 1 || list.Total != 1 {
		t.Fatalf("sessions %v %v", list, err)
	}
	evs, err := sessions.Events(res.SessionID, 0)
	if err != nil || len(evs) < 5 || evs[0].Type != string(agent.TypeRunStarted) {
		t.Fatalf("stored events %v %v", evs, err)
	}
	if found, err := sessions.Search("HELLO.txt", 200); err != nil || len(found.Sessions) != 1 || found.Total != 1 {
		t.Fatalf("search: %v %v", found, err)
	}
	if found, _ := sessions.Search("no such words", 200); len(found.Sessions) != 0 || found.Total != 0 {
		t.Fatalf("search matched %v", found)
	}
	if md, err := sessions.Export(res.SessionID, "md"); err != nil || !strings.Contains(md, "## You\n\nwrite hello.txt") {
		t.Fatalf("export md: %q %v", md, err)
	}
	// The JSON download writes "<", ">" and "&" as they are, as the
	// terminal's export does, in the stored events too.
	if js, err := sessions.Export(res.SessionID, "json"); err != nil || !json.Valid([]byte(js)) || !strings.Contains(js, `"text": "Written <hello.txt> & done."`) || strings.Contains(js, `\u003c`) {
		t.Fatalf("export json: %v\n%s", err, js)
	}
	if _, err := sessions.Export(res.SessionID, "pdf"); err == nil {
		t.Fatal("export pdf accepted")
	}
	// Streamed pieces open as one event per run of them (TestCoalesce).
	opened, err := sessions.Open(res.SessionID)
	if err != nil || len(opened.Events) == 0 || len(opened.Events) > len(evs) || opened.Events[len(opened.Events)-1].Seq != evs[len(evs)-1].Seq {
		t.Fatalf("open: %d events of %d, %v", len(opened.Events), len(evs), err)
	}
	if err := sessions.Delete(res.SessionID); err != nil {
		t.Fatal(err)
	}
	if list, _ := sessions.List(200); len(list.Sessions) != 0 || list.Total != 0 {
		t.Fatalf("after delete: %v", list)
	}

	settings := NewSettings(a, nil)
	wsDir := t.TempDir()
	if err := settings.SetRule(wsDir, "fs.write", "always"); err != nil {
		t.Fatal(err)
	}
	if err := settings.SetRule(wsDir, "fs.write", "sometimes"); err == nil {
		t.Fatal("bad rule accepted")
	}
	if err := settings.SetRule("", "fs.write", "always"); err == nil {
		t.Fatal("an always rule for every workspace accepted")
	}
	rules, _ := settings.Rules()
	if len(rules) != 1 || rules[0].Rule != "always" || rules[0].Workspace != app.WorkspaceKey(wsDir) {
		t.Fatalf("rules %v", rules)
	}
	if err := settings.SetRule(wsDir, "fs.write", ""); err != nil {
		t.Fatal(err)
	}
	if rules, _ := settings.Rules(); len(rules) != 0 {
		t.Fatalf("revoked rule still there: %v", rules)
	}
	if err := settings.SetNumCtx("m", 100); err == nil {
		t.Fatal("tiny num_ctx accepted")
	}
	if err := settings.SetNumCtx("m", 4096); err != nil {
		t.Fatal(err)
	}
	if n, _ := settings.NumCtx("m"); n != 4096 {
		t.Fatalf("num_ctx %d", n)
	}
	if _, err := settings.SetOllamaHost("ftp://nope"); err == nil {
		t.Fatal("bad host accepted")
	}
	if h, err := settings.SetOllamaHost("127.0.0.1:9"); err != nil || h != "http://127.0.0.1:9" || a.Model.Host() != h {
		t.Fatalf("set host: %q %v", h, err)
	}
	if saved, _ := a.Store.Setting(context.Background(), app.SettingOllamaHost); saved != "http://127.0.0.1:9" {
		t.Fatalf("saved host %q", saved)
	}
}

func TestStopCancelsTheRun(t *testing.T) {
	slow := ollamatest.Reply{Delay: 100 * time.Millisecond}
	for range 100 {
		slow.Text = append(slow.Text, "word ")
	}
	// By its session, or by the token it was sent with (the window's
	// Stop before Send's answer reached it).
	for _, byToken := range []bool{false, true} {
		srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{slow}})
		a, rec := openWindowApp(t, srv.URL, "m")
		chat := NewChat(a, NewApprovals())
		res, err := chat.Send(SendRequest{Text: "talk", Workspace: t.TempDir(), Token: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, rec, agent.TypeToken)
		stop := func() error { return chat.Stop(res.SessionID) }
		if byToken {
			stop = func() error { return chat.StopSending("t1") }
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		end := waitFor(t, rec, agent.TypeRunEnded)
		if end.Data.(agent.RunEnded).Status != agent.StatusCancelled {
			t.Fatalf("by token %v: run ended %+v", byToken, end.Data)
		}
	}
}

// TestStopAllEndsTheRuns: closing the window stops its running requests
// and returns once each one's end is stored as stopped (not left for the
// next open to find interrupted), the running command ended too.
func TestStopAllEndsTheRuns(t *testing.T) {
	ws := t.TempDir()
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": "echo $$ > pid; sleep 300"}}),
	}})
	a, rec := openWindowApp(t, srv.URL, "m")
	chat := NewChat(a, NewApprovals())
	res, err := chat.Send(SendRequest{Text: "wait a while", Workspace: ws, Approve: "all"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, rec, agent.TypeToolCall)
	deadline := time.Now().Add(time.Minute)
	for b, _ := os.ReadFile(filepath.Join(ws, "pid")); !strings.HasSuffix(string(b), "\n"); b, _ = os.ReadFile(filepath.Join(ws, "pid")) {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	chat.StopAll()
	events, err := a.Store.Events(context.Background(), res.SessionID, 0)
	if err != nil || len(events) == 0 {
		t.Fatalf("events: %v", err)
	}
	// The loop's last event (subscribers such as usage may add theirs
	// after it, on their own time).
	at := len(events) - 1
	for at > 0 && events[at].Type.Area() != "agent" {
		at--
	}
	last := events[at]
	var ended agent.RunEnded
	if raw, _ := last.RawData(); last.Type != agent.TypeRunEnded || json.Unmarshal(raw, &ended) != nil || ended.Status != agent.StatusCancelled {
		t.Fatalf("the run's last stored event when StopAll returned: %s %s", last.Type, last.Data)
	}
	if chat.Running(res.SessionID) {
		t.Fatal("still running after StopAll")
	}
}

// TestInstructionsListedAndOpened: the window lists the workspace's
// AGENTS.md and opens it through the desktop; other paths are refused.
func TestInstructionsListedAndOpened(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m"})
	a, _ := openWindowApp(t, srv.URL, "")
	c := NewChat(a, nil)
	var opened []string
	c.openURL = func(u string) { opened = append(opened, u) }
	ws := t.TempDir()
	path := filepath.Join(ws, "AGENTS.md")
	if err := os.WriteFile(path, []byte("Use tabs."), 0o644); err != nil {
		t.Fatal(err)
	}
	v := c.Instructions(ws)
	var found bool
	for _, f := range v.Files {
		found = found || (f.Path == path && f.Bytes == 9)
	}
	if !found {
		t.Fatalf("instructions %+v", v)
	}
	if err := c.OpenInstructions(ws, path); err != nil || len(opened) != 1 || opened[0] != "file://"+path {
		t.Fatalf("open: %v %v", err, opened)
	}
	if err := c.OpenInstructions(ws, "/etc/passwd"); err == nil {
		t.Fatal("opened a path that is no instruction file")
	}
}

// TestApprovalDialogShowsWhatRuns: the approval:requested event is the
// record's, redacted, and a redaction hides more than a secret when the
// secret's pattern swallows what follows it. What the dialog shows and the
// user approves comes from Approvals.Request: the command as it will run.
func TestApprovalDialogShowsWhatRuns(t *testing.T) {
	// A secret-looking assignment whose value runs on into a second
	// command (the value's characters include & $ ~ /).
	command := "API_" + "TOKEN=x1y2z3w4&&touch$IFS~/pwned"
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: "shell.run", Args: map[string]any{"command": command}}),
		ollamatest.Text("Denied, then."),
	}})
	a, rec := openWindowApp(t, srv.URL, "m")
	approvals := NewApprovals()
	chat := NewChat(a, approvals)
	if _, err := chat.Send(SendRequest{Text: "set the token", Workspace: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	ev := waitFor(t, rec, approval.TypeRequested)
	var recorded approval.Request
	b, _ := json.Marshal(ev.Data)
	_ = json.Unmarshal(b, &recorded)
	if strings.Contains(recorded.Shown, "touch") {
		t.Fatalf("the recorded request shows %q: the redaction no longer hides the second command, so this test no longer tests anything", recorded.Shown)
	}
	exact, err := approvals.Request(ev.Session, recorded.ID)
	if err != nil {
		t.Fatal(err)
	}
	if exact.Shown != command || exact.Tool != "shell.run" || !strings.Contains(string(exact.Arguments), "touch") {
		t.Fatalf("the dialog would show %q (arguments %s), want the command as it runs: %q", exact.Shown, exact.Arguments, command)
	}
	if err := approvals.Resolve(Answer{Session: ev.Session, ID: recorded.ID}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, rec, agent.TypeRunEnded)
	if _, err := approvals.Request(ev.Session, recorded.ID); err == nil {
		t.Fatal("an answered request is still offered to the dialog")
	}
}

// TestApprovalsOfTwoSessions: two sessions run at once and each asks about
// its first tool call, whose ids are the same (a model numbers its calls
// per reply; Shrimp numbers them per run when it gives none). Each answer
// reaches the call it was given for.
func TestApprovalsOfTwoSessions(t *testing.T) {
	write := func(name string) []ollamatest.Reply {
		return []ollamatest.Reply{
			ollamatest.Tools(ollamatest.Call{Name: "fs.write", Args: map[string]any{"path": name, "content": "x"}}),
			ollamatest.Text("Done."),
		}
	}
	srv := ollamatest.New(t, ollamatest.Model{Name: "a", Replies: write("a.txt")}, ollamatest.Model{Name: "b", Replies: write("b.txt")})
	a, rec := openWindowApp(t, srv.URL, "a")
	approvals := NewApprovals()
	chat := NewChat(a, approvals)
	wsA, wsB := t.TempDir(), t.TempDir()
	resA, err := chat.Send(SendRequest{Text: "write a", Workspace: wsA, Model: "a"})
	if err != nil {
		t.Fatal(err)
	}
	resB, err := chat.Send(SendRequest{Text: "write b", Workspace: wsB, Model: "b"})
	if err != nil {
		t.Fatal(err)
	}
	// Both questions are out.
	asked := map[string]approval.Request{}
	deadline := time.Now().Add(2 * time.Minute)
	for len(asked) < 2 && time.Now().Before(deadline) {
		for _, e := range rec.events() {
			if e.Type == approval.TypeRequested {
				var r approval.Request
				b, _ := json.Marshal(e.Data)
				_ = json.Unmarshal(b, &r)
				asked[e.Session] = r
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(asked) != 2 || asked[resA.SessionID].ID != asked[resB.SessionID].ID {
		t.Fatalf("questions %+v: want one per session, with the same call id", asked)
	}
	// The dialog reads and answers each by its session.
	for _, s := range []struct {
		session, path string
		allow         bool
	}{{resA.SessionID, "a.txt", true}, {resB.SessionID, "b.txt", false}} {
		r, err := approvals.Request(s.session, asked[s.session].ID)
		if err != nil || !strings.Contains(string(r.Arguments), s.path) {
			t.Fatalf("the dialog would show %s for %s (%v)", r.Arguments, s.path, err)
		}
		if err := approvals.Resolve(Answer{Session: s.session, ID: asked[s.session].ID, Question: r.Question, Allow: s.allow}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{resA.SessionID, resB.SessionID} {
		for chat.Running(id) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	_, errA := os.Stat(filepath.Join(wsA, "a.txt"))
	_, errB := os.Stat(filepath.Join(wsB, "b.txt"))
	if errA != nil || errB == nil {
		t.Fatalf("allowed a.txt written: %v; denied b.txt written: %v", errA == nil, errB == nil)
	}
}

// TestToolQuestionInTheWindow: an MCP server's question during a call
// reaches the window as a tool:question event; the dialog reads it whole
// from Question, an answer that does not fit is refused (the question
// still waits), and the answer that fits goes to the server.
func TestToolQuestionInTheWindow(t *testing.T) {
	approvals, session, asked, rec := askedInTheWindow(t, "mcp.t.order", "order a shirt")
	q, err := approvals.Question(session, asked.ID)
	if err != nil || q.Tool != "mcp.t.order" || len(q.Fields) != 4 {
		t.Fatalf("question %+v %v", q, err)
	}
	if err := approvals.AnswerQuestion(session, asked.ID, "accept", map[string]string{"count": "0"}); err == nil || err.Error() != "How many: 0 is outside 1 to 9" {
		t.Errorf("an answer out of bounds: %v", err)
	}
	if err := approvals.AnswerQuestion(session, asked.ID, "accept", map[string]string{"count": "2", "size": "l"}); err != nil {
		t.Fatal(err)
	}
	result := waitFor(t, rec, agent.TypeToolResult)
	b, _ := json.Marshal(result.Data)
	if !strings.Contains(string(b), `accept {\"count\":2,\"size\":\"l\"}`) {
		t.Errorf("result %s", b)
	}
	if _, err := approvals.Question(session, asked.ID); err == nil {
		t.Error("an answered question still waits")
	}
}

// TestPageQuestionInTheWindow: a page a server asks the user to open is
// opened in the browser once the user agrees, and not before.
func TestPageQuestionInTheWindow(t *testing.T) {
	approvals, session, asked, rec := askedInTheWindow(t, "mcp.t.connect", "connect my calendar")
	var opened []string
	approvals.openURL = func(u string) { opened = append(opened, u) }
	q, err := approvals.Question(session, asked.ID)
	if err != nil || q.URL != mcptest.ConnectURL || len(q.Fields) != 0 || len(opened) != 0 {
		t.Fatalf("question %+v %v, opened %v", q, err, opened)
	}
	if err := approvals.AnswerQuestion(session, asked.ID, "accept", nil); err != nil {
		t.Fatal(err)
	}
	if len(opened) != 1 || opened[0] != mcptest.ConnectURL {
		t.Errorf("opened %v", opened)
	}
	result := waitFor(t, rec, agent.TypeToolResult)
	if b, _ := json.Marshal(result.Data); !strings.Contains(string(b), "page accept") {
		t.Errorf("result %s", b)
	}
}

// askedInTheWindow sends a request whose scripted model calls a tool of
// the test MCP server that asks the user something, and returns when the
// window has been told of the question.
func askedInTheWindow(t *testing.T, toolName, request string) (*Approvals, string, app.ToolQuestion, *emitRecorder) {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", TrainedCtx: 40960, Replies: []ollamatest.Reply{
		ollamatest.Tools(ollamatest.Call{Name: toolName, Args: map[string]any{}}), ollamatest.Text("Done."),
	}})
	a, rec := openWindowApp(t, srv.URL, "m")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := (mcp.Config{Servers: map[string]mcp.Server{"t": {Command: exe, Env: map[string]string{mcptest.Env: "1"}}}}).Save(a.MCPPath()); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.SetNumCtx(context.Background(), "m", 16384); err != nil {
		t.Fatal(err)
	}
	approvals := NewApprovals()
	res, err := NewChat(a, approvals).Send(SendRequest{Text: request, Workspace: t.TempDir(), Approve: "all"})
	if err != nil {
		t.Fatal(err)
	}
	ev := waitFor(t, rec, app.TypeToolQuestion)
	var asked app.ToolQuestion
	b, _ := json.Marshal(ev.Data)
	_ = json.Unmarshal(b, &asked)
	return approvals, res.SessionID, asked, rec
}

// TestLatestSearchOnly: searches run one at a time, and one a newer
// search superseded while it waited is dropped without running.
func TestLatestSearchOnly(t *testing.T) {
	var l latestOnly
	release := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- l.do(func() error { <-release; return nil })
	}()
	// Wait until the first call runs, then queue two more behind it.
	deadline := time.Now().Add(time.Minute)
	for l.latest.Load() != 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	ran := make(chan int, 2)
	results := make(chan error, 2)
	for i := 2; i <= 3; i++ {
		go func() { results <- l.do(func() error { ran <- i; return nil }) }()
		for l.latest.Load() != uint64(i) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("the running search: %v", err)
	}
	var superseded, done int
	for range 2 {
		switch err := <-results; {
		case errors.Is(err, errSuperseded):
			superseded++
		case err == nil:
			done++
		default:
			t.Fatal(err)
		}
	}
	if superseded != 1 || done != 1 || <-ran != 3 {
		t.Fatalf("superseded %d, ran %d; want the second dropped and the third run", superseded, done)
	}
}

// TestSendImages: images the window attaches (base64, as the binding
// takes them) reach a model that can see, and the window shows them again
// from the run's start by their key; what is no image, or damaged on the
// way, is refused before anything runs.
func TestSendImages(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Vision: true, Replies: []ollamatest.Reply{ollamatest.Text("a grey square")}})
	a, rec := openWindowApp(t, srv.URL, "m")
	chat := NewChat(a, NewApprovals())
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 6))); err != nil {
		t.Fatal(err)
	}
	data := base64.StdEncoding.EncodeToString(b.Bytes())
	for _, bad := range []struct {
		up   ImageUpload
		want string
	}{
		{ImageUpload{Name: "notes.txt", Data: base64.StdEncoding.EncodeToString([]byte("words"))}, "attach notes.txt: not a PNG, JPEG, GIF or WebP image"},
		{ImageUpload{Name: "cut.png", Data: data[:len(data)-3] + "!"}, "attach cut.png: the window sent it damaged"},
	} {
		if _, err := chat.Send(SendRequest{Text: "what is this", Workspace: t.TempDir(), Images: []ImageUpload{bad.up}}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Fatalf("Send with %s: %v, want %q", bad.up.Name, err, bad.want)
		}
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("a refused request reached Ollama")
	}
	if _, err := chat.Send(SendRequest{Text: "what is this", Workspace: t.TempDir(), Images: []ImageUpload{{Name: "shot.png", Data: data}}}); err != nil {
		t.Fatal(err)
	}
	started := waitFor(t, rec, agent.TypeRunStarted).Data.(agent.RunStarted)
	waitFor(t, rec, agent.TypeRunEnded)
	if len(started.Images) != 1 || started.Images[0].Width != 8 {
		t.Fatalf("run start %+v, want shot.png 8 wide", started)
	}
	url, err := NewSessions(a).Image(started.Images[0].SHA256)
	if err != nil || url != "data:image/png;base64,"+data {
		t.Fatalf("Image = %.60s, %v; want the PNG as a data URL", url, err)
	}
	if _, err := NewSessions(a).Image("0000"); err == nil {
		t.Fatal("an image no session holds was given")
	}
}

// TestRetryInTheWindow: the window's retry (no text, the request's run)
// asks the request again with its image, from a history without the
// replaced attempt, and the window hears of the replacement; a retry
// without its session is refused.
func TestRetryInTheWindow(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Vision: true, Replies: []ollamatest.Reply{ollamatest.Text("a cat"), ollamatest.Text("a grey square")}})
	a, rec := openWindowApp(t, srv.URL, "m")
	chat := NewChat(a, NewApprovals())
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 6))); err != nil {
		t.Fatal(err)
	}
	res, err := chat.Send(SendRequest{Text: "what is this", Workspace: t.TempDir(), Images: []ImageUpload{{Name: "shot.png", Data: base64.StdEncoding.EncodeToString(b.Bytes())}}})
	if err != nil {
		t.Fatal(err)
	}
	started := waitFor(t, rec, agent.TypeRunStarted)
	// Sent as soon as the window hears the run ended (a retry clicked at
	// once): it waits for the run to let go of its session.
	waitFor(t, rec, agent.TypeRunEnded)
	if _, err := chat.Send(SendRequest{Replace: started.Seq}); err == nil || !strings.Contains(err.Error(), "names the session") {
		t.Fatalf("a retry without its session: %v", err)
	}
	if _, err := chat.Send(SendRequest{SessionID: res.SessionID, Replace: started.Seq, Workspace: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	replaced := waitFor(t, rec, session.TypeReplaced).Data.(session.Replaced)
	if replaced.Run != started.Seq || replaced.Messages != 2 {
		t.Errorf("the replacement the window heard of: %+v", replaced)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for len(srv.Requests()) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests reached Ollama, want 2", len(reqs))
	}
	msgs := reqs[1].Chat.Messages
	last := msgs[len(msgs)-1]
	if last.Role != "user" || last.Content != "what is this" || len(last.Images) != 1 || !bytes.Equal(last.Images[0], b.Bytes()) {
		t.Errorf("the retry sent %+v", last)
	}
	for _, m := range msgs {
		if m.Content == "a cat" {
			t.Error("the retry's model was sent the replaced answer")
		}
	}
}

// TestSlowHookNamedInTheWindow: the hooks a request waits for before its
// run starts (session-start, pre-request) are named to the window as they
// start and end, with the token the window sent, so a slow one shows as
// what it is rather than as a model that does not answer; Send returns
// once they are done.
func TestSlowHookNamedInTheWindow(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Text: []string{"Hello."}}, {Text: []string{"Hello again."}}}})
	a, rec := openWindowApp(t, srv.URL, "m")
	ws := t.TempDir()
	cfg := hooks.Config{}
	for _, h := range []hooks.Hook{
		{Event: hooks.SessionStart, Command: "/bin/sh", Args: []string{"-c", "echo on-call: Ana"}},
		{Event: hooks.PreRequest, Command: "/bin/sh", Args: []string{"-c", "cat > /dev/null"}},
	} {
		if _, err := cfg.Add(h); err != nil {
			t.Fatal(err)
		}
	}
	if err := cfg.Save(a.Hooks.File); err != nil {
		t.Fatal(err)
	}
	chat := NewChat(a, NewApprovals())
	var mu sync.Mutex
	var told []Preparing
	chat.tell = func(name string, data ...any) {
		if name != PreparingName || len(data) != 1 {
			t.Errorf("told %s %v", name, data)
			return
		}
		mu.Lock()
		told = append(told, data[0].(Preparing))
		mu.Unlock()
	}
	if _, err := chat.Send(SendRequest{Text: "hi", Workspace: ws, Token: "w7"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := slices.Clone(told)
	mu.Unlock()
	var events []string
	for _, p := range got {
		if p.Token != "w7" || !strings.HasPrefix(p.Hook, "hook ") || !strings.Contains(p.Hook, "/bin/sh") {
			t.Errorf("told %+v", p)
		}
		events = append(events, fmt.Sprintf("%s %v", p.Event, p.Done))
	}
	want := []string{"session-start false", "session-start true", "pre-request false", "pre-request true"}
	if !slices.Equal(events, want) {
		t.Fatalf("told before Send returned: %q, want %q", events, want)
	}
	waitFor(t, rec, agent.TypeRunEnded)

	// A request sent without a token (another caller) is not named.
	mu.Lock()
	told = nil
	mu.Unlock()
	res, err := chat.Send(SendRequest{Text: "hi again", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(told) != 0 {
		t.Errorf("told without a token: %+v", told)
	}
	mu.Unlock()
	deadline := time.Now().Add(2 * time.Minute)
	for chat.Running(res.SessionID) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// TestStopWhileAHookRuns: the window's Stop reaches a request whose
// session-start hook still runs (it has no session to stop yet): the hook
// is ended and Send says the request was stopped before it started.
func TestStopWhileAHookRuns(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m", Replies: []ollamatest.Reply{{Text: []string{"Hello."}}}})
	a, _ := openWindowApp(t, srv.URL, "m")
	cfg := hooks.Config{}
	if _, err := cfg.Add(hooks.Hook{Event: hooks.SessionStart, Timeout: 600, Command: "/bin/sh", Args: []string{"-c", "sleep 600"}}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(a.Hooks.File); err != nil {
		t.Fatal(err)
	}
	chat := NewChat(a, NewApprovals())
	started := make(chan struct{}, 1)
	chat.tell = func(_ string, data ...any) {
		if p := data[0].(Preparing); !p.Done {
			started <- struct{}{}
		}
	}
	sent := make(chan error, 1)
	go func() {
		_, err := chat.Send(SendRequest{Text: "hi", Workspace: t.TempDir(), Token: "w1"})
		sent <- err
	}()
	select {
	case <-started:
	case <-time.After(2 * time.Minute):
		t.Fatal("the hook was never named")
	}
	if err := chat.StopSending("w1"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-sent:
		if err == nil || !strings.Contains(err.Error(), "stopped while its session-start hooks ran") {
			t.Fatalf("Send: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Send did not return after the stop")
	}
	if err := chat.StopSending("w1"); err == nil {
		t.Fatal("a request that ended was stopped again")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
}
