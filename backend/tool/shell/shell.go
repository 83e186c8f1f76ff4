// Package shell provides shell.run: one command run by bash in the
// workspace (by /bin/sh where there is no bash), with a timeout, with a
// minimal environment and capped output.
//
// Bash, because models write bash: brace expansion (mkdir -p
// src/{a,b}), process substitution, [[ ]], source, &>. Debian's and
// Ubuntu's /bin/sh is dash, which made a folder named "{a,b}" and said
// nothing, refused "source", and ran "make &> log" in the background
// (dash reads it as "make &" and "> log"), while the approval question,
// which parses commands as bash, had shown a redirect.
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
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/internal/childproc"
	"github.com/shrimp-harness/shrimp/internal/sandbox"
	"github.com/shrimp-harness/shrimp/internal/textcut"
	"github.com/shrimp-harness/shrimp/internal/textfile"
)

// Args are shell.run's arguments.
type Args struct {
	Command string `json:"command" jsonschema_description:"the shell command to run in the workspace directory"`
	Timeout int    `json:"timeout,omitempty" jsonschema_description:"seconds it may run before it is stopped (default 120; up to 1800 for a build, an install or a test suite)"`
}

// DefaultTimeout is how long a command may run when the call does not
// say; MaxTimeout the most a call may ask for. Builds, installs and test
// suites often take minutes on a desktop (a minute, the only limit until
// the fifty-eighth session, stopped a first cargo build or npm install
// halfway); Stop ends any command at once.
const (
	DefaultTimeout = 120 * time.Second
	MaxTimeout     = 30 * time.Minute
)

// maxSeconds is MaxTimeout in the seconds a call gives.
const maxSeconds = int(MaxTimeout / time.Second)

// timeout is how long a call may run: what it asks for (whole seconds, at
// most MaxTimeout: a larger number, say milliseconds as another harness
// counts them, only gives it that long), else the Runner's (DefaultTimeout
// when unset); note says when the ask was cut.
func (r *Runner) timeout(in Args) (d time.Duration, note string) {
	switch {
	case in.Timeout > maxSeconds:
		return MaxTimeout, fmt.Sprintf("[timeout %d is more than the %d seconds a command may run: it had %d]\n", in.Timeout, maxSeconds, maxSeconds)
	case in.Timeout > 0:
		return time.Duration(in.Timeout) * time.Second, ""
	case r.Timeout > 0:
		return r.Timeout, ""
	}
	return DefaultTimeout, ""
}

// Runner runs commands in one workspace.
type Runner struct {
	Dir       string        // the workspace
	Timeout   time.Duration // per command that does not ask for its own (default DefaultTimeout)
	MaxOutput int           // bytes of stdout+stderr kept, half from the start and half from the end (default 64 KiB)
	// Confined runs commands confined to writing in Writable(Dir)
	// (internal/sandbox); the caller checks sandbox.Check first.
	Confined bool
	// Watch, when set, is called before each command runs, and what it
	// returns once the command has ended (package undo: what the command
	// changed is kept for undo).
	Watch func(ctx context.Context) (after func())
	// EnvFile, when set, names a file of shell text (export NAME=value
	// lines) the shell reads before each command: the session's
	// environment, which its session-start hooks wrote (Claude Code's
	// CLAUDE_ENV_FILE). A file missing or empty is skipped.
	EnvFile string
}

//go:embed homes.json
var homesJSON []byte

// homeVar is one of homes.json's: a variable that points a tool at what
// it keeps in the user's real home folder, and where that may be.
type homeVar struct {
	Env   string   `json:"env"`
	Paths []string `json:"paths"` // relative to the home folder, the first that exists
}

// homes are homes.json's.
var homes = func() []homeVar {
	var f struct {
		Homes []homeVar `json:"homes"`
	}
	if err := json.Unmarshal(homesJSON, &f); err != nil || len(f.Homes) == 0 {
		panic(fmt.Sprintf("shell: homes.json: %v", err)) // embedded data; a test reads it
	}
	return f.Homes
}()

//go:embed passed.json
var passedJSON []byte

