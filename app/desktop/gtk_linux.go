//go:build linux && cgo && (desktop || dev)

package desktop

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>

// The window's GTK settings, each set on GTK's main loop (g_idle_add)
// so that any goroutine may ask.

static gboolean setPreferDark(gpointer data) {
	GtkSettings *s = gtk_settings_get_default();
	if (s != NULL) {
		g_object_set(s, "gtk-application-prefer-dark-theme", GPOINTER_TO_INT(data) ? TRUE : FALSE, NULL);
	}
	return G_SOURCE_REMOVE;
}

static gboolean setUrgent(gpointer data) {
	GList *all = gtk_window_list_toplevels();
	for (GList *l = all; l != NULL; l = l->next) {
		if (gtk_widget_get_visible(GTK_WIDGET(l->data))) {
			gtk_window_set_urgency_hint(GTK_WINDOW(l->data), GPOINTER_TO_INT(data) ? TRUE : FALSE);
		}
	}
	g_list_free(all);
	return G_SOURCE_REMOVE;
}

// workArea gives the logical size of the primary monitor's work area (the
// screen less the desktop's panels), or of the first monitor when none is
// primary; 0 when GTK cannot start (no display).
static int workArea(int *w, int *h) {
	if (!gtk_init_check(NULL, NULL)) {
		return 0;
	}
	GdkDisplay *d = gdk_display_get_default();
	if (d == NULL) {
		return 0;
	}
	GdkMonitor *m = gdk_display_get_primary_monitor(d);
	if (m == NULL && gdk_display_get_n_monitors(d) > 0) {
		m = gdk_display_get_monitor(d, 0);
	}
	if (m == NULL) {
		return 0;
	}
	GdkRectangle r;
	gdk_monitor_get_workarea(m, &r);
	*w = r.width;
	*h = r.height;
	return 1;
}

static void later(int what, int on) {
	g_idle_add(what == 0 ? setPreferDark : setUrgent, GINT_TO_POINTER(on));
}
*/
import "C"

import (
	"os"
	"runtime"
)

// later runs one of the C setters above (0: prefer dark, 1: urgency) on
// GTK's main loop.
func later(what int, on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.later(C.int(what), v)
}

// preferDark sets GTK's gtk-application-prefer-dark-theme, which WebKitGTK
// reads for prefers-color-scheme (and GTK for its own dialogs).
func preferDark(dark bool) { later(0, dark) }

// setUrgent asks the desktop to draw attention to the window (its
// taskbar entry), or stops asking: GTK's urgency hint, which X11 window
// managers and taskbars show.
func setUrgent(on bool) { later(1, on) }

// workArea starts GTK and returns the logical size of the work area the
// window opens in (the primary monitor's, less the desktop's panels), so
// the window is created at a size that fits rather than resized once
// shown (a resize as the page first drew left WebKit's view unpainted).
// It must run on the goroutine that then calls wails.Run, which it locks
// to its thread, as Wails does: GTK belongs to the thread that started
// it. It chooses the GDK backend as Wails would (X11 unless the session
// says Wayland), since GTK reads it once, here.
func workArea() (w, h int, ok bool) {
	runtime.LockOSThread()
	if st := os.Getenv("XDG_SESSION_TYPE"); os.Getenv("GDK_BACKEND") == "" && (st == "" || st == "unspecified" || st == "x11") {
		_ = os.Setenv("GDK_BACKEND", "x11")
	}
	var cw, ch C.int
	if C.workArea(&cw, &ch) == 0 {
		return 0, 0, false
	}
	return int(cw), int(ch), true
}
