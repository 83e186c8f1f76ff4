package desktop

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/bus"
	"github.com/shrimp-harness/shrimp/internal/sessionbus"
	"github.com/shrimp-harness/shrimp/internal/termsafe"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// The desktop's notification service (the freedesktop Desktop
// Notifications specification, over the session bus).
const (
	notifyName  = sessionbus.NotifyName
	notifyPath  = sessionbus.NotifyPath
	notifyIface = sessionbus.NotifyIface
	desktopID   = "io.github.shrimp_harness.Shrimp" // packaging/*.desktop
	notifyWait  = 5 * time.Second                   // a notification service that does not answer
)

// ShowSessionName is the window event that asks the window to show a
// session (a notification about it was clicked); its data is the
// session's id.
const ShowSessionName = "shrimp:show-session"

// Notifier is the bus subscriber that tells the desktop, while the window
// is in the background, that a run waits for the user's answer to an
// approval question or to a tool's question, or that a run has ended: a run that waits unseen
// stands still. A click on the notification brings the window forward on
// that session. Nothing is sent while the window has the focus, or
// without a session bus or a notification service (SSH, CI): the run
// never waits on it.
//
// What a notification says comes from the bus events, in which secrets
// are already redacted: notification services keep a history, some on
// disk. It names the tool and the start of what it would do, never asks
// anything itself (the approval dialog shows the whole call, and only it
// answers), and is withdrawn once the question is answered.
type Notifier struct {
	log func(msg string, args ...any)

	// Attention, when set, asks the desktop to draw attention to the
	// window while a question waits in the background (its taskbar
	// entry), and stops asking once the window has the focus or the
	// question is answered; it goes without the notification service.
	Attention func(on bool)

	// focused is apart from mu: the window reports focus changes without
	// waiting for a notification under way.
	focused atomic.Bool

	mu       sync.Mutex
	show     func(session string)  // brings the window forward on a session (OnShow); nil until set
	conn     *dbus.Conn            // nil until the first notification; closed by Close
	tried    bool                  // a connection was tried (once)
	markup   bool                  // the service reads markup in bodies: escape &, <, >
	requests map[string]string     // session → its run's request, for the run's end
	waiting  map[pendingKey]bool   // questions not yet answered
	asked    map[pendingKey]uint32 // open approval notifications
	sessions map[uint32]string     // notification id → session
	opened   map[uint32]time.Time  // when each was sent (kept 100 at most)
}

// NewNotifier returns a notifier for a window that has the focus; what a
// click on a notification does is set with OnShow, once the window is up.
func NewNotifier(log func(msg string, args ...any)) *Notifier {
	n := &Notifier{log: log,
		requests: map[string]string{}, asked: map[pendingKey]uint32{}, waiting: map[pendingKey]bool{},
		sessions: map[uint32]string{}, opened: map[uint32]time.Time{}}
	n.focused.Store(true)
	return n
}

// OnShow sets what a click on a notification does: bring the window
// forward on its session.
func (n *Notifier) OnShow(show func(session string)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.show = show
}

// Subscribe starts notifying from bs's events.
func (n *Notifier) Subscribe(bs *bus.Bus[agent.Event]) (*bus.Subscription[agent.Event], error) {
	return bs.Subscribe("notifier", n.handle, bus.Buffer[agent.Event](256))
}

// Focused records whether the window has the focus (the window reports
// it as it changes); notifications go out only while it does not.
func (n *Notifier) Focused(yes bool) {
	if n.focused.Swap(yes) != yes && yes {
		n.attention(false)
	}
}

// answered drops the waiting questions done says are over, and stops
// asking for attention once none waits.
func (n *Notifier) answered(done func(pendingKey) bool) {
	n.mu.Lock()
	for k := range n.waiting {
		if done(k) {
			delete(n.waiting, k)
		}
	}
	none := len(n.waiting) == 0
	n.mu.Unlock()
	if none {
		n.attention(false)
	}
}

