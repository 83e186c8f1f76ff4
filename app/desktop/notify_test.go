package desktop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/bus"
	"github.com/shrimp-harness/shrimp/internal/sessionbus"
)

// notificationService is a desktop notification service on the test's
// session bus: it records what it is asked and can say a notification
// was clicked.
type notificationService struct {
	conn   *dbus.Conn
	markup bool

	mu     sync.Mutex
	next   uint32
	shown  []shownNotification
	closed []uint32
}

type shownNotification struct {
	ID            uint32
	App, Icon     string
	Summary, Body string
	Actions       []string
	Hints         map[string]dbus.Variant
}

func (s *notificationService) GetCapabilities() ([]string, *dbus.Error) {
	if s.markup {
		return []string{"actions", "body", "body-markup"}, nil
	}
	return []string{"actions", "body"}, nil
}

func (s *notificationService) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	s.shown = append(s.shown, shownNotification{s.next, app, icon, summary, body, actions, hints})
	return s.next, nil
}

func (s *notificationService) CloseNotification(id uint32) *dbus.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = append(s.closed, id)
	return nil
}

func (s *notificationService) state() ([]shownNotification, []uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]shownNotification(nil), s.shown...), append([]uint32(nil), s.closed...)
}

func (s *notificationService) click(t *testing.T, id uint32) {
	t.Helper()
	if err := s.conn.Emit(notifyPath, notifyIface+".ActionInvoked", id, "default"); err != nil {
		t.Fatal(err)
	}
}

// startNotificationService puts a notification service on the session bus.
func startNotificationService(t *testing.T, markup bool) *notificationService {
	t.Helper()
	conn, err := dbus.Connect(sessionbus.Address())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &notificationService{conn: conn, markup: markup}
	if err := conn.Export(s, notifyPath, notifyIface); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(notifyName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("take %s: %v %v", notifyName, reply, err)
	}
	return s
}

func event(session string, typ agent.Type, data any) agent.Event {
	raw, _ := json.Marshal(data)
	return agent.Event{Session: session, Type: typ, Data: json.RawMessage(raw)}
}

