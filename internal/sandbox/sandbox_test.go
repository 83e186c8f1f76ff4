package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// run runs script with sh, confined to writable, and returns its output
// and exit status.
func run(t *testing.T, dir string, writable []string, script string) (string, int) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	if err := Wrap(cmd, writable); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// TestConfined: a confined command (and what it starts) writes, removes,
// links and renames only beneath the folders it was given; it reads
// anything; a link from inside does not lead its writes out.
func TestConfined(t *testing.T) {
	abi, err := Available()
	if err != nil {
		t.Skipf("commands cannot be confined on this machine, so there is nothing to test: %v", err)
	}
	t.Logf("Landlock ABI %d", abi)
	ws, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "keep.txt")
	if err := os.WriteFile(secret, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	writable := []string{ws, "/dev/null", filepath.Join(outside, "missing")}
	for _, tt := range []struct {
		name, script string
		ok           bool
	}{
		{"write inside", "echo hi > made.txt && mkdir -p a/b && mv made.txt a/b/ && ln -s a/b/made.txt l && rm -r a l", true},
		{"read outside", "cat " + secret, true},
		{"write to /dev/null", "echo hi > /dev/null", true},
		{"create outside", "echo x > " + filepath.Join(outside, "new.txt"), false},
		{"change outside", "echo x >> " + secret, false},
		{"truncate outside", ": > " + secret, false},
		{"remove outside", "rm -f " + secret, false},
		{"through a link from inside", "echo x > out/keep.txt", false},
		{"a folder outside", "mkdir " + filepath.Join(outside, "d"), false},
		{"rename out of the workspace", "echo x > m.txt && mv m.txt " + outside + "/", false},
		{"hard link out", "echo x > h.txt && ln h.txt " + filepath.Join(outside, "h.txt"), false},
		{"a child of a child", "sh -c 'sh -c \"touch " + filepath.Join(outside, "deep") + "\"'", false},
		{"a background job", "(sleep 0.1; touch " + filepath.Join(outside, "later") + ") & wait $!", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, code := run(t, ws, writable, tt.script)
			if (code == 0) != tt.ok {
				t.Errorf("exit %d, want success %v: %s", code, tt.ok, out)
			}
		})
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != "outside" {
		t.Errorf("the file outside is %q (%v)", b, err)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("the folder outside holds %d entries, want only keep.txt", len(entries))
	}
}

// TestNeverRunsUnconfined: a wrapped command whose confinement cannot be
// set up is not run at all.
func TestNeverRunsUnconfined(t *testing.T) {
	ws := t.TempDir()
	marker := filepath.Join(ws, "ran")
	cmd := exec.Command("/bin/sh", "-c", "touch "+marker)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	if err := Wrap(cmd, []string{ws}); err != nil {
		t.Fatal(err)
	}
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, envVar+"=") {
			cmd.Env[i] = envVar + "=not json"
		}
	}
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != ExitCannotConfine || !strings.Contains(string(out), "was not run") {
		t.Fatalf("exit %v, output %q: want %d and a reason", err, out, ExitCannotConfine)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran unconfined")
	}
}

// TestCheck: where Landlock is offered, a confined command starts.
func TestCheck(t *testing.T) {
	abi, err := Check()
	if _, avail := Available(); avail != nil {
		if err == nil {
			t.Fatalf("Check passed (ABI %d) where Available says %v", abi, avail)
		}
		t.Skipf("no Landlock here: %v", avail)
	}
	if err != nil || abi < 1 {
		t.Fatalf("Check: ABI %d, %v", abi, err)
	}
}
