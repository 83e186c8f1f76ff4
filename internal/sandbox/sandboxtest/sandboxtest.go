// Package sandboxtest helps tests of confined commands.
package sandboxtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Outside returns a new folder a confined command may not write: not in
// the temporary folders (t.TempDir's, and a fresh clone's on a CI machine,
// which are writable) but in the user's cache or home folder, removed
// when the test ends. The test is skipped, saying why, when every
// candidate is in a temporary folder.
func Outside(t testing.TB) string {
	t.Helper()
	temp := []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm"}
	var places []string
	if d, err := os.UserCacheDir(); err == nil {
		places = append(places, d)
	}
	if d, err := os.UserHomeDir(); err == nil {
		places = append(places, d)
	}
	for _, p := range places {
		abs, err := filepath.Abs(p)
		if err != nil || under(abs, temp) {
			continue
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			continue
		}
		dir, err := os.MkdirTemp(abs, "shrimp-sandbox-test-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	t.Skipf("no folder outside the temporary folders to test with (tried %v)", places)
	return ""
}

func under(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}
