package desktop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/shrimp-harness/shrimp/internal/sessionbus"
)

// ErrAlreadyOpen means another Shrimp shows the same data folder: it was
// asked to come to the front.
var ErrAlreadyOpen = errors.New("already open")

const (
	instancePath  = dbus.ObjectPath("/io/github/shrimp_harness/Shrimp")
	instanceIface = "io.github.shrimp_harness.Shrimp"
)

// Instance is this process's claim to be the window for a data folder.
type Instance struct {
	conn *dbus.Conn // nil: no session bus, nothing claimed

	mu   sync.Mutex
	show func()
}

// Claim makes this process the window for dataDir on the desktop's
// session bus (D-Bus), before anything is opened: a second launch of the
// app (a double click on the launcher) brings the first window forward
// and returns ErrAlreadyOpen, instead of opening a second window whose
// procedure memory another process holds. Each data folder has its own
// claim, so a Shrimp on another folder (a test) opens beside it. Without
// a session bus (SSH, CI), or when the first one does not answer, the
// window opens as before.
func Claim(dataDir string) (*Instance, error) {
	in := &Instance{}
	addr := sessionbus.Address()
	if addr == "" {
		return in, nil // no desktop session: nothing to share a window with
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return in, nil
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		abs = dataDir
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real // one folder reached by two paths has one window
	}
	sum := sha256.Sum256([]byte(abs))
	name := instanceIface + ".d" + hex.EncodeToString(sum[:8])
	if err := conn.ExportMethodTable(map[string]any{"Show": in.raise}, instancePath, instanceIface); err != nil {
		conn.Close()
		return in, nil
	}
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	switch {
	case err != nil:
		conn.Close()
		return in, nil
	case reply == dbus.RequestNameReplyPrimaryOwner:
		in.conn = conn
		return in, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	callErr := conn.Object(name, instancePath).CallWithContext(ctx, instanceIface+".Show", 0).Err
	conn.Close()
	if callErr != nil {
		return in, nil // it holds the name but does not answer: open anyway
	}
	return nil, fmt.Errorf("the window for %s is %w: it was brought to the front", abs, ErrAlreadyOpen)
}

// OnShow sets what a second launch does to this window.
func (in *Instance) OnShow(show func()) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.show = show
}

func (in *Instance) raise() *dbus.Error {
	in.mu.Lock()
	show := in.show
	in.mu.Unlock()
	if show != nil {
		go show() // never hold the caller while the window comes up
	}
	return nil
}

// Close gives up the claim.
func (in *Instance) Close() {
	if in != nil && in.conn != nil {
		in.conn.Close()
	}
}
