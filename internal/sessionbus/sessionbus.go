// Package sessionbus finds the desktop session's D-Bus and asks it what
// the desktop offers a window: a notification service, and the user's
// light or dark preference on the settings portal.
//
// Its contract: nothing here starts a bus of its own (dbus-launch) where
// the desktop has none, every question is bounded by its context, and a
// desktop without a service is an answer ("", an error saying so), not
// a failure of the caller.
package sessionbus

import (
	"context"
	"os"
	"path/filepath"

	"github.com/godbus/dbus/v5"
)

// The desktop services asked here.
const (
	NotifyName  = "org.freedesktop.Notifications"
	NotifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	NotifyIface = "org.freedesktop.Notifications"

	PortalName     = "org.freedesktop.portal.Desktop"
	PortalPath     = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	PortalSettings = "org.freedesktop.portal.Settings"
	Appearance     = "org.freedesktop.appearance"
	ColorSchemeKey = "color-scheme"
)

// The portal's color-scheme values.
const (
	NoPreference = uint32(0)
	PreferDark   = uint32(1)
	PreferLight  = uint32(2)
)

// Address is the address of the desktop session's bus, "" when there is
// none. Unlike godbus's ConnectSessionBus it never starts a bus of its
// own (dbus-launch) where the desktop has none.
func Address() string {
	if addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); addr != "" {
		return addr
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		if fi, err := os.Stat(filepath.Join(dir, "bus")); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + filepath.Join(dir, "bus")
		}
	}
	return ""
}

// NotificationServer names the desktop's notification service (its
// GetServerInformation: name and version) and what it can do (its
// capabilities).
func NotificationServer(ctx context.Context, conn *dbus.Conn) (name, version string, caps []string, err error) {
	obj := conn.Object(NotifyName, NotifyPath)
	if err := obj.CallWithContext(ctx, NotifyIface+".GetCapabilities", 0).Store(&caps); err != nil {
		return "", "", nil, err
	}
	var vendor, spec string
	if err := obj.CallWithContext(ctx, NotifyIface+".GetServerInformation", 0).Store(&name, &vendor, &version, &spec); err != nil {
		return "", "", caps, nil // it notifies; it does not say who it is
	}
	return name, version, caps, nil
}

// ColorScheme reads the user's light or dark preference from the settings
// portal: ReadOne, or the older Read, which wraps the value in one more
// variant.
func ColorScheme(ctx context.Context, conn *dbus.Conn) (uint32, error) {
	obj := conn.Object(PortalName, PortalPath)
	var v dbus.Variant
	err := obj.CallWithContext(ctx, PortalSettings+".ReadOne", 0, Appearance, ColorSchemeKey).Store(&v)
	if err != nil && ctx.Err() == nil {
		err = obj.CallWithContext(ctx, PortalSettings+".Read", 0, Appearance, ColorSchemeKey).Store(&v)
	}
	if err != nil {
		return NoPreference, err
	}
	return Scheme(v), nil
}

// Scheme reads a color-scheme value, unwrapping variants;
// NoPreference when it is none.
func Scheme(v dbus.Variant) uint32 {
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
	return NoPreference
}