// attention calls Attention when it is set.
func (n *Notifier) attention(on bool) {
	if n.Attention != nil {
		n.Attention(on)
	}
}

// Close withdraws nothing (the desktop keeps what it shows) and drops the
// connection to the session bus.
func (n *Notifier) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn != nil {
		n.conn.Close()
		n.conn = nil
	}
}

func (n *Notifier) handle(_ context.Context, e agent.Event) error {
	switch e.Type {
	case agent.TypeRunStarted:
		var d agent.RunStarted
		if decode(e, &d) == nil {
			n.mu.Lock()
			n.requests[e.Session] = d.Text
			n.mu.Unlock()
		}
	case approval.TypeRequested:
		var r approval.Request
		if err := decode(e, &r); err != nil {
			return err
		}
		// The gate announces every call; a call the mode or a rule
		// decides (not Asked) waits for nobody: no notification, no
		// taskbar flash.
		if !r.Asked {
			return nil
		}
		n.waitFor(pendingKey{e.Session, r.ID}, "May it run "+r.Tool+"? "+oneLine(cmp.Or(r.Shown, string(r.Arguments)), 160))
	case app.TypeToolQuestion:
		var q app.ToolQuestion
		if err := decode(e, &q); err != nil {
			return err
		}
		n.waitFor(pendingKey{e.Session, q.ID}, q.Tool+" asks you: "+oneLine(q.Message, 160))
	case approval.TypeDecided, app.TypeToolAnswered:
		var d struct {
			ID string `json:"id"`
		}
		if decode(e, &d) == nil {
			n.withdraw(pendingKey{e.Session, d.ID})
			n.answered(func(k pendingKey) bool { return k == pendingKey{e.Session, d.ID} })
		}
	case agent.TypeRunEnded:
		var d agent.RunEnded
		if err := decode(e, &d); err != nil {
			return err
		}
		n.mu.Lock()
		req := n.requests[e.Session]
		delete(n.requests, e.Session)
		var open []pendingKey // questions the run's end took away
		for k := range n.asked {
			if k.session == e.Session {
				open = append(open, k)
			}
		}
		n.mu.Unlock()
		for _, k := range open {
			n.withdraw(k)
		}
		n.answered(func(k pendingKey) bool { return k.session == e.Session })
		title, body := ended(d)
		if req != "" {
			body = "“" + oneLine(req, 80) + "”: " + body
		}
		n.notify(e.Session, title, body)
	}
	return nil
}

// waitFor notes a question waiting for the user (an approval, or a tool's
// question), and while the window is in the background draws attention
// to it and notifies with body.
func (n *Notifier) waitFor(k pendingKey, body string) {
	n.mu.Lock()
	n.waiting[k] = true
	n.mu.Unlock()
	if !n.focused.Load() {
		n.attention(true)
	}
	if id := n.notify(k.session, "Shrimp is waiting for your answer", body); id != 0 {
		n.mu.Lock()
		n.asked[k] = id
		n.mu.Unlock()
	}
}

// ended says how a run ended, for a notification.
func ended(d agent.RunEnded) (title, body string) {
	calls := fmt.Sprintf("%d tool calls", d.ToolCalls)
	if d.ToolCalls == 1 {
		calls = "1 tool call"
	}
	switch d.Status {
	case agent.StatusResponded:
		return "Shrimp answered", "answered after " + calls
	case agent.StatusCancelled:
		return "Shrimp stopped", "stopped after " + calls
	}
	return "Shrimp's run failed", oneLine(d.Error, 160)
}

