package desktop

import (
	"context"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/shrimp-harness/shrimp/internal/sessionbus"
)

// settingsPortal is the desktop's settings portal on the test's session
// bus, giving color-scheme as ReadOne does (or only as the older Read
// does, wrapped in one more variant).
type settingsPortal struct {
	scheme uint32
}

func (p *settingsPortal) ReadOne(ns, key string) (dbus.Variant, *dbus.Error) {
	if ns != sessionbus.Appearance || key != sessionbus.ColorSchemeKey {
		return dbus.Variant{}, dbus.NewError("org.freedesktop.portal.Error.NotFound", nil)
	}
	return dbus.MakeVariant(p.scheme), nil
}

type oldPortal struct{ settingsPortal }

func (p *oldPortal) Read(ns, key string) (dbus.Variant, *dbus.Error) {
	v, err := p.ReadOne(ns, key)
	return dbus.MakeVariant(v), err
}

func startPortal(t *testing.T, methods map[string]any) *dbus.Conn {
	t.Helper()
	conn, err := dbus.Connect(sessionbus.Address())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.ExportMethodTable(methods, sessionbus.PortalPath, sessionbus.PortalSettings); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(sessionbus.PortalName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("take %s: %v %v", sessionbus.PortalName, reply, err)
	}
	return conn
}

// TestFollowColorScheme: the desktop's dark or light preference is
// applied at start and again when the user switches it, from portals of
// both versions; no preference, or no portal, applies nothing.
func TestFollowColorScheme(t *testing.T) {
	sessionbus.Private(t)
	p := &settingsPortal{scheme: sessionbus.PreferDark}
	conn := startPortal(t, map[string]any{"ReadOne": p.ReadOne})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan bool, 4)
	FollowColorScheme(ctx, func(dark bool) { got <- dark }, t.Logf)
	want := func(dark bool) {
		t.Helper()
		select {
		case d := <-got:
			if d != dark {
				t.Fatalf("applied dark=%v, want %v", d, dark)
			}
		case <-time.After(time.Minute):
			t.Fatalf("dark=%v was not applied", dark)
		}
	}
	want(true)
	if err := conn.Emit(sessionbus.PortalPath, sessionbus.PortalSettings+".SettingChanged", sessionbus.Appearance, sessionbus.ColorSchemeKey, dbus.MakeVariant(sessionbus.PreferLight)); err != nil {
		t.Fatal(err)
	}
	want(false)
	// Another setting, or no preference: nothing applied; then dark again.
	_ = conn.Emit(sessionbus.PortalPath, sessionbus.PortalSettings+".SettingChanged", "org.gnome.desktop.interface", "gtk-theme", dbus.MakeVariant("Adwaita"))
	_ = conn.Emit(sessionbus.PortalPath, sessionbus.PortalSettings+".SettingChanged", sessionbus.Appearance, sessionbus.ColorSchemeKey, dbus.MakeVariant(sessionbus.NoPreference))
	_ = conn.Emit(sessionbus.PortalPath, sessionbus.PortalSettings+".SettingChanged", sessionbus.Appearance, sessionbus.ColorSchemeKey, dbus.MakeVariant(sessionbus.PreferDark))
	want(true)
	cancel()

	// A portal that has only the older Read.
	conn.Close()
	old := &oldPortal{settingsPortal{scheme: sessionbus.PreferLight}}
	startPortal(t, map[string]any{"Read": old.Read})
	FollowColorScheme(context.Background(), func(dark bool) { got <- dark }, t.Logf)
	want(false)
}

// TestFollowColorSchemeWithoutPortal: no portal or no bus, nothing
// applied and nothing waits.
func TestFollowColorSchemeWithoutPortal(t *testing.T) {
	sessionbus.Private(t)
	applied := false
	FollowColorScheme(context.Background(), func(bool) { applied = true }, t.Logf)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	FollowColorScheme(context.Background(), func(bool) { applied = true }, t.Logf)
	if applied {
		t.Error("a color scheme applied without a portal")
	}
}

// TestFollowColorSchemeSlowPortal: a portal that answers late (the bus
// starting it) is asked again in the background, and its answer applied.
func TestFollowColorSchemeSlowPortal(t *testing.T) {
	sessionbus.Private(t)
	p := &settingsPortal{scheme: sessionbus.PreferDark}
	startPortal(t, map[string]any{"ReadOne": func(ns, key string) (dbus.Variant, *dbus.Error) {
		time.Sleep(1500 * time.Millisecond)
		return p.ReadOne(ns, key)
	}})
	got := make(chan bool, 2)
	FollowColorScheme(context.Background(), func(dark bool) { got <- dark }, t.Logf)
	select {
	case d := <-got:
		if !d {
			t.Fatal("applied light, want dark")
		}
	case <-time.After(time.Minute):
		t.Fatal("the late answer was not applied")
	}
}
