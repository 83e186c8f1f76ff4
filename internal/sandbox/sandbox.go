// Package sandbox confines the commands Shrimp runs for the model
// (shell.run) so that they write only where the call may: they read and
// run anything the user can, and create, change, remove, link or rename
// files only beneath the folders they are given (the workspace and the
// temporary folders), enforced by the kernel (Landlock, Linux 5.13 and
// later), for the command and everything it starts.
//
// Its contract: [Wrap] turns a command into Shrimp's own binary with the
// folders in its environment; that process confines itself in this
// package's init, before any other work, and then becomes the command
// (execve keeps its pid, process group and parent-death signal). A
// process that cannot confine itself exits with status 126 and says why
// on standard error: a wrapped command never runs unconfined. [Available]
// says beforehand whether this system can confine, so the caller can
// decide what to do where it cannot (an older kernel, another system).
package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// envVar carries the writable folders (JSON) to the wrapped process.
const envVar = "SHRIMP_SANDBOX_WRITE"

// ExitCannotConfine is the exit status of a wrapped command that was not
// run because it could not be confined.
const ExitCannotConfine = 126

// Wrap makes cmd run confined, writing only beneath writable (folders or
// single files such as /dev/null; ones that do not exist are left out).
// It must be called after cmd's Path, Args and Env are set (a nil Env is
// taken as the current environment).
func Wrap(cmd *exec.Cmd, writable []string) error {
	self, err := selfPath()
	if err != nil {
		return fmt.Errorf("confine the command: %w", err)
	}
	list, err := json.Marshal(writable)
	if err != nil {
		return fmt.Errorf("confine the command: %w", err)
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(slices.DeleteFunc(slices.Clone(cmd.Env), func(kv string) bool {
		return strings.HasPrefix(kv, envVar+"=")
	}), envVar+"="+string(list))
	cmd.Args = append([]string{self, cmd.Path}, cmd.Args...)
	cmd.Path = self
	return nil
}

// Check is Available, then a confined /bin/true run once per process:
// a kernel can offer Landlock to a process that may not use it (a
// container whose seccomp profile refuses its calls), and then every
// confined command would fail.
func Check() (int, error) {
	checkOnce.Do(func() {
		if checkABI, checkErr = Available(); checkErr != nil {
			return
		}
		cmd := exec.Command("/bin/true")
		if checkErr = Wrap(cmd, []string{os.TempDir()}); checkErr != nil {
			return
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			checkErr = fmt.Errorf("the kernel offers Landlock, but a confined command could not start (%v: %s)", err, strings.TrimSpace(string(out)))
		}
	})
	return checkABI, checkErr
}

var (
	checkOnce sync.Once
	checkABI  int
	checkErr  error
)

func init() {
	list, ok := os.LookupEnv(envVar)
	if !ok {
		return
	}
	// The confinement and the exec must happen on one thread: the
	// restriction is the calling thread's, and execve keeps it.
	runtime.LockOSThread()
	fail := func(status int, format string, args ...any) {
		fmt.Fprintf(os.Stderr, "shrimp: "+format+"\n", args...)
		os.Exit(status)
	}
	var writable []string
	if err := json.Unmarshal([]byte(list), &writable); err != nil || len(os.Args) < 3 {
		fail(ExitCannotConfine, "the command was not run: its confinement could not be read (%v)", err)
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, envVar+"=") })
	if err := confine(writable); err != nil {
		fail(ExitCannotConfine, "the command was not run: it could not be confined to the workspace (%v); switch the shell sandbox off in Settings, or with SHRIMP_SANDBOX=off, to run commands unconfined", err)
	}
	err := execve(os.Args[1], os.Args[2:], env)
	fail(127, "%s: %v", os.Args[1], err)
}
