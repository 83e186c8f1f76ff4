package desktop

import (
	"context"
	"time"

	"github.com/godbus/dbus/v5"
)

// The desktop's settings portal (xdg-desktop-portal), where GNOME 42+,
// KDE Plasma and others publish the user's light or dark preference.
const (
	portalName      = "org.freedesktop.portal.Desktop"
	portalPath      = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	portalSettings  = "org.freedesktop.portal.Settings"
	appearance      = "org.freedesktop.appearance"
	colorSchemeKey  = "color-scheme"
	portalWait      = 5 * time.Second
	schemeNoPrefers = uint32(0)
	schemeDark      = uint32(1)
	schemeLight     = uint32(2)
)

// FollowColorScheme keeps the window's light or dark look with the
// desktop's: WebKitGTK takes prefers-color-scheme from GTK's
// gtk-application-prefer-dark-theme, which a GTK 3 program leaves unset
// whatever the user chose in GNOME's or Plasma's settings (they publish
// it on the settings portal), so the window stayed light in a dark
// desktop. It reads the portal's color-scheme once, sets GTK's preference
// by it (apply), and follows its changes until ctx ends. Without a
// session bus or a portal, or with no preference, GTK's own decides.
func FollowColorScheme(ctx context.Context, apply func(dark bool), log func(msg string, args ...any)) {
	addr := sessionBus()
	if addr == "" {
		return
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return
	}
	follow := func(v dbus.Variant) {
		switch scheme(v) {
		case schemeDark:
			apply(true)
		case schemeLight:
			apply(false)
		}
	}
	if err := conn.AddMatchSignal(dbus.WithMatchInterface(portalSettings), dbus.WithMatchMember("SettingChanged"), dbus.WithMatchObjectPath(portalPath)); err != nil {
		log("the desktop's light or dark setting is not followed", "err", err)
	}
	signals := make(chan *dbus.Signal, 8)
	conn.Signal(signals)
	read := func(wait time.Duration) error {
		rctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		var v dbus.Variant
		err := conn.Object(portalName, portalPath).CallWithContext(rctx, portalSettings+".ReadOne", 0, appearance, colorSchemeKey).Store(&v)
		if err != nil && rctx.Err() == nil {
			// Portals before version 2 have only Read, which wraps the
			// value in one more variant.
			err = conn.Object(portalName, portalPath).CallWithContext(rctx, portalSettings+".Read", 0, appearance, colorSchemeKey).Store(&v)
		}
		if err == nil {
			follow(v)
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
				if len(s.Body) == 3 && s.Body[0] == appearance && s.Body[1] == colorSchemeKey {
					if v, ok := s.Body[2].(dbus.Variant); ok {
						follow(v)
					}
				}
			}
		}
	}()
}

// scheme reads a color-scheme value, unwrapping the variant the older
// Read method adds; schemeNoPrefers when it is none.
func scheme(v dbus.Variant) uint32 {
	for range 3 {
		switch x := v.Value().(type) {
		case uint32:
			return x
		case dbus.Variant:
			v = x
			continue
		}
		break
	}
	return schemeNoPrefers
}
