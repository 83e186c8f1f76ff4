package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killedEnv turns the test binary into a Shrimp that runs one command
// (confined when it says "true") in the folder named by killedDir, and
// is then killed by the test.
const killedEnv, killedDir = "SHELL_TEST_KILLED", "SHELL_TEST_KILLED_DIR"

func TestMain(m *testing.M) {
	if confined := os.Getenv(killedEnv); confined != "" {
		r := Runner{Dir: os.Getenv(killedDir), Timeout: time.Hour, Confined: confined == "true"}
		_, err := r.run(context.Background(), Args{Command: "sleep 300 & echo $! > pids; sleep 301 & echo $! >> pids; echo ready > ready; wait"})
		fmt.Println(err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestNothingOutlivesShrimpKilled: a command under way when Shrimp is
// killed outright (SIGKILL, the OOM killer) takes everything it started
// with it, not only its shell: a model's `npm run dev &` or `sleep 300`
// would otherwise run on with init as its parent.
func TestNothingOutlivesShrimpKilled(t *testing.T) {
	for _, confined := range confinements(t) {
		t.Run(fmt.Sprint("confined=", confined), func(t *testing.T) {
			dir := t.TempDir()
			shrimp := exec.Command(os.Args[0], "-test.run=^$")
			shrimp.Env = append(os.Environ(), killedEnv+"="+strconv.FormatBool(confined), killedDir+"="+dir)
			if err := shrimp.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(time.Minute)
			for {
				if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					_ = shrimp.Process.Kill()
					t.Fatal("the command did not start within a minute")
				}
				time.Sleep(10 * time.Millisecond)
			}
			b, err := os.ReadFile(filepath.Join(dir, "pids"))
			if err != nil {
				t.Fatal(err)
			}
			var pids []int
			for _, f := range strings.Fields(string(b)) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatal(err)
				}
				pids = append(pids, pid)
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			}
			if len(pids) != 2 || !alive(pids[0]) || !alive(pids[1]) {
				t.Fatalf("the command's sleeps %v are not running", pids)
			}
			_ = shrimp.Process.Kill()
			_ = shrimp.Wait()
			for (alive(pids[0]) || alive(pids[1])) && time.Now().Before(deadline.Add(time.Minute)) {
				time.Sleep(10 * time.Millisecond)
			}
			for _, pid := range pids {
				if alive(pid) {
					t.Errorf("process %d outlived Shrimp killed", pid)
				}
			}
		})
	}
}

// alive reports whether process pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	state, _, ok := parseStat(b)
	return ok && state != 'Z'
}
