// Package doctor runs Shrimp's health checks: each says pass, warn or
// fail, what it found and what to do. The checks that need the harness's
// parts (Ollama, the store, procedural memory) are written where those
// parts are wired (app); the ones about the machine are here.
//
// Its contract: [Run] runs every check side by side, each bounded by a
// timeout (a check that does not finish fails and says so), recovers a
// check that panics (it fails), and returns the results in the order
// given. A result that is not a pass always says what to do (Fix).
package doctor

import (
	"bufio"
	"context"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shrimp-harness/shrimp/backend/webview"
)

// Status is a check's verdict.
type Status string

// The verdicts.
const (
	Pass Status = "pass"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Result is one check's line: `shrimp doctor --json` prints an array of
// them.
type Result struct {
	Check  string `json:"check"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

// Check is one named check.
type Check struct {
	Name string
	Run  func(ctx context.Context) Result
}

// Timeout bounds one check when Run is given none.
const Timeout = 15 * time.Second

// Run runs the checks side by side and returns their results in order.
func Run(ctx context.Context, checks []Check, timeout time.Duration) []Result {
	if timeout <= 0 {
		timeout = Timeout
	}
	out := make([]Result, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Go(func() { out[i] = runOne(ctx, c, timeout) })
	}
	wg.Wait()
	return out
}

func runOne(ctx context.Context, c Check, timeout time.Duration) Result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- Result{Status: Fail, Detail: fmt.Sprintf("the check itself failed: %v", p), Fix: "report this as a bug, with the output of shrimp doctor"}
			}
		}()
		done <- c.Run(ctx)
	}()
	var r Result
	select {
	case r = <-done:
	case <-ctx.Done():
		r = Result{Status: Fail, Detail: fmt.Sprintf("no answer within %s", timeout), Fix: "something it depends on hangs; run shrimp doctor again, and check the part it names"}
	}
	r.Check = c.Name
	return r
}

// Failed reports whether any result is a failure (the exit status 1).
func Failed(rs []Result) bool {
	for _, r := range rs {
		if r.Status == Fail {
			return true
		}
	}
	return false
}

// Writable checks that Shrimp can create files in its data directory.
func Writable(dir string) Result {
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return Result{Status: Fail, Detail: fmt.Sprintf("cannot write in %s: %v", dir, err),
			Fix: fmt.Sprintf("give your user write access to %s, or choose another with --data-dir or SHRIMP_DATA_DIR", dir)}
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return Result{Status: Pass, Detail: dir + " is writable"}
}

// Free is the space free for this user on the file system holding path.
func Free(path string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// Disk thresholds: under WarnFree a warning, under FailFree a failure.
const (
	WarnFree = 1 << 30
	FailFree = 100 << 20
)

// DiskFree judges the free space where the data directory is; free is
// Free, or a stand-in in tests.
func DiskFree(dir string, free func(string) (uint64, error)) Result {
	n, err := free(dir)
	if err != nil {
		return Result{Status: Warn, Detail: fmt.Sprintf("cannot tell the free space at %s: %v", dir, err), Fix: "check it with df -h " + dir}
	}
	detail := fmt.Sprintf("%s free at %s", humanBytes(n), dir)
	switch {
	case n < FailFree:
		return Result{Status: Fail, Detail: detail, Fix: "free some space: sessions and the procedure index are written there (shrimp sessions list shows what can go)"}
	case n < WarnFree:
		return Result{Status: Warn, Detail: detail, Fix: "free some space soon: a full disk stops sessions from being stored"}
	}
	return Result{Status: Pass, Detail: detail}
}

func humanBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// GUILibraries are the shared libraries the window needs, with the
// Debian packages that hold them: the WebKitGTK this binary was built for
// (webkit41.go, webkit40.go).
var GUILibraries = []struct{ Lib, Package string }{
	{"libgtk-3.so.0", "libgtk-3-0"},
	{webkitLib, webkitPackage},
}

// HasLibrary reports whether the dynamic linker can find a library: in
// ldconfig's cache, else in the usual folders.
func HasLibrary(name string) bool {
	if out, err := exec.Command("/sbin/ldconfig", "-p").Output(); err == nil {
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		for sc.Scan() {
			if strings.HasPrefix(strings.TrimSpace(sc.Text()), name+" ") {
				return true
			}
		}
	}
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// Window checks that the window can open: GTK 3 and the WebKitGTK the
// binary was built for are installed (has is HasLibrary, or a stand-in)
// and there is a display.
// Either missing is a warning, not a failure: the CLI, on the same core,
// works without them, so a headless install is healthy.
func Window(has func(string) bool, getenv func(string) string) Result {
	var missing, pkgs []string
	for _, l := range GUILibraries {
		if !has(l.Lib) {
			missing = append(missing, l.Lib)
			pkgs = append(pkgs, l.Package)
		}
	}
	if len(missing) > 0 {
		return Result{Status: Warn, Detail: "the window cannot open: missing " + strings.Join(missing, ", "),
			Fix: "sudo apt install " + strings.Join(pkgs, " ") + " (the CLI works without them)"}
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return Result{Status: Warn, Detail: "GTK 3 and " + webkitName + " are installed, but there is no display here (DISPLAY and WAYLAND_DISPLAY are empty)",
			Fix: "open the window from a desktop session; over SSH use the CLI (shrimp chat …)"}
	}
	return Result{Status: Pass, Detail: "GTK 3 and " + webkitName + " are installed and a display is set"}
}

// Drawing reports how the window draws on this machine (webview.Choose):
// a warning when the override's value is not understood, or when a GPU
// is there but this user cannot draw with it (the window then draws in
// software: it works, scrolling a long chat costs more CPU).
func Drawing(c webview.Choice) Result {
	switch {
	case c.Problem != "":
		return Result{Status: Warn, Detail: "the window draws " + c.Why + "; " + c.Problem,
			Fix: "set " + webview.Override + " to on or off, or unset it"}
	case c.Blocked != "" && !c.GPU:
		return Result{Status: Warn, Detail: "the window draws " + c.Why,
			Fix: "sudo usermod -aG render $USER, then log in again (on a remote desktop the GPU may not be shared: nothing to do); " + webview.Override + "=on tries the GPU anyway"}
	}
	return Result{Status: Pass, Detail: "the window draws " + c.Why}
}

// Encoder judges the sentence encoder's matrix kernel (sentence.Kernel):
// a portable one works, slower.
func Encoder(kernel string, vector bool) Result {
	if vector {
		return Result{Status: Pass, Detail: "the sentence encoder uses " + kernel}
	}
	return Result{Status: Warn, Detail: "the sentence encoder runs " + kernel + ": recall works, a few times slower",
		Fix: "nothing is needed: a recall whose encoding is late answers from the words alone; x86-64 CPUs with AVX2 and FMA (most since 2013) run the encoder in vector code"}
}

// LockHolder returns the process holding a lock (flock) on file, from
// /proc/locks, with its command name; 0 when none is found (or it is this
// process).
func LockHolder(file string) (pid int, command string) {
	info, err := os.Stat(file)
	if err != nil {
		return 0, ""
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, ""
	}
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0, ""
	}
	suffix := fmt.Sprintf(":%d", st.Ino)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] == "->" || !strings.HasSuffix(f[5], suffix) {
			continue
		}
		if _, err := fmt.Sscan(f[4], &pid); err != nil || pid == os.Getpid() {
			pid = 0
			continue
		}
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		return pid, strings.TrimSpace(string(comm))
	}
	return 0, ""
}
