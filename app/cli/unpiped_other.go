//go:build !unix

package cli

import "os"

// unpiped returns f: where there is no SIGPIPE, a write to a closed pipe
// fails and the process goes on.
func unpiped(f *os.File) *os.File { return f }
