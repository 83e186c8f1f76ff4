// Package sandboxtest helps tests of confined commands.
package sandboxtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Outside returns a new folder a confined command may not write: not in
// the temporary folders (t.TempDir's, which are writable), but beside the
// test's package, removed when the test ends.
func Outside(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp(".", "outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
