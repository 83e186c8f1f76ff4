package files

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWritePreview(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	args := func(path, content string) []byte {
		b, _ := json.Marshal(WriteArgs{Path: path, Content: content})
		return b
	}
	tests := []struct {
		name, path, content string
		want                []string
	}{
		{"change", "a.txt", "one\nTWO\nthree\n", []string{"--- a/a.txt", "+++ b/a.txt", "-two", "+TWO"}},
		{"new file", "new.txt", "hello\n", []string{"--- /dev/null", "+hello"}},
		{"same", "a.txt", "one\ntwo\nthree\n", []string{"no change"}},
		{"outside", "../x", "x", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ws.WritePreview(args(tt.path, tt.content))
			if tt.want == nil && got != "" {
				t.Fatalf("preview for a refused path: %q", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Fatalf("preview %q lacks %q", got, w)
				}
			}
		})
	}
}
