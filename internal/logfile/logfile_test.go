package logfile

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "shrimp.log")
	l, err := Open(path, 2000, func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED:password]") })
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(l, nil))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				log.Error("could not connect", "writer", i, "n", j, "url", "https://me:hunter2@example.com")
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var lines int
	for _, p := range []string{path, path + ".1"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(p)
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v", p, st.Mode().Perm())
		}
		if len(b) > 2000+200 {
			t.Errorf("%s holds %d bytes, past its size", p, len(b))
		}
		if strings.Contains(string(b), "hunter2") || !strings.Contains(string(b), "[REDACTED:password]") {
			t.Errorf("%s was not filtered: %.200s", p, b)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if !strings.HasPrefix(line, "time=") || !strings.HasSuffix(line, "@example.com") {
				t.Errorf("a record was cut or mixed with another: %q", line)
			}
			lines++
		}
	}
	if lines == 0 || lines > 160 {
		t.Errorf("%d records kept of 160", lines)
	}
	if _, err := os.Stat(path + ".2"); err == nil {
		t.Error("more than one old log kept")
	}
	// Writing after Close loses the record, not the program.
	if n, err := l.Write([]byte("late\n")); n != 5 || err != nil {
		t.Errorf("Write after Close = %d, %v", n, err)
	}
}
