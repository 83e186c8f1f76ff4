package files

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyFileIsNotWritten: a file marked read-only (a generated
// file, a Perforce file before p4 edit) is neither written nor edited,
// though renaming a new file over it would succeed, and the refusal says
// what to do; the approval dialog's preview says so too. Made writable,
// it is written, keeping its mode.
func TestReadOnlyFileIsNotWritten(t *testing.T) {
	ctx := context.Background()
	ws, dir := workspace(t, map[string]string{"gen/api.pb.go": "package api\n// generated\n"})
	file := filepath.Join(dir, "gen", "api.pb.go")
	if err := os.Chmod(file, 0o444); err != nil {
		t.Fatal(err)
	}
	write := WriteArgs{Path: "gen/api.pb.go", Content: "package api\n// changed by hand\n"}
	_, err := ws.write(ctx, write)
	if err == nil || !strings.Contains(err.Error(), "is read-only (mode 0444)") || !strings.Contains(err.Error(), "chmod u+w 'gen/api.pb.go'") {
		t.Errorf("fs.write: %v", err)
	}
	if _, err := ws.write(ctx, write); err == nil {
		t.Error("fs.write made again went through")
	}
	if _, err := ws.edit(ctx, EditArgs{Path: "gen/api.pb.go", Old: "generated", New: "edited"}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("fs.edit: %v", err)
	}
	args, _ := json.Marshal(write)
	if p := ws.WritePreview(ctx, args); !strings.Contains(p, "read-only") {
		t.Errorf("the preview: %q", p)
	}
	if b, _ := os.ReadFile(file); string(b) != "package api\n// generated\n" {
		t.Errorf("the file was changed: %q", b)
	}
	if err := os.Chmod(file, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.write(ctx, write); err != nil {
		t.Fatalf("made writable: %v", err)
	}
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("the mode after the write: %v %v", info.Mode(), err)
	}
}

// TestWritable: whose files a user may write in place, as the system's
// permissions say (the rename fs.write makes would ignore them).
func TestWritable(t *testing.T) {
	me := user{uid: 1000, groups: []int{1000, 27}}
	for _, c := range []struct {
		name     string
		uid, gid uint32
		perm     fs.FileMode
		u        user
		refused  string
	}{
		{"one's own file", 1000, 1000, 0o644, me, ""},
		{"one's own file marked read-only", 1000, 1000, 0o444, me, "read-only"},
		{"another's file, readable only", 2000, 2000, 0o644, me, "belongs to another user (uid 2000)"},
		{"another's file the group may write, a group one is in", 2000, 27, 0o664, me, ""},
		{"another's file the group may write, a group one is not in", 2000, 50, 0o664, me, "another user"},
		{"another's file anyone may write", 2000, 50, 0o666, me, ""},
		{"another's file anyone may write but one's group", 2000, 27, 0o646, me, "another user"},
		{"root and another's file", 2000, 2000, 0o644, user{uid: 0}, ""},
		{"root and a read-only file", 2000, 2000, 0o444, user{uid: 0}, "read-only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := writable("f", statInfo{perm: c.perm, st: &syscall.Stat_t{Uid: c.uid, Gid: c.gid}}, c.u)
			if (c.refused == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.refused) {
				t.Errorf("%v, want %q", err, c.refused)
			}
		})
	}
}

// statInfo is a file's information with its permissions and owner.
type statInfo struct {
	fs.FileInfo
	perm fs.FileMode
	st   *syscall.Stat_t
}

func (s statInfo) Mode() fs.FileMode { return s.perm }
func (s statInfo) Sys() any          { return s.st }