// TestNotifier: while the window is in the background, a question that
// waits and a run that ends are told to the desktop, with the body
// escaped for the service and the question withdrawn once answered; a
// click brings the window forward on its session; while the window has
// the focus nothing is sent.
func TestNotifier(t *testing.T) {
	sessionbus.Private(t)
	svc := startNotificationService(t, true)
	shown := make(chan string, 4)
	n := NewNotifier(t.Logf)
	n.OnShow(func(s string) { shown <- s })
	defer n.Close()
	ctx := context.Background()
	ask := event("s1", approval.TypeRequested, approval.Request{ID: "c1", Tool: "shell.run", Asked: true,
		Shown: "echo '<b>hi</b>' && printf '\x1b[2J' > out.txt\nsecond line"})

	// In front: nothing.
	if err := n.handle(ctx, ask); err != nil {
		t.Fatal(err)
	}
	if got, _ := svc.state(); len(got) != 0 {
		t.Fatalf("sent while the window has the focus: %+v", got)
	}

	n.Focused(false)
	// A call the mode or a rule decides is announced too, unasked:
	// nobody waits for it, so the desktop hears nothing.
	if err := n.handle(ctx, event("s1", approval.TypeRequested, approval.Request{ID: "c0", Tool: "fs.read", Arguments: json.RawMessage(`{"path":"a"}`)})); err != nil {
		t.Fatal(err)
	}
	if err := n.handle(ctx, ask); err != nil {
		t.Fatal(err)
	}
	got, _ := svc.state()
	if len(got) != 1 {
		t.Fatalf("%d notifications, want 1", len(got))
	}
	q := got[0]
	if q.Summary != "Shrimp is waiting for your answer" || !strings.HasPrefix(q.Body, "May it run shell.run? echo '&lt;b&gt;hi&lt;/b&gt;' &amp;&amp; printf") ||
		strings.Contains(q.Body, "\x1b") || !strings.HasSuffix(q.Body, "&gt; out.txt second line") {
		t.Errorf("question: %q / %q", q.Summary, q.Body)
	}
	if q.Hints["desktop-entry"].Value() != desktopID || q.Icon != desktopID || q.App != "Shrimp" || len(q.Actions) != 2 || q.Actions[0] != "default" {
		t.Errorf("question's app, icon, actions or hints: %+v", q)
	}

	// A click brings the window forward on the session.
	svc.click(t, q.ID)
	select {
	case s := <-shown:
		if s != "s1" {
			t.Errorf("click showed session %q, want s1", s)
		}
	case <-time.After(time.Minute):
		t.Fatal("a click did not bring the window forward")
	}

	// Answered: withdrawn.
	if err := n.handle(ctx, event("s1", approval.TypeDecided, approval.Decided{ID: "c1", Tool: "shell.run", Allow: true, By: "user"})); err != nil {
		t.Fatal(err)
	}
	if _, closed := svc.state(); len(closed) != 1 || closed[0] != q.ID {
		t.Errorf("closed %v, want [%d]", closed, q.ID)
	}

	// The run's end, with its request.
	if err := n.handle(ctx, event("s2", agent.TypeRunStarted, agent.RunStarted{Model: "m", Text: "tidy my downloads\nplease"})); err != nil {
		t.Fatal(err)
	}
	if err := n.handle(ctx, event("s2", agent.TypeRunEnded, agent.RunEnded{Status: agent.StatusResponded, ToolCalls: 3})); err != nil {
		t.Fatal(err)
	}
	if err := n.handle(ctx, event("s3", agent.TypeRunEnded, agent.RunEnded{Status: agent.StatusError, Error: "ollama: model \"x\" not found"})); err != nil {
		t.Fatal(err)
	}
	got, _ = svc.state()
	if len(got) != 3 {
		t.Fatalf("%d notifications, want 3", len(got))
	}
	if got[1].Summary != "Shrimp answered" || got[1].Body != "“tidy my downloads please”: answered after 3 tool calls" {
		t.Errorf("run's end: %q / %q", got[1].Summary, got[1].Body)
	}
	if got[2].Summary != "Shrimp's run failed" || got[2].Body != `ollama: model "x" not found` {
		t.Errorf("failed run: %q / %q", got[2].Summary, got[2].Body)
	}

	// A run that ends while its question waits takes the question away.
	if err := n.handle(ctx, event("s4", approval.TypeRequested, approval.Request{ID: "c9", Tool: "fs.write", Asked: true, Shown: "{\n  \"path\": \"a.txt\",\n  \"content\": \"" + strings.Repeat("x", 300) + "\"\n}"})); err != nil {
		t.Fatal(err)
	}
	if err := n.handle(ctx, event("s4", agent.TypeRunEnded, agent.RunEnded{Status: agent.StatusCancelled})); err != nil {
		t.Fatal(err)
	}
	got, closed := svc.state()
	if len(got) != 5 || len(closed) != 2 || closed[1] != got[3].ID {
		t.Fatalf("cancelled with a question open: shown %d, closed %v", len(got), closed)
	}
	if b := got[3].Body; !strings.HasPrefix(b, `May it run fs.write? { "path": "a.txt", "content": "xxx`) || !strings.HasSuffix(b, "x…") || len([]rune(b)) != len("May it run fs.write? ")+161 {
		t.Errorf("indented arguments: %q", b)
	}
}

// TestNotifierPlainBodies: a service that does not read markup gets the
// text as it is.
func TestNotifierPlainBodies(t *testing.T) {
	sessionbus.Private(t)
	svc := startNotificationService(t, false)
	n := NewNotifier(t.Logf)
	defer n.Close()
	n.Focused(false)
	if err := n.handle(context.Background(), event("s", approval.TypeRequested, approval.Request{ID: "c", Tool: "shell.run", Asked: true, Shown: "a && b > c"})); err != nil {
		t.Fatal(err)
	}
	if got, _ := svc.state(); len(got) != 1 || got[0].Body != "May it run shell.run? a && b > c" {
		t.Errorf("plain body: %+v", got)
	}
}

