package shell

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestPruneCaches: the cache folders of workspaces nobody ran a command
// in for long, or whose workspace is gone, are removed (go's read-only
// module folders too, a link's target left alone); one in use, one whose
// workspace went only lately, and one an older Shrimp left without a
// record are kept.
func TestPruneCaches(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("GOPATH", "") // not the user's: ours
	outside := filepath.Join(t.TempDir(), "keep.txt")
	if err := os.WriteFile(outside, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	use := func(name string, ago time.Duration) (ws, dir string) {
		ws = filepath.Join(t.TempDir(), name)
		if err := os.Mkdir(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		// What go mod download leaves: read-only folders and files.
		cmd := `mkdir -p "$GOPATH/pkg/mod/m@v1" && echo module > "$GOPATH/pkg/mod/m@v1/go.mod" && chmod -R a-w "$GOPATH/pkg/mod" && ln -s ` + outside + ` "$GOPATH/link"`
		if out, err := (&Runner{Dir: ws}).run(context.Background(), Args{Command: cmd}); err != nil {
			t.Fatalf("%q %v", out, err)
		}
		dir = CacheDir(ws)
		if b, err := os.ReadFile(dir + usedSuffix); err != nil || string(b) != ws {
			t.Fatalf("the use was not recorded: %q %v", b, err)
		}
		at := now.Add(-ago)
		if err := os.Chtimes(dir+usedSuffix, at, at); err != nil {
			t.Fatal(err)
		}
		return ws, dir
	}
	_, inUse := use("in-use", time.Hour)
	_, idle := use("idle", 61*24*time.Hour)
	goneWS, gone := use("gone", 8*24*time.Hour)
	lateWS, late := use("gone-lately", 2*24*time.Hour)
	for _, ws := range []string{goneWS, lateWS} {
		if err := os.RemoveAll(ws); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Dir(inUse)
	legacy := filepath.Join(root, "old-0123456789ab")
	if err := os.MkdirAll(filepath.Join(legacy, "npm"), 0o700); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(root, "left-0123456789ab"+usedSuffix)
	if err := os.WriteFile(orphan, []byte("/nowhere"), 0o600); err != nil {
		t.Fatal(err)
	}

	p, err := PruneCaches(context.Background(), now, 60*24*time.Hour, 7*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(p.Folders)
	if want := []string{gone, idle}; !slices.Equal(p.Folders, want) || p.Bytes < int64(2*len("module\n")) {
		t.Fatalf("removed %v (%d bytes), want %v", p.Folders, p.Bytes, want)
	}
	for _, dir := range []string{gone, idle} {
		for _, f := range []string{dir, dir + usedSuffix} {
			if _, err := os.Lstat(f); !os.IsNotExist(err) {
				t.Errorf("%s left: %v", f, err)
			}
		}
	}
	for _, dir := range []string{inUse, late, legacy} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s removed: %v", dir, err)
		}
	}
	if info, err := os.Stat(legacy + usedSuffix); err != nil || now.Sub(info.ModTime()) > time.Hour {
		t.Errorf("the folder an older Shrimp left got no record: %v", err)
	}
	if _, err := os.Lstat(orphan); !os.IsNotExist(err) {
		t.Errorf("a record without its folder was left: %v", err)
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "mine" {
		t.Errorf("a link's target: %q %v", b, err)
	}
	if u, err := Usage(); err != nil || u.Folders != 3 || u.Bytes < int64(len("module\n")) || u.Root != root {
		t.Errorf("usage after the prune: %+v %v, want 3 folders (in use, gone lately, the old one)", u, err)
	}
	// A command that keeps nothing leaves neither folder nor record.
	ws := t.TempDir()
	if _, err := (&Runner{Dir: ws}).run(context.Background(), Args{Command: "true"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{CacheDir(ws), CacheDir(ws) + usedSuffix} {
		if _, err := os.Lstat(f); !os.IsNotExist(err) {
			t.Errorf("%s left by a command that kept nothing: %v", f, err)
		}
	}
	// Stopped (the app closing): nothing is removed, and the records stay.
	cut, cancel := context.WithCancel(context.Background())
	cancel()
	if p, _ := PruneCaches(cut, now.Add(365*24*time.Hour), time.Hour, time.Hour); len(p.Folders) != 0 {
		t.Errorf("a prune stopped before it began removed %v", p.Folders)
	}
	if _, err := os.Stat(inUse + usedSuffix); err != nil {
		t.Errorf("a stopped prune lost a record: %v", err)
	}
	// Nothing to prune: no error.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if p, err := PruneCaches(context.Background(), now, time.Hour, time.Hour); err != nil || len(p.Folders) != 0 {
		t.Errorf("an empty cache: %v %v", p, err)
	}
}
