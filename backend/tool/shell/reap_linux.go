package shell

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var subreaper sync.Once

// becomeSubreaper makes this process the reaper of orphaned descendants,
// so a daemonised child of a command stays below Shrimp instead of
// escaping to init.
func becomeSubreaper() {
	subreaper.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// killLeft kills the shell's process group and every process that
// carries the call's mark, until two scans in a row find none left alive,
// then reaps those that became Shrimp's children. One clean scan is not
// enough: a process in the middle of exec (`setsid sleep 300 &` as the
// shell is killed) has no environment to read for a moment, and a fresh
// CI run found such a sleep alive after the call.
func killLeft(pgid int, mark string) {
	needle := []byte(markVar + "=" + mark + "\x00")
	seen := map[int]bool{}
	clean := 0
	for range 100 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		alive := 0
		for _, p := range scan(needle, pgid) {
			seen[p.pid] = true
			if p.state != 'Z' {
				alive++
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
		if alive > 0 {
			clean = 0
		} else if clean++; clean == 2 {
			break
		}
	}
	reap(seen)
}

type proc struct {
	pid   int
	state byte
}

// scan returns the processes in group pgid or whose environment holds
// needle (a zombie's environment is empty: it is found by its group).
func scan(needle []byte, pgid int) []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		state, group, ok := parseStat(stat)
		if !ok {
			continue
		}
		if group != pgid {
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !bytes.Contains(env, needle) {
				continue
			}
		}
		out = append(out, proc{pid, state})
	}
	return out
}

// parseStat reads the state and process group from /proc/PID/stat
// ("pid (comm) S ppid pgrp …"; comm may hold spaces and parentheses).
func parseStat(b []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	g, err := strconv.Atoi(string(f[2]))
	return f[0][0], g, err == nil
}

// reap waits for the killed processes that are Shrimp's children
// (reparented to it as subreaper), so none stays a zombie.
func reap(pids map[int]bool) {
	deadline := time.Now().Add(2 * time.Second)
	for len(pids) > 0 && time.Now().Before(deadline) {
		for pid := range pids {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			switch {
			case got == pid:
				delete(pids, pid) // reaped
			case err != nil && !exists(pid):
				delete(pids, pid) // gone: reaped by its own parent
			}
			// Otherwise it is not (yet) Shrimp's child: its parent, killed
			// too, may still be a zombie; once that is reaped it comes here.
		}
		if len(pids) > 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func exists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}
