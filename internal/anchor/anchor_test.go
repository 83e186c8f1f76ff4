package anchor

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"scripts/check.sh", "lint", "conf/x.json"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		in, want []string
		changed  int
	}{
		{[]string{"/bin/sh", "scripts/check.sh", "Shrimp"}, []string{"/bin/sh", filepath.Join(dir, "scripts/check.sh"), "Shrimp"}, 1},
		{[]string{"./lint"}, []string{filepath.Join(dir, "lint")}, 1},
		{[]string{"lint"}, []string{"lint"}, 0}, // a word: looked up on PATH
		{[]string{"./missing.sh", "scripts", "/etc/hosts"}, []string{"./missing.sh", "scripts", "/etc/hosts"}, 0},
		{[]string{"-c", "scripts/check.sh && echo ok"}, []string{"-c", "scripts/check.sh && echo ok"}, 0},
		{[]string{"node", "--config=conf/x.json", "-y", "--port=80"}, []string{"node", "--config=" + filepath.Join(dir, "conf/x.json"), "-y", "--port=80"}, 1},
	} {
		in := slices.Clone(tc.in)
		got, changed := Words(dir, in)
		if !slices.Equal(got, tc.want) || len(changed) != tc.changed {
			t.Errorf("%v: %v, changed %v", tc.in, got, changed)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("%v: the given words were changed in place", tc.in)
		}
	}
}
