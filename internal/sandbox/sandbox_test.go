package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// run runs script with sh, confined to writable, and returns its output
// and exit status.
func run(t *testing.T, dir string, writable []string, script string) (string, int) {
	t.Helper()
	var out []byte
	code := 0
	err := Run(writable, func() error {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
		var err error
		out, err = cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(out), code
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
		{"write to /dev/stdout and /dev/stderr", "echo a > /dev/stdout && echo b > /dev/stderr", true},
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

// TestNeverRunsUnconfined: when the confinement cannot be set up, the
// function that would start the command is not called; and the thread
// that was confined runs nothing else afterwards (this goroutine still
// writes where it likes).
func TestNeverRunsUnconfined(t *testing.T) {
	saved := confine
	t.Cleanup(func() { confine = saved })
	confine = func([]string) error { return errors.New("refused") }
	called := false
	err := Run([]string{t.TempDir()}, func() error { called = true; return nil })
	if called || err == nil || !strings.Contains(err.Error(), "was not run") || !strings.Contains(err.Error(), "SHRIMP_SANDBOX=off") {
		t.Fatalf("called %v, err %v", called, err)
	}
	confine = saved
	if _, err := Check(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	for range 20 {
		if err := Run(nil, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	errs := make(chan error, 200)
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), []byte("x"), 0o600)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Shrimp itself was left confined: %v", err)
		}
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
