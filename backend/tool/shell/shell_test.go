package shell

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		r       Runner
		cmd     string
		wantOut string
		wantErr string
	}{
		{"output and cwd", Runner{Dir: dir}, "echo hi; pwd", "hi\n" + dir, ""},
		{"minimal env", Runner{Dir: dir}, "echo ${SECRET_TOKEN:-unset}", "unset", ""},
		{"exit status", Runner{Dir: dir}, "echo oops >&2; exit 3", "oops", "exited with status 3"},
		{"output cap", Runner{Dir: dir, MaxOutput: 10}, "yes | head -c 1000", "more bytes of output not kept", ""},
		{"timeout", Runner{Dir: dir, Timeout: 200 * time.Millisecond}, "sleep 30", "", "timed out"},
	}
	t.Setenv("SECRET_TOKEN", "s3cret")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.r.run(context.Background(), Args{Command: tt.cmd})
			if !strings.Contains(out, tt.wantOut) {
				t.Fatalf("output %q lacks %q", out, tt.wantOut)
			}
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestTimeoutKillsTheGroup: a background child of the shell dies with it.
func TestTimeoutKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	r := Runner{Dir: dir, Timeout: 300 * time.Millisecond}
	_, err := r.run(context.Background(), Args{Command: "sleep 60 & echo $! > pid; wait"})
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("err %v", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("background child %d survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestNothingOutlivesTheCall: background jobs, nohup, setsid and double
// forks are gone (not even zombies) when the call returns, and the output
// of a backgrounded command is returned without an error.
func TestNothingOutlivesTheCall(t *testing.T) {
	tests := []struct {
		name, cmd, wantOut string
	}{
		{"background job", "sleep 300 & echo $! > pids; echo x", "x"},
		{"nohup", "nohup sleep 300 >/dev/null 2>&1 & echo $! > pids; echo started", "started"},
		{"setsid", "setsid sleep 300 & echo $! > pids; echo ok", "ok"},
		{"double fork", "(sh -c 'sleep 300 & echo $! >> pids' &); sleep 0.2; echo forked", "forked"},
		{"setsid double fork", "setsid sh -c 'sleep 300 & echo $! >> pids; wait' & sleep 0.2; echo daemon", "daemon"},
		{"background writer holds the output", "(while :; do echo tick; sleep 0.05; done) & echo $! > pids; echo first", "first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := Runner{Dir: dir, Timeout: 2 * time.Minute}
			out, err := r.run(context.Background(), Args{Command: tt.cmd})
			if err != nil {
				t.Fatalf("err %v (output %q)", err, out)
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Fatalf("output %q lacks %q", out, tt.wantOut)
			}
			b, err := os.ReadFile(filepath.Join(dir, "pids"))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range strings.Fields(string(b)) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat("/proc/" + f); err == nil {
					stat, _ := os.ReadFile("/proc/" + f + "/stat")
					t.Errorf("process %d outlived the call: %s", pid, stat)
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}
