package desktop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/internal/ollamatest"
)

// TestProceduresExportImportInTheWindow: the procedure browser's Export
// writes a private file where the user chose, its Import checks a file
// first (a dry run adds nothing) and then adds what it said; paths are
// whole or from home, and with no file dialog PickFile says to type one.
func TestProceduresExportImportInTheWindow(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Model{Name: "m"})
	a, _ := openWindowApp(t, srv.URL, "m")
	b, _ := openWindowApp(t, srv.URL, "m")
	ctx := context.Background()
	mem, err := a.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []string{"summarize the notes in this folder into summary.txt", "rename the holiday photos by the date they were taken"} {
		if _, err := mem.Learn(ctx, req, []string{"fs.list", "fs.read", "fs.write"}, nil, "s"); err != nil {
			t.Fatal(err)
		}
	}
	from, to := NewProcedures(a), NewProcedures(b)
	if _, err := from.PickFile(true); err == nil || !strings.Contains(err.Error(), "type the file's path") {
		t.Errorf("PickFile without a dialog: %v", err)
	}
	if !filepath.IsAbs(from.DefaultExportFile()) || filepath.Base(from.DefaultExportFile()) != "shrimp-procedures.json" {
		t.Errorf("the suggested file: %s", from.DefaultExportFile())
	}
	if _, err := from.Export("procedures.json", false); err == nil || !strings.Contains(err.Error(), "not a whole path") {
		t.Errorf("a relative path: %v", err)
	}
	file := filepath.Join(t.TempDir(), "p.json")
	n, err := from.Export(file, false)
	if err != nil || n != 2 {
		t.Fatalf("export: %d %v", n, err)
	}
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the file: %v %v", info, err)
	}

	dry, err := to.Import(file, true)
	if err != nil || len(dry.Added) != 2 || dry.Added[0].ID != "" {
		t.Fatalf("the check: %+v %v", dry, err)
	}
	if list, _ := to.List(); len(list) != 0 {
		t.Fatalf("the check added %d", len(list))
	}
	got, err := to.Import(file, false)
	if err != nil || len(got.Added) != 2 || got.Added[0].ID == "" {
		t.Fatalf("import: %+v %v", got, err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		list, err := to.Search("summarise the notes of this folder into summary.txt")
		if err == nil && len(list) > 0 && list[0].Trigger == "summarize the notes in this folder into summary.txt" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the imported procedure is not found by the browser's search: %+v %v", list, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Bound to the window: the report reaches it as JSON with lists, never null.
	again, err := to.Import(file, true)
	j, _ := json.Marshal(again)
	if err != nil || again.Duplicates != 2 || !strings.Contains(string(j), `"added":[]`) || !strings.Contains(string(j), `"refused":[]`) {
		t.Errorf("checked again: %s %v", j, err)
	}
	if _, err := to.Import(filepath.Join(t.TempDir(), "none.json"), true); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file: %v", err)
	}
}
