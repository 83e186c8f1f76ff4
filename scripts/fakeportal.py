#!/usr/bin/python3
"""A desktop settings portal for the GUI smoke test: it answers
org.freedesktop.portal.Settings's ReadOne and Read for
org.freedesktop.appearance color-scheme as a GNOME or Plasma desktop does
(1: prefer dark, 2: prefer light), and on SIGUSR1 flips the value and
emits SettingChanged, as the desktop does when the user switches.

Usage: fakeportal.py SCHEME   (run on the session bus, e.g. under dbus-run-session)
"""
import signal
import sys

from gi.repository import Gio, GLib

XML = """
<node>
  <interface name="org.freedesktop.portal.Settings">
    <method name="ReadOne"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
    <method name="Read"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
    <signal name="SettingChanged"><arg type="s"/><arg type="s"/><arg type="v"/></signal>
    <property name="version" type="u" access="read"/>
  </interface>
</node>
"""

scheme = int(sys.argv[1])
conn = None


def call(connection, sender, path, iface, method, params, invocation):
    ns, key = params.unpack()
    if (ns, key) != ("org.freedesktop.appearance", "color-scheme"):
        invocation.return_dbus_error("org.freedesktop.portal.Error.NotFound", "no such setting")
        return
    value = GLib.Variant("u", scheme)
    if method == "Read":  # the older method wraps the value once more
        value = GLib.Variant("v", value)
    invocation.return_value(GLib.Variant("(v)", (value,)))


def prop(connection, sender, path, iface, name):
    return GLib.Variant("u", 2)


def flip():
    global scheme
    scheme = 2 if scheme == 1 else 1
    conn.emit_signal(None, "/org/freedesktop/portal/desktop", "org.freedesktop.portal.Settings", "SettingChanged",
                     GLib.Variant("(ssv)", ("org.freedesktop.appearance", "color-scheme", GLib.Variant("u", scheme))))
    print("fakeportal: color-scheme", scheme, flush=True)
    return GLib.SOURCE_REMOVE


def acquired(connection, name):
    global conn
    conn = connection
    connection.register_object("/org/freedesktop/portal/desktop", Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], call, prop, None)
    print("fakeportal: ready, color-scheme", scheme, flush=True)


Gio.bus_own_name(Gio.BusType.SESSION, "org.freedesktop.portal.Desktop", Gio.BusNameOwnerFlags.NONE, acquired, None, None)
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, flip)
GLib.MainLoop().run()
