package files

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outsideMark is in the name and the content of every file outside the
// workspace of jailFixture; no file tool may ever return it.
const outsideMark = "Q7ZK3OUT"

// jailFixture builds base/ws, the workspace, beside files it must not
// reach: base/secret, base/ws-sibling (whose name shares the workspace's
// prefix), and links from the workspace that lead out (relative, absolute,
// through a directory) or stay in. It returns the workspace and the
// outside tree's files with their contents.
func jailFixture(t testing.TB) (string, map[string]string) {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"ws/sub", "ws-sibling"} {
		must(os.MkdirAll(filepath.Join(base, d), 0o755))
	}
	files := map[string]string{
		"ws/a.txt":                           "inside a",
		"ws/sub/b.txt":                       "inside b",
		"secret-" + outsideMark + ".txt":     "secret " + outsideMark,
		"ws-sibling/" + outsideMark + ".txt": "sibling " + outsideMark,
	}
	for p, c := range files {
		must(os.WriteFile(filepath.Join(base, p), []byte(c), 0o600))
	}
	for link, target := range map[string]string{
		"ws/in":      "sub",
		"ws/up":      "..",
		"ws/out.txt": "../secret-" + outsideMark + ".txt",
		"ws/abs":     filepath.Join(base, "secret-"+outsideMark+".txt"),
		"ws/absdir":  filepath.Join(base, "ws-sibling"),
		"ws/sib":     "../ws-sibling",
		"ws/loop":    "loop",
		"ws/sub/up2": "../../ws-sibling",
		"ws/sub/a":   "../a.txt",
	} {
		must(os.Symlink(target, filepath.Join(base, link)))
	}
	return ws, outsideTree(t, base, ws)
}

// outsideTree reads every file under base that is not under ws, without
// following links.
func outsideTree(t testing.TB, base, ws string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == ws {
			return filepath.SkipDir
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			tree[p] = "-> " + target
			return err
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			tree[p] = string(b)
			return err
		case d.IsDir():
			tree[p] = "dir"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// FuzzJail: whatever path the model gives any file tool, nothing outside
// the workspace is returned, listed, searched or changed (the workspace
// jail's property, checked against the disk rather than against the
// tools' own path logic). The fixture is built once per fuzzing process:
// what the tools write inside the workspace stays for the next inputs.
func FuzzJail(f *testing.F) {
	for _, p := range []string{
		"", ".", "a.txt", "sub/b.txt", "in/b.txt", "sub/a",
		"..", "../", "../secret-" + outsideMark + ".txt", "up", "up/secret-" + outsideMark + ".txt",
		"out.txt", "abs", "absdir", "absdir/" + outsideMark + ".txt", "sib", "sib/x.txt",
		"loop", "loop/x", "sub/up2", "sub/up2/new.txt", "in/../../ws-sibling",
		"/etc/passwd", "/etc", "/", "//etc/passwd", "sub/../../ws-sibling/x", "./../ws",
		"~/.ssh/id_rsa", "a.txt\x00../../x", "..\\..\\x", "sub//..//..//x", "%2e%2e/x",
	} {
		for op := range byte(5) {
			f.Add(op, p)
		}
	}
	dir, before := jailFixture(f)
	ws, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ws.Close() })
	f.Fuzz(func(t *testing.T, op byte, p string) {
		tl := ws.Tools()[int(op)%5]
		var args any
		switch tl.Name() {
		case "fs.list":
			args = ListArgs{Path: p}
		case "fs.read":
			args = ReadArgs{Path: p}
		case "fs.write":
			if strings.Contains(p, outsideMark) {
				return // a file of that name inside would be listed and read
			}
			args = WriteArgs{Path: p, Content: "written"}
		case "fs.search":
			args = SearchArgs{Query: "secret", Path: p} // matches the outside files' lines
		case "fs.edit":
			args = EditArgs{Path: p, Old: "secret", New: "edited", All: true} // the outside files hold it
		}
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := tl.Run(context.Background(), raw)
		if strings.Contains(out, outsideMark) && !strings.Contains(p, outsideMark) {
			t.Errorf("%s %q returned what is outside the workspace:\n%s", tl.Name(), p, out)
		}
		if strings.Contains(out, "root:x:0:0") {
			t.Errorf("%s %q returned /etc/passwd", tl.Name(), p)
		}
		after := outsideTree(t, filepath.Dir(dir), dir)
		for f, c := range after {
			if before[f] != c {
				t.Errorf("%s %q changed %s outside the workspace: %q", tl.Name(), p, f, c)
			}
		}
		for f := range before {
			if _, ok := after[f]; !ok {
				t.Errorf("%s %q removed %s outside the workspace", tl.Name(), p, f)
			}
		}
	})
}
