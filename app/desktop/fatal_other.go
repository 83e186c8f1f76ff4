//go:build !(linux && cgo && (desktop || dev))

package desktop

// ShowFatal would show why the window cannot open; only the Linux window
// build (GTK, cgo) has it so far, and elsewhere it reports false (standard
// error says it).
func ShowFatal(title, text string) bool { return false }
