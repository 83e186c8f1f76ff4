//go:build !linux

package cli

import "os"

// flushInput discards what was typed on the terminal f and not read yet:
// on Linux only so far; elsewhere the reader's own buffer is dropped.
func flushInput(*os.File) {}

// typedAhead returns how many bytes typed on the terminal f wait to be
// read: on Linux only so far; elsewhere none are seen.
func typedAhead(*os.File) int { return 0 }
