package desktop

import (
	"bufio"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// sessionBus starts a private D-Bus session daemon for the test and points
// the process at it.
func sessionBus(t *testing.T) {
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
	sessionBus(t)
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

// TestClaimWithoutABus: over SSH or in CI there is no session bus; every
// launch opens its window.
func TestClaimWithoutABus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
	dir := t.TempDir()
	for range 2 {
		in, err := Claim(dir)
		if err != nil || in == nil {
			t.Fatalf("claim without a bus: %v", err)
		}
		in.Close()
	}
}
