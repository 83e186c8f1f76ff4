package childproc

import (
	"os/exec"
	"path/filepath"
	"syscall"
)

// Attr is the SysProcAttr for a child in a session (and so a process
// group) of its own, without a controlling terminal (see the package
// doc), that the kernel sends sig when Shrimp dies (the thread that
// started it, to be exact: start and wait on one locked goroutine when
// that matters).
func Attr(sig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: sig}
}

// guardScript runs "$@" in the background and waits for it. Sent
// SIGTERM (its parent-death signal, or Shrimp stopping it) it passes the
// signal on to the program, gives it two seconds to exit, and kills its
// process group, itself included, either way: what the program left
// behind goes too. A program run in the background gets /dev/null as its
// input unless it is redirected, so the guard's own input is passed on
// through fd 3; the guard's own messages ("Killed") go nowhere, the
// program's error output through fd 4. Traps are reset when "$@" is
// executed: the program keeps the default handling of SIGTERM. The
// guard ends as the program did: with its status, or killed by the
// signal that killed it (128+n is read as signal n, as shells read it).
const guardScript = `trap 'kill -TERM $p 2>/dev/null; (sleep 2; kill -KILL 0) & wait $p; kill -KILL 0' TERM; ` +
	`exec 3<&0 4>&2 2>/dev/null; "$@" <&3 3<&- 2>&4 4>&- & p=$!; exec 3<&- 4>&-; ` +
	`wait $p; s=$?; [ $s -gt 128 ] && { trap - TERM; kill -$((s-128)) $$; }; exit $s`

// GuardName is the name the guard shell runs under ($0), as ps shows it.
const GuardName = "shrimp-guard"

// Guard readies cmd, not yet started, to run in a process group of its
// own that dies whole when Shrimp dies: cmd's program runs under
// /bin/sh with guardScript, which the kernel sends SIGTERM when Shrimp
// dies. cmd.Process is then the guard's (its pid is the group's). A cmd
// whose program is not there or cannot be run is left to fail to start
// as it would unguarded, with the same error.
func Guard(cmd *exec.Cmd) {
	cmd.SysProcAttr = Attr(syscall.SIGKILL)
	if cmd.Err != nil || len(cmd.Args) == 0 {
		return
	}
	// A relative program is found from cmd.Dir, by Go as by the guard.
	path := cmd.Path
	if !filepath.IsAbs(path) && cmd.Dir != "" {
		path = filepath.Join(cmd.Dir, path)
	}
	if _, err := exec.LookPath(path); err != nil {
		return
	}
	cmd.SysProcAttr = Attr(syscall.SIGTERM)
	cmd.Args = append([]string{"/bin/sh", "-c", guardScript, GuardName, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = "/bin/sh"
}
