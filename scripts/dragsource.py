#!/usr/bin/python3
"""A small GTK window that offers one URI as a drag source (text/uri-list),
for scripts/gui-smoke.sh to drop a link onto the Shrimp window with xdotool.
Prints drag-begin, data-get, drag-failed and drag-end as they happen.
Usage: dragsource.py URI"""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

uri = sys.argv[1]
window = Gtk.Window(title="dragsource")
window.set_default_size(80, 80)
box = Gtk.EventBox()
box.add(Gtk.Label(label="drag"))
box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
box.drag_source_add_uri_targets()


def data_get(widget, context, data, info, time):
    print("data-get", flush=True)
    data.set_uris([uri])


box.connect("drag-data-get", data_get)
box.connect("drag-begin", lambda *a: print("drag-begin", flush=True))
box.connect("drag-failed", lambda w, c, r: print("drag-failed", r.value_nick, flush=True))
box.connect("drag-end", lambda *a: print("drag-end", flush=True))
window.add(box)
window.connect("destroy", Gtk.main_quit)
window.show_all()
Gtk.main()
