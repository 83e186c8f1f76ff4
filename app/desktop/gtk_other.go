//go:build !(linux && cgo && (desktop || dev))

package desktop

// preferDark and setUrgent do nothing without GTK.
func preferDark(bool) {}

func setUrgent(bool) {}
