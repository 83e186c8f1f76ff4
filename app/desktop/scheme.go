package desktop

import (
	"context"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/shrimp-harness/shrimp/internal/sessionbus"
)

// portalWait bounds a late portal's answer, asked in the background.
const portalWait = 5 * time.Second

// FollowColorScheme keeps the window's light or dark look with the
// desktop's: WebKitGTK takes prefers-color-scheme from GTK's
// gtk-application-prefer-dark-theme, which a GTK 3 program leaves unset
// whatever the user chose in GNOME's or Plasma's settings (they publish
// it on the settings portal), so the window stayed light in a dark
// desktop. It reads the portal's color-scheme once, sets GTK's preference
// by it (apply), and follows its changes until ctx ends. Without a
// session bus or a portal, or with no preference, GTK's own decides.
func FollowColorScheme(ctx context.Context, apply func(dark bool), log func(msg string, args ...any)) {
	addr := sessionbus.Address()
	if addr == "" {
		return
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return
	}
	follow := func(scheme uint32) {
		switch scheme {
		case sessionbus.PreferDark:
			apply(true)
		case sessionbus.PreferLight:
			apply(false)
		}
	}
	if err := conn.AddMatchSignal(dbus.WithMatchInterface(sessionbus.PortalSettings), dbus.WithMatchMember("SettingChanged"), dbus.WithMatchObjectPath(sessionbus.PortalPath)); err != nil {
		log("the desktop's light or dark setting is not followed", "err", err)
	}
	signals := make(chan *dbus.Signal, 8)
	conn.Signal(signals)
	read := func(wait time.Duration) error {
		rctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		if scheme, err := sessionbus.ColorScheme(rctx, conn); err == nil {
			follow(scheme)
		}
		return rctx.Err()
	}
	// Asked before the window draws, briefly: a portal the bus must start
	// first is asked again in the background rather than hold the window.
	late := read(time.Second) != nil
	go func() {
		defer conn.Close()
		if late {
			_ = read(portalWait)
		}
		for {
			select {
			case <-ctx.Done():
				return
			case s, ok := <-signals:
				if !ok {
					return
				}
				if len(s.Body) == 3 && s.Body[0] == sessionbus.Appearance && s.Body[1] == sessionbus.ColorSchemeKey {
					if v, ok := s.Body[2].(dbus.Variant); ok {
						follow(sessionbus.Scheme(v))
					}
				}
			}
		}
	}()
}
