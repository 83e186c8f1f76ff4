package datadir

import (
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefault(t *testing.T) {
	me, err := user.Current()
	if err != nil || !filepath.IsAbs(me.HomeDir) {
		t.Skipf("no home folder in the user database here (%v): the fallback cannot be checked", err)
	}
	tests := []struct {
		name, override, env, xdgHome, home, want string
	}{
		{"override wins", "/o", "/e", "/x", "/h", "/o"},
		{"env next", "", "/e", "/x", "/h", "/e"},
		{"xdg next", "", "", "/x", "/h", "/x/shrimp"},
		{"a relative xdg is ignored", "", "", "relative/dir", "/h", "/h/.local/share/shrimp"},
		{"home last", "", "", "", "/h", "/h/.local/share/shrimp"},
		{"no HOME: the user database's", "", "", "", "", filepath.Join(me.HomeDir, ".local", "share", "shrimp")},
		{"a relative HOME: the user database's", "", "", "", "h", filepath.Join(me.HomeDir, ".local", "share", "shrimp")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvVar, tt.env)
			t.Setenv("XDG_DATA_HOME", tt.xdgHome)
			t.Setenv("HOME", tt.home)
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

func TestWritePrivateAndCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hooks.json")
	for _, content := range []string{"first\n", "second, longer\n"} {
		if err := WritePrivate(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		info, _ := os.Stat(path)
		if err != nil || string(b) != content || info.Mode().Perm() != 0o600 {
			t.Fatalf("%q: %q %v %v", content, b, info.Mode(), err)
		}
		if err := CheckPrivate(info, path); err != nil {
			t.Fatalf("own 0600 file refused: %v", err)
		}
		if b, err := ReadPrivate(path); err != nil || string(b) != content {
			t.Fatalf("ReadPrivate: %q %v", b, err)
		}
	}
	if _, err := ReadPrivate(filepath.Join(dir, "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v, want os.ErrNotExist", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	for _, mode := range []os.FileMode{0o620, 0o602, 0o666} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		info, _ := os.Stat(path)
		if err := CheckPrivate(info, path); err == nil {
			t.Errorf("mode %v accepted", mode)
		}
		if _, err := ReadPrivate(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("ReadPrivate of mode %v: %v", mode, err)
		}
	}
	if err := WritePrivate(filepath.Join(dir, "missing", "x.json"), nil); err == nil {
		t.Fatal("wrote into a missing folder")
	}
}
