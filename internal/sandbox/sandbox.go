// Package sandbox confines the commands Shrimp runs for the model
// (shell.run) so that they write only where the call may: they read and
// run anything the user can, and create, change, remove, link or rename
// files only beneath the folders they are given (the workspace and the
// temporary folders), enforced by the kernel (Landlock, Linux 5.13 and
// later), for the command and everything it starts.
//
// Its contract: [Run] calls a function on an operating-system thread of
// its own that it has confined first; a command started there (os/exec
// forks from the calling thread) inherits the confinement, and so does
// everything it starts. The thread is thrown away afterwards, so nothing
// else in Shrimp runs confined. When the confinement cannot be set up the
// function is not called: a command meant to be confined never runs
// unconfined. [Check] says beforehand whether this system can confine.
package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// Run calls fn on a fresh thread that may write only beneath writable
// (folders, or single files such as /dev/null; ones that do not exist
// are left out), and returns fn's error. fn must start and wait for its
// commands itself, on the goroutine it is called on: the kernel sends a
// child's parent-death signal when the thread that started it ends, and
// the thread ends when fn returns.
func Run(writable []string, fn func() error) error {
	done := make(chan error, 1)
	go func() {
		// Never unlocked: the runtime ends a thread whose goroutine
		// exits locked, and with it the confinement.
		runtime.LockOSThread()
		if err := confine(writable); err != nil {
			done <- fmt.Errorf("the command was not run: it could not be confined to the workspace (%w); switch the shell sandbox off in Settings, or with SHRIMP_SANDBOX=off, to run commands unconfined", err)
			return
		}
		done <- fn()
	}()
	return <-done
}

// Check is Available, then a confined /bin/true run once per process: a
// kernel can offer Landlock to a process that may not use it (a
// container whose seccomp profile refuses its calls), and then every
// confined command would fail.
func Check() (int, error) {
	checkOnce.Do(func() {
		if checkABI, checkErr = Available(); checkErr != nil {
			return
		}
		checkErr = Run([]string{os.TempDir()}, func() error {
			if out, err := exec.Command("/bin/true").CombinedOutput(); err != nil {
				return fmt.Errorf("the kernel offers Landlock, but a confined command could not start (%v: %s)", err, strings.TrimSpace(string(out)))
			}
			return nil
		})
	})
	return checkABI, checkErr
}

var (
	checkOnce sync.Once
	checkABI  int
	checkErr  error
)
