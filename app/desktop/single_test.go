package desktop

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/internal/sessionbus"
)

// TestClaim: a second launch on the same data folder brings the first
// window forward and does not open; another folder opens beside it; once
// the first is closed, the folder can be claimed again.
func TestClaim(t *testing.T) {
	sessionbus.Private(t)
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
