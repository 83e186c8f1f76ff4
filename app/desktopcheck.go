package app

import (
	"context"
	"os"

	"github.com/godbus/dbus/v5"

	"github.com/shrimp-harness/shrimp/backend/doctor"
	"github.com/shrimp-harness/shrimp/internal/sessionbus"
)

// checkDesktop says what the desktop session offers the window: a
// notification service (questions asked while the window is in the
// background) and a light or dark preference on the settings portal. No
// session bus is healthy (SSH, a server); a display without a
// notification service is a warning, since questions would then show only
// on the window's taskbar entry.
func checkDesktop(ctx context.Context) doctor.Result {
	addr := sessionbus.Address()
	if addr == "" {
		return doctor.Result{Status: doctor.Pass, Detail: "no desktop session here: the window's notifications and the desktop's light or dark style do not apply"}
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return doctor.Result{Status: doctor.Warn, Detail: "the desktop session's bus does not answer (" + err.Error() + "): no notifications, and the window stays light or dark as GTK says",
			Fix: "log in to the desktop again; over SSH, use the CLI"}
	}
	defer conn.Close()
	var detail string
	r := doctor.Result{Status: doctor.Pass}
	name, version, _, err := sessionbus.NotificationServer(ctx, conn)
	switch {
	case err != nil && (os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""):
		r.Status = doctor.Warn
		r.Fix = "install a notification service (your desktop's, or notification-daemon, dunst, mako), or rely on the taskbar entry"
		detail = "no notification service answers: a question asked while the window is in the background shows only on its taskbar entry"
	case err != nil:
		detail = "no notification service (no display here)"
	case name != "":
		detail = "notifications by " + name + " " + version
	default:
		detail = "a notification service answers"
	}
	scheme, err := sessionbus.ColorScheme(ctx, conn)
	switch {
	case err != nil:
		detail += "; no settings portal: the window is light or dark as GTK's own setting says"
	case scheme == sessionbus.PreferDark:
		detail += "; the desktop prefers dark, and the window follows"
	case scheme == sessionbus.PreferLight:
		detail += "; the desktop prefers light, and the window follows"
	default:
		detail += "; the desktop states no light or dark preference"
	}
	r.Detail = detail
	return r
}
