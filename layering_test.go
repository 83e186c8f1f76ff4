package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is this module's import path.
const module = "github.com/shrimp-harness/shrimp"

// layer ranks a package directory of this module: main (the root and the
// scripts) 0, app/… 1, backend/… 2, internal/… 3; -1 for frontend and
// build output.
func layer(dir string) int {
	switch first, _, _ := strings.Cut(filepath.ToSlash(dir), "/"); first {
	case ".", "scripts":
		return 0
	case "app":
		return 1
	case "backend":
		return 2
	case "internal":
		return 3
	}
	return -1
}

// TestLayering keeps the dependency layers in order while packages move
// (tailscale's tstest/deptest in spirit): main → app/… → backend/… →
// internal/…, never upwards, and only app/desktop imports Wails. A file
// that breaks it is named with its import.
func TestLayering(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "frontend" || name == "build" || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		dir := filepath.Dir(path)
		from := layer(dir)
		if from < 0 {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			pos := fset.Position(imp.Pos())
			if strings.HasPrefix(p, "github.com/wailsapp/wails") && filepath.ToSlash(dir) != "app/desktop" {
				t.Errorf("%s:%d imports %s: only app/desktop may import Wails", path, pos.Line, p)
			}
			rel, ok := strings.CutPrefix(p, module+"/")
			if !ok {
				continue
			}
			if to := layer(rel); to < from {
				t.Errorf("%s:%d imports %s: %s may not import from a higher layer (main → app → backend → internal)", path, pos.Line, p, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("read %d Go files: the walk missed the tree", files)
	}
}

// TestLayerNames: every top-level directory holding Go code has a layer,
// so a new one cannot slip past TestLayering.
func TestLayerNames(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "frontend" || e.Name() == "build" || e.Name() == "docs" {
			continue
		}
		hasGo := false
		_ = filepath.WalkDir(e.Name(), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
				hasGo = true
				return filepath.SkipAll
			}
			return nil
		})
		if hasGo && layer(e.Name()) < 0 {
			t.Errorf("directory %s holds Go code but has no layer in TestLayering", e.Name())
		}
	}
}
