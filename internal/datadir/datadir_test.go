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
	for _, mode := range []os.FileMode{0o602, 0o666} {
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

// TestOthersMayWrite: a file anyone may write, or a group other than the
// user's private one, is refused; one only the user's private group may
// write (Ubuntu's and Fedora's umask 002) is the user's own.
func TestOthersMayWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "AGENTS.md")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(mode os.FileMode, want bool, why string) {
		t.Helper()
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := OthersMayWrite(info); got != want {
			t.Errorf("mode %v, %s: OthersMayWrite = %v", mode, why, got)
		}
	}
	check(0o600, false, "the owner's alone")
	check(0o644, false, "readable by all")
	check(0o646, true, "anyone may write")
	if own := ownGroup(); own != noGroup {
		if err := os.Chown(path, -1, int(own)); err != nil {
			t.Fatal(err)
		}
		check(0o664, false, "the user's private group")
		check(0o666, true, "the private group and anyone")
	} else {
		t.Logf("the user (uid %d) has no private group here: the private group's case is TestPrivateGroup's", os.Getuid())
	}
	// Another group: root may give the file any; anyone else one they
	// are in.
	other := -1
	if os.Getuid() == 0 {
		other = 4242
	} else if groups, _ := os.Getgroups(); len(groups) > 0 {
		for _, g := range groups {
			if uint32(g) != ownGroup() {
				other = g
			}
		}
	}
	if other < 0 {
		t.Logf("no group other than the user's own to give the file: the other group's case is TestPrivateGroup's")
		return
	}
	if err := os.Chown(path, -1, other); err != nil {
		t.Fatal(err)
	}
	check(0o664, true, "another group")
	check(0o640, false, "another group may read")
}

// TestPrivateGroup: the user's private group is their primary group,
// named as they are, with nobody else in it.
func TestPrivateGroup(t *testing.T) {
	alice := &user.User{Username: "alice", Uid: "1000", Gid: "1000"}
	for _, c := range []struct {
		name string
		g    user.Group
		etc  string
		gid  uint32
	}{
		{"named as the user", user.Group{Gid: "1000", Name: "alice"}, "root:x:0:\nalice:x:1000:\n", 1000},
		{"the user listed in it", user.Group{Gid: "1000", Name: "alice"}, "alice:x:1000:alice\n", 1000},
		{"not in /etc/group (a directory service)", user.Group{Gid: "1000", Name: "alice"}, "", 1000},
		{"someone else in it", user.Group{Gid: "1000", Name: "alice"}, "alice:x:1000:bob\n", noGroup},
		{"someone else beside the user", user.Group{Gid: "1000", Name: "alice"}, "alice:x:1000:alice,bob\n", noGroup},
		{"a shared primary group", user.Group{Gid: "1000", Name: "users"}, "users:x:1000:\n", noGroup},
		{"not the primary group", user.Group{Gid: "1001", Name: "alice"}, "alice:x:1001:\n", noGroup},
	} {
		if got := privateGroup(alice, &c.g, []byte(c.etc)); got != c.gid {
			t.Errorf("%s: privateGroup = %d, want %d", c.name, got, c.gid)
		}
	}
}
