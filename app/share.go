package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/shrimp-harness/shrimp/backend/procedures/share"
)

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