// passed are passed.json's variable names.
var passed = func() []string {
	var f struct {
		Passed []string `json:"passed"`
	}
	if err := json.Unmarshal(passedJSON, &f); err != nil || len(f.Passed) == 0 {
		panic(fmt.Sprintf("shell: passed.json: %v", err)) // embedded data; a test reads it
	}
	return f.Passed
}()

// Passed are the variables (NAME=value) of Shrimp's environment (lookup)
// a command gets as they are: the network's proxy and certificate
// authority, the time zone (passed.json); unset ones are left out.
func Passed(lookup func(string) (string, bool)) []string {
	var out []string
	for _, name := range passed {
		if v, ok := lookup(name); ok && v != "" {
			out = append(out, name+"="+v)
		}
	}
	return out
}

// Homes are the variables (NAME=value) that point tools in workspace at
// what they keep in the user's home folder (home; homes.json): a
// variable Shrimp's environment sets (lookup) is passed on, else the
// first of its paths there that exists. None for a workspace that is the
// home folder or holds it: HOME is then the user's own.
func Homes(workspace, home string, lookup func(string) (string, bool)) []string {
	if home == "" || within(home, workspace) {
		return nil
	}
	var out []string
	for _, h := range homes {
		if v, ok := lookup(h.Env); ok && v != "" {
			out = append(out, h.Env+"="+v)
			continue
		}
		for _, p := range h.Paths {
			if _, err := os.Stat(filepath.Join(home, filepath.FromSlash(p))); err == nil {
				out = append(out, h.Env+"="+filepath.Join(home, filepath.FromSlash(p)))
				break
			}
		}
	}
	return out
}

// systemPath is the PATH a command always has.
var systemPath = []string{"/usr/local/bin", "/usr/bin", "/bin"}

// Path is the PATH commands in workspace get: Shrimp's own (where the
// user's toolchains are: /usr/local/go/bin, ~/.local/bin, ~/.cargo/bin),
// without what a command could plant a program in (a relative folder, or
// one where a confined command writes: the workspace and the temporary
// folders, so that the git the user approved is the git that runs), then
// the system's folders.
func Path(workspace, own string) string {
	var out []string
	writable := Writable(workspace)
	for _, dir := range append(strings.Split(own, string(os.PathListSeparator)), systemPath...) {
		if !filepath.IsAbs(dir) || slices.Contains(out, filepath.Clean(dir)) {
			continue
		}
		dir = filepath.Clean(dir)
		if slices.ContainsFunc(writable, func(w string) bool { return within(dir, w) }) {
			continue
		}
		out = append(out, dir)
	}
	return strings.Join(out, string(os.PathListSeparator))
}

// within reports whether path is dir or beneath it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// Writable is where a confined command may write: the workspace, the
// temporary folders, the null devices and the workspace's cache folder
// (CacheDir, where its tools' caches are put). Its HOME is the
// workspace, so what other tools keep under HOME is in it.
func Writable(workspace string) []string {
	out := []string{workspace, os.TempDir(), "/tmp", "/var/tmp", "/dev/shm", "/dev/null", "/dev/zero", "/dev/full"}
	if dir := CacheDir(workspace); dir != "" {
		out = append(out, dir)
	}
	return out
}

