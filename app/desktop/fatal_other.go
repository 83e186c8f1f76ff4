//go:build !linux

package desktop

// ShowFatal would show why the window cannot open; only Linux has it so
// far, and elsewhere it reports false (standard error says it).
func ShowFatal(title, text string) bool { return false }
