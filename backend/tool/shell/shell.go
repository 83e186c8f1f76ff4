// Package shell provides shell.run: one command run by /bin/sh in the
// workspace, with a timeout, with a minimal environment and capped output.
//
// No process a call starts outlives the call. The shell runs in its own
// process group, every process it starts carries a mark in its
// environment (SHRIMP_CALL), and Shrimp is a child subreaper (Linux), so
// background jobs, nohup, setsid and double forks stay findable; when the
// shell exits, times out or is cancelled, the group and every marked
// process are killed and reaped. A backgrounded command's output up to
// then is returned. Not covered: a command that deliberately clears its
// environment and then daemonises (see docs/SECURITY.md).
//
// A Runner that is Confined starts each command from a thread
// internal/sandbox confined: the command and everything it starts write
// only in the workspace and the temporary folders ([Writable]); reading
// and running stay free. A command that cannot be confined is not run.
package shell

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/internal/childproc"
	"github.com/shrimp-harness/shrimp/internal/sandbox"
)

// Args are shell.run's arguments.
type Args struct {
	Command string `json:"command" jsonschema:"description=the shell command to run in the workspace directory"`
}

// Runner runs commands in one workspace.
type Runner struct {
	Dir       string        // the workspace
	Timeout   time.Duration // per command (default 60 s)
	MaxOutput int           // bytes of stdout+stderr kept (default 64 KiB)
	// Confined runs commands confined to writing in Writable(Dir)
	// (internal/sandbox); the caller checks sandbox.Check first.
	Confined bool
}

// Writable is where a confined command may write: the workspace, the
// temporary folders and the null devices. Its HOME is the workspace, so
// the caches tools keep under HOME (Go's, npm's, pip's) are in it.
func Writable(workspace string) []string {
	return []string{workspace, os.TempDir(), "/tmp", "/var/tmp", "/dev/shm", "/dev/null", "/dev/zero", "/dev/full"}
}

// Tool returns shell.run.
func (r *Runner) Tool() tool.Tool {
	return tool.Define("shell.run", "Run a shell command in the workspace directory and return its output and exit status.", false, r.run)
}

// capped keeps the first n bytes written and counts the rest.
type capped struct {
	mu      sync.Mutex
	b       bytes.Buffer
	n       int
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.n - c.b.Len()
	if room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	if len(p) > room {
		c.dropped += len(p) - max(room, 0)
	}
	return len(p), nil
}

func (r *Runner) run(ctx context.Context, in Args) (string, error) {
	if strings.TrimSpace(in.Command) == "" {
		return "", errors.New("command is empty")
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := &capped{n: r.MaxOutput}
	if out.n <= 0 {
		out.n = 64 << 10
	}
	mark := newMark()
	// The output goes through a pipe Shrimp reads itself, so the call ends
	// when the shell does, not when the last background job closes it.
	pr, pw, err := os.Pipe()
	if err != nil {
		return "", fmt.Errorf("run command: %w", err)
	}
	defer pr.Close()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", in.Command)
	cmd.Dir = r.Dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + r.Dir, "LANG=C.UTF-8", "TERM=dumb", markVar + "=" + mark}
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = childproc.Attr(syscall.SIGKILL) // dies with Shrimp, even killed, where the system can
	cmd.Cancel = func() error {
		// Kill the whole group: the shell and everything it started.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
	becomeSubreaper()
	copied := make(chan struct{})
	started := false
	// Start and Wait on one goroutine: confined, it holds the confined
	// thread the shell was forked from, whose end would send the shell
	// its parent-death signal.
	startAndWait := func() error {
		if err := cmd.Start(); err != nil {
			return err
		}
		started = true
		pw.Close()
		go func() {
			_, _ = io.Copy(out, pr)
			close(copied)
		}()
		err = cmd.Wait()
		return nil
	}
	var startErr error
	if r.Confined {
		startErr = sandbox.Run(Writable(r.Dir), startAndWait)
	} else {
		startErr = startAndWait()
	}
	if !started {
		pw.Close()
		return "", fmt.Errorf("run command: %w", startErr)
	}
	killLeft(cmd.Process.Pid, mark)
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
		pr.Close() // a writer Shrimp could not kill holds the pipe
		<-copied
	}
	out.mu.Lock()
	text := out.b.String()
	if out.dropped > 0 {
		text += fmt.Sprintf("\n[… %d more bytes of output not kept]", out.dropped)
	}
	out.mu.Unlock()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return text, fmt.Errorf("command timed out after %v and was killed", timeout)
	case ctx.Err() != nil:
		return text, fmt.Errorf("command cancelled: %w", ctx.Err())
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if r.Confined && refused(text) {
				return text, fmt.Errorf("command exited with status %d; it ran in the shell sandbox, where a command can write only in the workspace (%s) and the temporary folders: a write elsewhere is refused (the user can switch the sandbox off in Settings)", ee.ExitCode(), r.Dir)
			}
			return text, fmt.Errorf("command exited with status %d", ee.ExitCode())
		}
		return text, fmt.Errorf("run command: %w", err)
	}
	return text, nil
}

// refused reports whether a command's output says a write was refused,
// as the sandbox refuses it.
func refused(out string) bool {
	return strings.Contains(out, "Permission denied") || strings.Contains(out, "Operation not permitted") || strings.Contains(out, "Read-only file system")
}

// markVar is the environment variable that marks a call's processes.
const markVar = "SHRIMP_CALL"

func newMark() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
