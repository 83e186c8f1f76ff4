package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkSearchProject: fs.search of a Rust-like project, 200 source
// files and 10,000 build files under target/, with the project's
// .gitignore ("target/") and without it (as fs.search read every project
// before it honoured .gitignore).
func BenchmarkSearchProject(b *testing.B) {
	dir := b.TempDir()
	write := func(p, content string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	line := strings.Repeat("let value = compute(input, options);\n", 40)
	for i := range 200 {
		write(fmt.Sprintf("src/mod%d/lib.rs", i), line)
	}
	for i := range 10000 {
		write(fmt.Sprintf("target/debug/build/crate%d/out/gen.rs", i), line)
	}
	for _, tc := range []struct {
		name, ignore string
	}{{"with .gitignore", "target/\n"}, {"without", ""}} {
		b.Run(tc.name, func(b *testing.B) {
			_ = os.Remove(filepath.Join(dir, ".gitignore"))
			if tc.ignore != "" {
				write(".gitignore", tc.ignore)
			}
			ws, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			for b.Loop() {
				if _, err := ws.search(context.Background(), SearchArgs{Query: "no such text"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