// Interpreter returns the shell commands run with: bash, found where
// systems keep it (/bin/bash, /usr/bin/bash, /usr/local/bin/bash, then
// PATH), else /bin/sh. Looked up once a process. A non-interactive bash
// reads no startup file but $BASH_ENV, which a command's environment
// never holds (Passed).
var Interpreter = sync.OnceValue(func() string {
	for _, p := range []string{"/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"} {
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath("bash"); err == nil && filepath.IsAbs(p) {
		return p
	}
	return "/bin/sh"
})

// Tool returns shell.run. A command that reaches another machine
// ([Description].Network) brings content from outside ([tool.Outsider]),
// and so does one that does not parse: nobody can tell where its output
// comes from.
func (r *Runner) Tool() tool.Tool {
	t := tool.Define("shell.run", "Run a command with "+shellName()+" in the workspace directory and return its output and exit status. Each call starts a new shell there: cd and exported variables do not carry over to the next call (cd web && npm test).", false, r.run)
	return tool.FromOutside(t, func(args json.RawMessage) string {
		var in Args
		if json.Unmarshal(args, &in) != nil {
			return ""
		}
		d := Describe(in.Command, r.Dir)
		switch {
		case d.Unparsed != "":
			return "the output of a command that does not parse as shell"
		case len(d.Network) > 0:
			return "the output of `" + d.Network[0] + "`"
		}
		return ""
	})
}

// IsBash reports whether shell (a path) is bash.
func IsBash(shell string) bool { return filepath.Base(shell) == "bash" }

// shellArgs are the interpreter's arguments to run command: for bash,
// no startup file either (--norc: bash reads ~/.bashrc, here the
// workspace's, when it takes itself to be run by a remote shell daemon).
func shellArgs(command string) []string {
	if IsBash(Interpreter()) {
		return []string{"--norc", "--noprofile", "-c", command}
	}
	return []string{"-c", command}
}

// shellName is what shell.run's description calls its shell.
func shellName() string {
	if IsBash(Interpreter()) {
		return "bash"
	}
	return "a POSIX shell (sh: no bash on this system)"
}

// Quote quotes s as one word for /bin/sh.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// capped keeps the first and the last n/2 bytes written and counts what
// it drops between them: a build's error is in its last lines, and a
// command that prints megabytes must not grow Shrimp by as much.
type capped struct {
	mu      sync.Mutex
	n       int
	head    []byte
	tail    []byte // the last bytes written after head filled, at most n/2 once trimmed
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	written := len(p)
	if room := c.n/2 - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.tail = append(c.tail, p...)
	if keep := c.n - c.n/2; len(c.tail) > 2*keep {
		// Trimmed in steps, so a stream of small writes copies each byte
		// a bounded number of times.
		c.dropped += len(c.tail) - keep
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-keep:]...)
	}
	return written, nil
}

// String is what was kept: the head, a note of what was dropped between,
// and the tail, cut between characters.
func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail, dropped := c.tail, c.dropped
	if keep := c.n - c.n/2; len(tail) > keep {
		dropped += len(tail) - keep
		tail = tail[len(tail)-keep:]
	}
	if dropped == 0 {
		return string(c.head) + string(tail)
	}
	head := c.head
	if len(head) > 0 && !utf8.FullRune(head[lastStart(head):]) {
		head = head[:lastStart(head)] // a character cut at the end of the head
		dropped += len(c.head) - len(head)
	}
	skip := textcut.After(tail, 0) // a character cut at the start of the tail
	tail, dropped = tail[skip:], dropped+skip
	// Said again last: a model shown only the ends of this (the agent cuts
	// long results) still learns how much it did not see.
	return fmt.Sprintf("%s\n[… %d bytes of output not kept …]\n%s\n[the command printed %d bytes; %d between its first and last part were not kept]",
		head, dropped, tail, len(head)+dropped+len(tail), dropped)
}

// lastStart is the index of the last character's first byte in b.
func lastStart(b []byte) int {
	i := len(b) - 1
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return max(i, 0)
}

