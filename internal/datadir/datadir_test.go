package datadir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDefault(t *testing.T) {
	tests := []struct {
		name, override, env, xdgHome, want string
	}{
		{"override wins", "/o", "/e", "/x", "/o"},
		{"env next", "", "/e", "/x", "/e"},
		{"xdg last", "", "", "/x", "/x/shrimp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvVar, tt.env)
			t.Setenv("XDG_DATA_HOME", tt.xdgHome)
			if got := Default(tt.override); got != tt.want {
				t.Fatalf("Default(%q) = %q, want %q", tt.override, got, tt.want)
			}
		})
	}
}

func TestResolveCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	got, err := Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(got); err != nil || !st.IsDir() {
		t.Fatalf("Resolve did not create %s: %v", got, err)
	}
}

func TestResolveUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(filepath.Join(file, "sub")); err == nil {
		t.Fatal("Resolve under a file succeeded")
	}
}
