package childproc

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestParentDeathSignal: on Linux the signal asked for is the one the
// kernel is told to send.
func TestParentDeathSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		if got := Attr(sig).Pdeathsig; got != sig {
			t.Errorf("Attr(%v).Pdeathsig = %v", sig, got)
		}
	}
}

// TestGuardKeepsTheProgram: a guarded program gets its arguments as
// given, its input, and its exit status is the command's; a program that
// is not there fails to start as it would unguarded.
func TestGuardKeepsTheProgram(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantOut  string
		wantExit int
		wantErr  string // the program's error output
	}{
		{"arguments", []string{"/bin/sh", "-c", `printf '[%s]' "$0" "$@"`, "zero", "a b", "$HOME", `"q"`, ""}, "", `[zero][a b][$HOME]["q"][]`, 0, ""},
		{"input", []string{"/bin/sh", "-c", "read x; echo got $x"}, "hello\n", "got hello\n", 0, ""},
		{"status", []string{"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, "", "out\n", 3, "err\n"},
		{"signal", []string{"/bin/sh", "-c", "kill -9 $$"}, "", "", -1, ""},
		{"status like a signal's", []string{"/bin/sh", "-c", "exit 145"}, "", "", 145, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(tt.args[0], tt.args[1:]...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			Guard(cmd)
			out, err := cmd.Output()
			if string(out) != tt.wantOut || stderr.String() != tt.wantErr || cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != tt.wantExit {
				t.Fatalf("out %q, error output %q, err %v, state %v; want %q, %q exiting %d", out, stderr.String(), err, cmd.ProcessState, tt.wantOut, tt.wantErr, tt.wantExit)
			}
			if cmd.SysProcAttr.Pdeathsig != syscall.SIGTERM || !cmd.SysProcAttr.Setsid {
				t.Errorf("guard's SysProcAttr = %+v", cmd.SysProcAttr)
			}
		})
	}
	// A program relative to the command's folder is found there.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hook.sh"), []byte("#!/bin/sh\necho from \"$(basename \"$PWD\")\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rel := exec.Command("./hook.sh")
	rel.Dir = dir
	Guard(rel)
	if out, err := rel.Output(); err != nil || string(out) != "from "+filepath.Base(dir)+"\n" || rel.Path != "/bin/sh" {
		t.Errorf("a program relative to the command's folder: %q %v (run as %s)", out, err, rel.Path)
	}
	for _, name := range []string{"shrimp-no-such-program", "/nonexistent/program", "/etc/passwd", "./hook.sh"} {
		bare := exec.Command(name).Start()
		cmd := exec.Command(name)
		Guard(cmd)
		if err := cmd.Start(); err == nil || bare == nil || err.Error() != bare.Error() {
			t.Errorf("%s started guarded: %v, unguarded: %v", name, err, bare)
		}
	}
}

// parentEnv turns the test binary into a parent that starts the command
// in commandEnv ("guard": guarded, "bare": with only the parent-death
// signal) and says the command's process group.
const parentEnv, commandEnv = "CHILDPROC_TEST_PARENT", "CHILDPROC_TEST_COMMAND"

func TestMain(m *testing.M) {
	if how := os.Getenv(parentEnv); how != "" {
		cmd := exec.Command("/bin/sh", "-c", os.Getenv(commandEnv))
		cmd.Stdout = os.Stdout
		if how == "guard" {
			Guard(cmd)
		} else {
			cmd.SysProcAttr = Attr(syscall.SIGKILL)
		}
		if err := cmd.Start(); err != nil {
			fmt.Println("start:", err)
			os.Exit(1)
		}
		fmt.Println("group", cmd.Process.Pid)
		_ = cmd.Wait()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestGuardDiesWithShrimp: when the process that started a guarded
// command is killed outright, everything the command started dies too:
// the program is sent SIGTERM first (one that traps it cleans up), and
// the group is killed two seconds later, whatever ignores it. Started
// bare (only the parent-death signal), the background sleep lives on,
// which is what the guard is for. Each command says "ready" once its
// background sleep has started.
func TestGuardDiesWithShrimp(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, how, command string
		wantSurvivor       bool
		wantFile           string // a file the command writes on SIGTERM
	}{
		{"background", "guard", "sleep 600 & echo ready; sleep 601", false, ""},
		{"cleans up", "guard", "trap 'echo bye > " + dir + "/bye; exit 0' TERM; sleep 600 & echo ready; wait", false, dir + "/bye"},
		{"ignores TERM", "guard", "trap '' TERM; sleep 600 & echo ready; sleep 601", false, ""},
		{"bare", "bare", "sleep 600 & echo ready; sleep 601", true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parent := exec.Command(os.Args[0], "-test.run=^$")
			parent.Env = append(os.Environ(), parentEnv+"="+tt.how, commandEnv+"="+tt.command)
			out, err := parent.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := parent.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(out)
			group, ready := 0, false
			for (group == 0 || !ready) && lines.Scan() {
				if n, ok := strings.CutPrefix(lines.Text(), "group "); ok {
					group, _ = strconv.Atoi(n)
				}
				ready = ready || lines.Text() == "ready"
			}
			if group == 0 || !ready {
				_ = parent.Process.Kill()
				t.Fatalf("the parent said no group (%d) or the command was not ready (%v)", group, ready)
			}
			t.Cleanup(func() { _ = syscall.Kill(-group, syscall.SIGKILL) })
			if n := len(inGroup(group)); n < 2 {
				t.Fatalf("%d processes in the command's group before the kill, want the shell and its sleep", n)
			}
			_ = parent.Process.Kill()
			_ = parent.Wait()
			deadline := time.Now().Add(time.Minute)
			left := inGroup(group)
			for len(left) > 0 && time.Now().Before(deadline) && !tt.wantSurvivor {
				time.Sleep(20 * time.Millisecond)
				left = inGroup(group)
			}
			if tt.wantSurvivor {
				// Once the kernel's signal has killed the shell, its
				// sleeps must still be there.
				for slices.Contains(left, group) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
					left = inGroup(group)
				}
				if slices.Contains(left, group) || len(left) == 0 {
					t.Fatalf("without the guard, left %v: the test cannot tell the guard works", left)
				}
				return
			}
			if len(left) > 0 {
				t.Fatalf("processes %v of the command's group outlived their parent by a minute", left)
			}
			if b, err := os.ReadFile(tt.wantFile); tt.wantFile != "" && string(b) != "bye\n" {
				t.Errorf("the command was not sent SIGTERM before its group was killed: %q %v", b, err)
			}
		})
	}
}

// inGroup returns the live processes (not zombies) in process group pgid.
func inGroup(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// After the command's name in parentheses: state, ppid, pgrp.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
