//go:build linux && cgo && (desktop || dev)

package desktop

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>

static gboolean setPreferDark(gpointer data) {
	GtkSettings *s = gtk_settings_get_default();
	if (s != NULL) {
		g_object_set(s, "gtk-application-prefer-dark-theme", GPOINTER_TO_INT(data) ? TRUE : FALSE, NULL);
	}
	return G_SOURCE_REMOVE;
}

// preferDark sets GTK's preference on GTK's main loop, from any thread.
static void preferDark(int dark) {
	g_idle_add(setPreferDark, GINT_TO_POINTER(dark));
}
*/
import "C"

// preferDark sets GTK's gtk-application-prefer-dark-theme, which WebKitGTK
// reads for prefers-color-scheme (and GTK for its own dialogs).
func preferDark(dark bool) {
	d := C.int(0)
	if dark {
		d = 1
	}
	C.preferDark(d)
}
