package childproc

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestAttr starts a child with Attr and checks it leads a process group
// of its own (so stopping its group never reaches Shrimp's), in a session
// of its own (TestNoControllingTerminal tells why).
func TestAttr(t *testing.T) {
	attr := Attr(syscall.SIGKILL)
	if !attr.Setsid {
		t.Fatal("Attr does not put the child in a session of its own")
	}
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pgid, err := syscall.Getpgid(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if pgid != cmd.Process.Pid {
		t.Errorf("child's process group = %d, want its own (%d)", pgid, cmd.Process.Pid)
	}
	if own, _ := syscall.Getpgid(os.Getpid()); own == pgid {
		t.Errorf("child shares the test's process group %d", own)
	}
}
