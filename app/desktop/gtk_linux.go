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

static void later(int what, int on) {
	g_idle_add(what == 0 ? setPreferDark : setUrgent, GINT_TO_POINTER(on));
}
*/
import "C"

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
