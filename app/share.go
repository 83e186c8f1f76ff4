package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/procedures/share"
	"github.com/shrimp-harness/shrimp/internal/datadir"
)

// ProceduresFile is the name a procedures file is offered under.
const ProceduresFile = "shrimp-procedures.json"

// HomePath is a path the user typed with a leading "~/" made their home
// folder's (as it stays when there is no home folder).
func HomePath(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

// ExportProcedures writes the procedures recall may hand the model as a
// procedures file (share.Bundle, indented JSON) to w, secrets taken
// out of their requests and examples (as sessions keep them); examples
// only when asked. It returns how many it wrote.
func (a *App) ExportProcedures(ctx context.Context, w io.Writer, examples bool) (int, error) {
	mem, err := a.Memory(ctx)
	if err != nil {
		return 0, err
	}
	b := share.Export(mem, share.ExportOptions{Examples: examples, Clean: a.Recorder.RedactText})
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil {
		return 0, fmt.Errorf("write the procedures file: %w", err)
	}
	return len(b.Procedures), nil
}

// ImportProcedures reads a procedures file from r and adds its
// procedures as share.Import does, secrets taken out (dry:
// only checks them).
func (a *App) ImportProcedures(ctx context.Context, r io.Reader, dry bool) (share.Imported, error) {
	b, err := share.Read(r)
	if err != nil {
		return share.Imported{}, err
	}
	mem, err := a.Memory(ctx)
	if err != nil {
		return share.Imported{}, err
	}
	return share.Import(ctx, mem, b, share.ImportOptions{Dry: dry, Clean: a.Recorder.RedactText})
}

// ExportProceduresTo writes the procedures file to path (HomePath),
// whole, mode 0600 (it holds the user's requests), as ExportProcedures
// does, and returns how many it wrote.
func (a *App) ExportProceduresTo(ctx context.Context, path string, examples bool) (int, error) {
	var b bytes.Buffer
	n, err := a.ExportProcedures(ctx, &b, examples)
	if err != nil {
		return 0, err
	}
	return n, datadir.WritePrivate(HomePath(path), b.Bytes())
}

// ImportProceduresFrom reads the procedures file at path (HomePath) as
// ImportProcedures does.
func (a *App) ImportProceduresFrom(ctx context.Context, path string, dry bool) (share.Imported, error) {
	f, err := os.Open(HomePath(path))
	if err != nil {
		return share.Imported{}, fmt.Errorf("open the procedures file: %w", err)
	}
	defer f.Close()
	return a.ImportProcedures(ctx, f, dry)
}
