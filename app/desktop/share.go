package desktop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/procedures/share"
)

// The procedure browser's Export and Import: a procedures file
// (share.Bundle) written to or read from a path the user types or picks
// in the system's file dialog.

// filePicker opens the system's file dialog: to save a file named name
// (save), else to open one; "" means cancelled. Set when the window
// starts.
type filePicker func(save bool, title, name string) (string, error)

// pickers holds the Procedures service's file dialog.
type pickers struct {
	mu   sync.Mutex
	pick filePicker
}

func (p *pickers) set(f filePicker) { p.mu.Lock(); p.pick = f; p.mu.Unlock() }

func (p *pickers) get() filePicker { p.mu.Lock(); defer p.mu.Unlock(); return p.pick }

// DefaultExportFile is the file Export suggests: in the home folder.
func (p *Procedures) DefaultExportFile() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return app.ProceduresFile
	}
	return filepath.Join(home, app.ProceduresFile)
}

// PickFile opens the system's file dialog to choose where to save a
// procedures file (save) or which one to import; "" means cancelled.
func (p *Procedures) PickFile(save bool) (string, error) {
	pick := p.files.get()
	if pick == nil {
		return "", errors.New("no file dialog here: type the file's path")
	}
	if save {
		return pick(true, "Export procedures", app.ProceduresFile)
	}
	return pick(false, "Import procedures", "")
}

// Export writes the procedures recall may offer to the file at path
// (mode 0600, replaced whole), with each step's example arguments when
// examples is set, and returns how many it wrote.
func (p *Procedures) Export(path string, examples bool) (int, error) {
	path, err := filePath(path)
	if err != nil {
		return 0, err
	}
	return p.app.ExportProceduresTo(context.Background(), path, examples)
}

// Import reads the procedures file at path and adds its procedures
// (dry: only says what it would add, what is held already and what is
// refused, and why).
func (p *Procedures) Import(path string, dry bool) (share.Imported, error) {
	path, err := filePath(path)
	if err != nil {
		return share.Imported{}, err
	}
	return p.app.ImportProceduresFrom(context.Background(), path, dry)
}

// filePath is a path the user typed: whole, or from their home folder
// ("~/…"); a relative one would depend on where the window started.
func filePath(path string) (string, error) {
	path = app.HomePath(strings.TrimSpace(path))
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%q is not a whole path: give one that starts with / or ~/ (or Choose… it)", path)
	}
	return path, nil
}