// TestNotifierWithoutService: no notification service on the bus, or no
// bus at all: nothing is sent, nothing fails, and the run's events go on.
func TestNotifierWithoutService(t *testing.T) {
	for _, bus := range []bool{true, false} {
		if bus {
			sessionbus.Private(t)
		} else {
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
			t.Setenv("XDG_RUNTIME_DIR", "")
		}
		var logged []string
		n := NewNotifier(func(msg string, _ ...any) { logged = append(logged, msg) })
		n.Focused(false)
		for range 3 {
			if err := n.handle(context.Background(), event("s", agent.TypeRunEnded, agent.RunEnded{Status: agent.StatusResponded})); err != nil {
				t.Fatal(err)
			}
		}
		if bus && (len(logged) != 1 || !strings.Contains(logged[0], "no notification service")) {
			t.Errorf("with a bus and no service, logged %q, want it said once", logged)
		}
		if !bus && len(logged) != 0 {
			t.Errorf("without a bus, logged %q", logged)
		}
		n.Close()
	}
}

// TestNotifierOnTheBus: the notifier follows the event bus.
func TestNotifierOnTheBus(t *testing.T) {
	sessionbus.Private(t)
	svc := startNotificationService(t, true)
	n := NewNotifier(t.Logf)
	defer n.Close()
	n.Focused(false)
	bs := bus.New[agent.Event]()
	if _, err := n.Subscribe(bs); err != nil {
		t.Fatal(err)
	}
	bs.Publish(agent.Event{Session: "s", Type: agent.TypeRunEnded, Data: agent.RunEnded{Status: agent.StatusResponded, ToolCalls: 1}})
	if err := bs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := svc.state(); len(got) != 1 || got[0].Body != "answered after 1 tool call" {
		t.Errorf("through the bus: %+v", got)
	}
}

// TestNotifierAttention: a question asked while the window is in the
// background asks for attention (without a notification service too),
// until the window has the focus or no question waits; one asked in front
// does not.
func TestNotifierAttention(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	var calls []bool
	n := NewNotifier(t.Logf)
	n.Attention = func(on bool) { calls = append(calls, on) }
	ctx := context.Background()
	ask := func(session, id string) {
		t.Helper()
		if err := n.handle(ctx, event(session, approval.TypeRequested, approval.Request{ID: id, Tool: "fs.write", Asked: true})); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(session, id string) {
		t.Helper()
		if err := n.handle(ctx, event(session, approval.TypeDecided, approval.Decided{ID: id, By: "user"})); err != nil {
			t.Fatal(err)
		}
	}
	ask("s1", "c1") // in front
	if len(calls) != 0 {
		t.Fatalf("in front: %v", calls)
	}
	answer("s1", "c1")
	calls = nil
	n.Focused(false)
	ask("s1", "c2")
	ask("s2", "c1")
	answer("s1", "c2") // one still waits
	if want := []bool{true, true}; fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Fatalf("two questions, one answered: %v, want %v", calls, want)
	}
	if err := n.handle(ctx, event("s2", agent.TypeRunEnded, agent.RunEnded{Status: agent.StatusCancelled})); err != nil {
		t.Fatal(err)
	}
	if calls[len(calls)-1] != false {
		t.Fatalf("no question waits, still asking: %v", calls)
	}
	ask("s3", "c1")
	n.Focused(true)
	if fmt.Sprint(calls[len(calls)-2:]) != "[true false]" {
		t.Fatalf("in front again: %v", calls)
	}
}

// TestNotifierToolQuestion: a tool's question waiting in the background is
// notified like an approval, and withdrawn once answered.
func TestNotifierToolQuestion(t *testing.T) {
	sessionbus.Private(t)
	svc := startNotificationService(t, false)
	n := NewNotifier(t.Logf)
	defer n.Close()
	n.Focused(false)
	ctx := context.Background()
	if err := n.handle(ctx, event("s", app.TypeToolQuestion, app.ToolQuestion{ID: "c1", Tool: "mcp.shop.order", Message: "Which shirt?\nWe ship tomorrow."})); err != nil {
		t.Fatal(err)
	}
	got, _ := svc.state()
	if len(got) != 1 || got[0].Summary != "Shrimp is waiting for your answer" || got[0].Body != "mcp.shop.order asks you: Which shirt? We ship tomorrow." {
		t.Fatalf("notifications: %+v", got)
	}
	if err := n.handle(ctx, event("s", app.TypeToolAnswered, app.ToolAnswered{ID: "c1", Tool: "mcp.shop.order", Action: "accept"})); err != nil {
		t.Fatal(err)
	}
	if _, closed := svc.state(); len(closed) != 1 || closed[0] != got[0].ID {
		t.Errorf("withdrawn: %v", closed)
	}
}
