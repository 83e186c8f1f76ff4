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
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("background child %d survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
