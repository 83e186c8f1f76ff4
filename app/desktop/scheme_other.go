//go:build !(linux && cgo && (desktop || dev))

package desktop

// preferDark does nothing without GTK.
func preferDark(bool) {}
