package store

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestOpenedByManyAtOnce: processes opening one new data directory at the
// same moment (the window and a terminal started together, or both after
// an upgrade that brings migrations) all open it, and each migration is
// applied once. Before, three of four failed with "table ... already
// exists" or a UNIQUE constraint on schema_migrations.
func TestOpenedByManyAtOnce(t *testing.T) {
	if dir := os.Getenv("SHRIMP_STORE_OPEN_CHILD"); dir != "" {
		s, err := Open(dir)
		if err != nil {
			fmt.Println("open:", err)
			os.Exit(3)
		}
		s.Close()
		return
	}
	if testing.Short() {
		t.Skip("skipped in -short mode: runs child processes")
	}
	for round := range 3 {
		dir := t.TempDir()
		const n = 6
		outs := make([][]byte, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestOpenedByManyAtOnce$", "-test.count=1")
				cmd.Env = append(os.Environ(), "SHRIMP_STORE_OPEN_CHILD="+dir)
				outs[i], errs[i] = cmd.CombinedOutput()
			})
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Errorf("round %d, process %d: %v\n%s", round, i, errs[i], outs[i])
			}
		}
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		var versions []int
		if err := s.db.Model(&migration{}).Order("version").Pluck("version", &versions).Error; err != nil {
			t.Fatal(err)
		}
		s.Close()
		if len(versions) != len(migrations)-1 {
			t.Fatalf("round %d: %d migrations recorded, want %d: %v", round, len(versions), len(migrations)-1, versions)
		}
		if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
			t.Fatal(err)
		}
	}
}