func (r *Runner) run(ctx context.Context, in Args) (string, error) {
	if strings.TrimSpace(in.Command) == "" {
		return "", errors.New("command is empty")
	}
	timeout, note := r.timeout(in)
	if r.Watch != nil {
		defer r.Watch(ctx)()
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
	command := in.Command
	if info, err := os.Stat(r.EnvFile); r.EnvFile != "" && err == nil && info.Size() > 0 {
		// Read by the same shell, so what it exports holds for the
		// command; one that fails stops it, saying so.
		command = fmt.Sprintf(". %s || { echo 'shrimp: the session environment (%s, written by its session-start hooks) failed; the command was not run' >&2; exit 1; }\n%s", Quote(r.EnvFile), strings.ReplaceAll(r.EnvFile, "'", ""), in.Command)
	}
	cmd := exec.CommandContext(ctx, Interpreter(), shellArgs(command)...)
	cmd.Dir = r.Dir
	cmd.Env = []string{"PATH=" + Path(r.Dir, os.Getenv("PATH")), "HOME=" + r.Dir, "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1", markVar + "=" + mark}
	home, _ := os.UserHomeDir()
	cmd.Env = append(cmd.Env, Homes(r.Dir, home, os.LookupEnv)...)
	cmd.Env = append(cmd.Env, Passed(os.LookupEnv)...)
	cmd.Env = append(cmd.Env, Caches(r.Dir, r.Confined, os.LookupEnv)...)
	if dir := CacheDir(r.Dir); dir != "" {
		// Made first (the sandbox allows writing only in folders that are
		// there), and not left behind empty by a command that kept nothing.
		_ = os.MkdirAll(dir, 0o700)
		markUsed(r.Dir, dir)
		defer usedCache(dir)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	childproc.Guard(cmd) // its group dies with Shrimp, even killed, where the system can
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
			term := &terminal{next: out}
			_, _ = io.Copy(term, pr)
			_ = term.Flush()
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
	text := note + legible(out.String())
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return text, fmt.Errorf("command timed out: still running after %v, it was stopped; if it needs longer (a build, an install, a test suite), make the call again with a larger timeout (seconds, at most %d); a server or a watcher (npm run dev, --watch) runs until stopped, and what a call starts is stopped when it ends: run a command that finishes instead (a build, a test, a request to a server started in the same command)", timeout, maxSeconds)
	case ctx.Err() != nil:
		return text, fmt.Errorf("command cancelled: %w", ctx.Err())
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if asksAtTerminal(text) {
				return text, fmt.Errorf("command exited with status %d; commands here have no terminal, so one that asks for a password or a confirmation there (sudo, git over https without a credential helper, gpg signing, ssh) cannot ask and fails: tell the user, who can run it in their own terminal", ee.ExitCode())
			}
			if sshRefused(text) {
				return text, fmt.Errorf("command exited with status %d; commands here run without the user's SSH keys, agent and known hosts (HOME is the workspace, and no SSH_AUTH_SOCK is passed), so a git push or pull over SSH cannot sign in: tell the user, who can run it in their own terminal (or use an https remote with a credential helper)", ee.ExitCode())
			}
			if r.Confined && refused(text) {
				hint := ""
				if gitDir, top, ok := OutsideGitDir(r.Dir); ok && strings.Contains(text, gitDir) {
					hint = fmt.Sprintf("; the workspace lies in the git repository at %s, whose git folder (%s) is outside it, so git commands that change the repository (add, commit, checkout, stash) cannot work here: tell the user, who can choose %s as the workspace", top, gitDir, top)
				}
				return text, fmt.Errorf("command exited with status %d; it ran in the shell sandbox, where a command can write only in the workspace (%s) and the temporary folders: a write elsewhere is refused (the user can switch the sandbox off in Settings)%s", ee.ExitCode(), r.Dir, hint)
			}
			return text, fmt.Errorf("command exited with status %d", ee.ExitCode())
		}
		return text, fmt.Errorf("run command: %w", err)
	}
	if stateOnly(in.Command) {
		text += afresh
	}
	return text, nil
}

// sshRefused reports whether ssh could not sign in or trust the host.
func sshRefused(out string) bool {
	return strings.Contains(out, "Permission denied (publickey") || strings.Contains(out, "Host key verification failed")
}

// asksAtTerminal reports whether a command's output says it wanted to
// ask at the terminal, which commands here do not have
// (internal/childproc): sudo's two wordings, git's prompt for https
// credentials, gpg's pinentry, and a shell's own open of /dev/tty (to
// write, the sandbox refuses it first).
func asksAtTerminal(out string) bool {
	for _, s := range []string{"a terminal is required", "no tty present", "could not read Username for", "could not read Password for", "signing failed: Inappropriate ioctl for device", "/dev/tty: No such device or address", "/dev/tty: Permission denied"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
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

// legible is a command's output as text for the model and the timeline.
// Output that is not UTF-8 but reads as a legacy 8-bit encoding (cat or
// grep of a file a Windows program wrote) is read as Windows-1252, as the
// file tools read such a file, and says so: as bytes it reached the model
// as U+FFFD for every é, which it copied into its edits. UTF-8 with a
// stray byte, and binary output, are left as they are.
func legible(out string) string {
	if utf8.ValidString(out) {
		return out
	}
	form := textfile.Sniff([]byte(out), true)
	if form.Encoding != textfile.Windows1252 {
		return out
	}
	return form.Decode([]byte(out)) + "\n[the output is not UTF-8: shown read as Windows-1252; a command given its text (grep, sed) must spell it in that encoding, or convert the file first with iconv -f WINDOWS-1252 -t UTF-8]"
}
