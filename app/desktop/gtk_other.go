//go:build !(linux && cgo && (desktop || dev))

package desktop

// preferDark and setUrgent do nothing without GTK.
func preferDark(bool) {}

func setUrgent(bool) {}

// workArea is unknown without GTK.
func workArea() (w, h int, ok bool) { return 0, 0, false }
