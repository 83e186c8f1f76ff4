//go:build !unix

package cli

// onResize does nothing where there is no SIGWINCH: the editor reads the
// terminal's size at each prompt.
func onResize(func()) (stop func()) { return func() {} }
