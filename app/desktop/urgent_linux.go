//go:build linux && cgo && (desktop || dev)

package desktop

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>

static gboolean setUrgentAll(gpointer data) {
	GList *all = gtk_window_list_toplevels();
	for (GList *l = all; l != NULL; l = l->next) {
		if (gtk_widget_get_visible(GTK_WIDGET(l->data))) {
			gtk_window_set_urgency_hint(GTK_WINDOW(l->data), GPOINTER_TO_INT(data) ? TRUE : FALSE);
		}
	}
	g_list_free(all);
	return G_SOURCE_REMOVE;
}

// setUrgent sets the urgency hint of the visible windows on GTK's main
// loop, from any thread.
static void setUrgent(int on) {
	g_idle_add(setUrgentAll, GINT_TO_POINTER(on));
}
*/
import "C"

// setUrgent asks the desktop to draw attention to the window (its
// taskbar entry), or stops asking: GTK's urgency hint, which X11 window
// managers and taskbars show.
func setUrgent(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.setUrgent(v)
}
