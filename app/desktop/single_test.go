package desktop

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// privateSessionBus starts a private D-Bus session daemon for the test and points
// the process at it.
func privateSessionBus(t *testing.T) {
	t.Helper()
	bin, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("no dbus-daemon on this machine (make test installs it): the single-window claim is not tested")
	}
	cmd := exec.Command(bin, "--session", "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon gave no address: %v", err)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", strings.TrimSpace(addr))
}

// TestClaim: a second launch on the same data folder brings the first
// window forward and does not open; another folder opens beside it; once
// the first is closed, the folder can be claimed again.
func TestClaim(t *testing.T) {
	privateSessionBus(t)
	a, b := t.TempDir(), t.TempDir()
	first, err := Claim(a)
	if err != nil || first.conn == nil {
		t.Fatalf("first claim: %v (claimed %v)", err, first != nil && first.conn != nil)
	}
	shown := make(chan struct{}, 1)
	first.OnShow(func() { shown <- struct{}{} })

	if _, err := Claim(a); !errors.Is(err, ErrAlreadyOpen) || !strings.Contains(err.Error(), a) {
		t.Fatalf("second claim on the same folder: %v", err)
	}
	select {
	case <-shown:
	case <-time.After(time.Minute):
		t.Fatal("the first window was not asked to come forward")
	}
	// The same folder through a link is the same window.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Claim(link); !errors.Is(err, ErrAlreadyOpen) {
		t.Fatalf("a claim through a link: %v", err)
	}
	select {
	case <-shown:
	case <-time.After(time.Minute):
		t.Fatal("a launch through a link did not bring the window forward")
	}
	other, err := Claim(b)
	if err != nil || other.conn == nil {
		t.Fatalf("a claim on another folder: %v", err)
	}
	other.Close()
	first.Close()
	again, err := Claim(a)
	if err != nil || again.conn == nil {
		t.Fatalf("after the first closed: %v", err)
	}
	again.Close()
}

// TestClaimWithoutABus: over SSH or in CI there is no session bus (none
// named, or one named that is gone); every launch opens its window, and
// none starts a bus of its own.
func TestClaimWithoutABus(t *testing.T) {
	for _, addr := range []string{"", "unix:path=/nonexistent/bus"} {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
		t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
		dir := t.TempDir()
		for range 2 {
			in, err := Claim(dir)
			if err != nil || in == nil || in.conn != nil {
				t.Fatalf("claim without a bus (%q): %v", addr, err)
			}
			in.Close()
		}
	}
}
