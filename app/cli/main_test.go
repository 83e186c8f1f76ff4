//go:build !ollama

package cli

import (
	"os"
	"testing"
)

// TestMain removes the binary the tests built once they are done (the
// real-Ollama tier's TestMain, built with -tags ollama, does the same).
func TestMain(m *testing.M) {
	code := m.Run()
	removeBuiltBinary()
	os.Exit(code)
}
