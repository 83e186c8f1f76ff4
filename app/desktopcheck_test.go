package app

import (
	"context"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/shrimp-harness/shrimp/backend/doctor"
	"github.com/shrimp-harness/shrimp/internal/sessionbus"
)

// TestCheckDesktop: the doctor says what the desktop offers the window,
// warns about a display without a notification service, and passes
// where there is no desktop session at all.
func TestCheckDesktop(t *testing.T) {
	ctx := context.Background()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	if r := checkDesktop(ctx); r.Status != doctor.Pass || !strings.Contains(r.Detail, "no desktop session") {
		t.Errorf("no bus: %+v", r)
	}

	sessionbus.Private(t)
	t.Setenv("DISPLAY", ":5")
	if r := checkDesktop(ctx); r.Status != doctor.Warn || !strings.Contains(r.Detail, "only on its taskbar entry") || !strings.Contains(r.Detail, "no settings portal") || r.Fix == "" {
		t.Errorf("a display without services: %+v", r)
	}

	conn, err := dbus.Connect(sessionbus.Address())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	export := func(name string, path dbus.ObjectPath, iface string, methods map[string]any) {
		t.Helper()
		if err := conn.ExportMethodTable(methods, path, iface); err != nil {
			t.Fatal(err)
		}
		if reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
			t.Fatalf("take %s: %v %v", name, reply, err)
		}
	}
	export(sessionbus.NotifyName, sessionbus.NotifyPath, sessionbus.NotifyIface, map[string]any{
		"GetCapabilities": func() ([]string, *dbus.Error) { return []string{"body"}, nil },
		"GetServerInformation": func() (string, string, string, string, *dbus.Error) {
			return "fake-notifyd", "tests", "1.2", "1.2", nil
		},
	})
	export(sessionbus.PortalName, sessionbus.PortalPath, sessionbus.PortalSettings, map[string]any{
		"ReadOne": func(ns, key string) (dbus.Variant, *dbus.Error) { return dbus.MakeVariant(sessionbus.PreferDark), nil },
	})
	if r := checkDesktop(ctx); r.Status != doctor.Pass || r.Detail != "notifications by fake-notifyd 1.2; the desktop prefers dark, and the window follows" {
		t.Errorf("with both: %+v", r)
	}
}
