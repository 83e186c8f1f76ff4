//go:build linux && cgo && (desktop || dev)

package desktop

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>
#include <stdlib.h>

// showFatal shows an error dialog with a selectable text and waits for it
// to be closed; 0 when there is no display to show it on.
static int showFatal(const char *title, const char *text) {
	if (!gtk_init_check(NULL, NULL)) {
		return 0;
	}
	GtkWidget *d = gtk_message_dialog_new(NULL, 0, GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", title);
	gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(d), "%s", text);
	gtk_window_set_title(GTK_WINDOW(d), title);
	GtkWidget *area = gtk_message_dialog_get_message_area(GTK_MESSAGE_DIALOG(d));
	GList *kids = gtk_container_get_children(GTK_CONTAINER(area));
	for (GList *l = kids; l != NULL; l = l->next) {
		if (GTK_IS_LABEL(l->data)) {
			gtk_label_set_selectable(GTK_LABEL(l->data), TRUE);
			gtk_label_set_max_width_chars(GTK_LABEL(l->data), 80);
		}
	}
	g_list_free(kids);
	gtk_dialog_run(GTK_DIALOG(d));
	gtk_widget_destroy(d);
	while (gtk_events_pending()) {
		gtk_main_iteration();
	}
	return 1;
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// ShowFatal shows why the window cannot open in a dialog, and returns when
// the user closes it: started from the application menu, Shrimp's standard
// error goes nowhere, and without it nothing would appear at all. It
// reports false when there is no display to show it on.
func ShowFatal(title, text string) bool {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ct, cx := C.CString(title), C.CString(text)
	defer C.free(unsafe.Pointer(ct))
	defer C.free(unsafe.Pointer(cx))
	return C.showFatal(ct, cx) == 1
}