// decode reads an event's data into v.
func decode(e agent.Event, v any) error {
	raw, err := e.RawData()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// oneLine is s on one line (its lines and runs of spaces joined by one
// space: arguments shown as indented JSON), cut at max runes (…), with
// what a terminal or a text view would obey escaped.
func oneLine(s string, max int) string {
	return string(termsafe.Escape([]byte(textcut.Line(s, max))))
}

// markupEscaper escapes what the specification's markup reads: the
// services that read markup (Pango's, a subset of XML) would otherwise
// take "<b>", "<a href=…>" or "<img src=…>" in a command for theirs.
var markupEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// notify sends a notification unless the window has the focus; it returns
// the service's id, 0 when nothing was sent.
func (n *Notifier) notify(session, title, body string) uint32 {
	if n.focused.Load() {
		return 0
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.connect() {
		return 0
	}
	if n.markup {
		body = markupEscaper.Replace(body)
	}
	// Normal urgency: a critical one would pass the user's "do not
	// disturb"; the notification stays in the desktop's list until seen.
	hints := map[string]dbus.Variant{
		"desktop-entry": dbus.MakeVariant(desktopID),
		"urgency":       dbus.MakeVariant(byte(1)),
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyWait)
	defer cancel()
	var id uint32
	err := n.conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyIface+".Notify", 0,
		"Shrimp", uint32(0), desktopID, title, body, []string{"default", "Show"}, hints, int32(-1)).Store(&id)
	if err != nil {
		n.log("desktop notification not sent", "err", err)
		return 0
	}
	n.sessions[id] = session
	n.opened[id] = time.Now()
	n.forgetOld()
	return id
}

// withdraw closes the notification of a question that was answered.
func (n *Notifier) withdraw(k pendingKey) {
	n.mu.Lock()
	defer n.mu.Unlock()
	id, ok := n.asked[k]
	if !ok {
		return
	}
	delete(n.asked, k)
	if n.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyWait)
	defer cancel()
	if err := n.conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyIface+".CloseNotification", 0, id).Err; err != nil {
		n.log("desktop notification not withdrawn", "err", err)
	}
}

// forgetOld keeps the newest 100 notifications' sessions (the desktop may
// never say they were closed).
func (n *Notifier) forgetOld() {
	if len(n.opened) <= 100 {
		return
	}
	ids := make([]uint32, 0, len(n.opened))
	for id := range n.opened {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uint32) int { return n.opened[a].Compare(n.opened[b]) })
	for _, id := range ids[:len(ids)-100] {
		delete(n.opened, id)
		delete(n.sessions, id)
	}
}

// connect connects to the session bus and the notification service once,
// under n.mu; false when there is none.
func (n *Notifier) connect() bool {
	if n.conn != nil {
		return true
	}
	if n.tried {
		return false
	}
	n.tried = true
	addr := sessionbus.Address()
	if addr == "" {
		return false
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		n.log("no desktop notifications: cannot reach the session bus", "err", err)
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyWait)
	defer cancel()
	_, _, caps, err := sessionbus.NotificationServer(ctx, conn)
	if err != nil {
		conn.Close()
		n.log("no desktop notifications: no notification service answers", "err", err)
		return false
	}
	n.markup = slices.Contains(caps, "body-markup")
	if err := conn.AddMatchSignal(dbus.WithMatchInterface(notifyIface), dbus.WithMatchObjectPath(notifyPath)); err != nil {
		n.log("desktop notifications cannot be clicked", "err", err)
	}
	signals := make(chan *dbus.Signal, 16)
	conn.Signal(signals)
	go n.clicks(signals)
	n.conn = conn
	return true
}

// clicks brings the window forward on a notification's session when it is
// clicked, and forgets a notification once it is closed.
func (n *Notifier) clicks(signals <-chan *dbus.Signal) {
	for s := range signals {
		if len(s.Body) < 1 {
			continue
		}
		id, _ := s.Body[0].(uint32)
		n.mu.Lock()
		session, ok := n.sessions[id]
		show := n.show
		switch s.Name {
		case notifyIface + ".NotificationClosed":
			delete(n.sessions, id)
			delete(n.opened, id)
			for k, v := range n.asked {
				if v == id {
					delete(n.asked, k)
				}
			}
		}
		n.mu.Unlock()
		if ok && show != nil && s.Name == notifyIface+".ActionInvoked" {
			show(session)
		}
	}
}
