package childproc

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// askTerminal opens the controlling terminal, as sudo, ssh and git do to
// ask for a password, and says whether it could.
const askTerminal = `if (true </dev/tty) 2>/dev/null; then echo has-a-terminal; else echo no-terminal; fi`

// TestNoControllingTerminal: a program Shrimp starts (guarded, bare,
// or under the guard's Attr alone) has no controlling terminal even when
// Shrimp has one (`shrimp chat` at a terminal): it cannot open /dev/tty
// to ask there. Shrimp is played by the test binary (TestMain's parent)
// started on a new pseudo-terminal as its controlling terminal.
func TestNoControllingTerminal(t *testing.T) {
	ptmx, pts, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal here (%v): the terminal is not checked", err)
	}
	defer ptmx.Close()
	defer pts.Close()
	onTerminal := func(cmd *exec.Cmd) string {
		t.Helper()
		cmd.Stdin = pts // fd 0 in the child: its controlling terminal
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", cmd.Args, err)
		}
		return string(out)
	}
	// The pseudo-terminal is one: a program run on it finds it.
	if out := onTerminal(exec.Command("/bin/sh", "-c", askTerminal)); !strings.Contains(out, "has-a-terminal") {
		t.Skipf("a program on the pseudo-terminal cannot open it either (%q): nothing to compare", out)
	}
	for _, how := range []string{"guard", "bare"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), parentEnv+"="+how, commandEnv+"="+askTerminal)
		out := onTerminal(cmd)
		if !strings.Contains(out, "no-terminal") {
			t.Errorf("%s: a program started under a Shrimp on a terminal: %q", how, out)
		}
	}
}

// openPTY opens a new pseudo-terminal: its master and its slave.
func openPTY() (ptmx, pts *os.File, err error) {
	ptmx, err = os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(ptmx.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		ptmx.Close()
		return nil, nil, fmt.Errorf("unlock: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		ptmx.Close()
		return nil, nil, fmt.Errorf("its number: %w", err)
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		ptmx.Close()
		return nil, nil, err
	}
	return ptmx, pts, nil
}
