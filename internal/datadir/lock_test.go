package datadir

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockChildEnv names the counter file a child of TestLockSerialisesProcesses
// increments.
const lockChildEnv = "SHRIMP_TEST_LOCK_COUNTER"

// increments is how many read-modify-writes each child makes.
const increments = 25

// TestLockSerialisesProcesses has several processes each read a counter
// file, add one and write it back (Edit), many times at once: under Lock
// none of their changes is lost (without it, most are).
func TestLockSerialisesProcesses(t *testing.T) {
	if path := os.Getenv(lockChildEnv); path != "" {
		for range increments {
			if err := bump(path); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		return
	}
	path := filepath.Join(t.TempDir(), "counter.json")
	if err := WritePrivate(path, []byte("0")); err != nil {
		t.Fatal(err)
	}
	const procs = 5
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLockSerialisesProcesses$", "-test.count=1")
			cmd.Env = append(os.Environ(), lockChildEnv+"="+path)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("child: %v: %s", err, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := read(t, path); got != procs*increments {
		t.Errorf("counter = %d after %d processes added %d each: changes were lost", got, procs, increments)
	}
	if info, err := os.Stat(path + ".lock"); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("lock file: %v, %v (want mode 0600)", info, err)
	}
}

// bump adds one to the counter at path through Edit.
func bump(path string) error {
	load := func(path string) (int, error) {
		b, err := ReadPrivate(path)
		if err != nil {
			return 0, err
		}
		return strconv.Atoi(string(b))
	}
	save := func(n int, path string) error { return WritePrivate(path, []byte(strconv.Itoa(n))) }
	return Edit(path, load, save, func(n *int) error { *n++; return nil })
}

func read(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLockWaitsThenSaysWhy holds the lock (another open of the lock file
// conflicts as another process's would) and checks a second Lock gives up
// after its wait with an error naming the file, then gets it once the
// first lets go.
func TestLockWaitsThenSaysWhy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	unlock, err := Lock(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(path, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("second Lock while held: %v (want an error naming %s and saying to try again)", err, path)
	}
	unlock()
	again, err := Lock(path, time.Second)
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	again()
}

// TestLockUnwritableFolder says which file could not be locked.
func TestLockUnwritableFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "hooks.json")
	if _, err := Lock(path, time.Second); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Lock in a missing folder: %v (want an error naming %s)", err, path)
	}
}

// TestUnsupported: a file system without flock lets a change go on; a lock
// another process holds does not.
func TestUnsupported(t *testing.T) {
	for err, want := range map[error]bool{
		syscall.ENOLCK:      true,
		syscall.EOPNOTSUPP:  true,
		syscall.EINVAL:      true,
		syscall.EWOULDBLOCK: false,
		syscall.EINTR:       false,
		syscall.EBADF:       false,
	} {
		if got := unsupported(err); got != want {
			t.Errorf("unsupported(%v) = %v, want %v", err, got, want)
		}
	}
}
