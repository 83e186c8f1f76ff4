// Package datadir finds where Shrimp keeps its data: the directory named by
// an explicit override, else $SHRIMP_DATA_DIR, else the XDG data directory
// ($XDG_DATA_HOME/shrimp, usually ~/.local/share/shrimp). Resolve creates
// the directory (0700) so callers can open files in it straight away.
package datadir

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/adrg/xdg"
)

// EnvVar is the environment variable that overrides the data directory.
const EnvVar = "SHRIMP_DATA_DIR"

// Default returns the data directory without creating it: override when
// set, else $SHRIMP_DATA_DIR, else the XDG data directory.
func Default(override string) string {
	if override != "" {
		return override
	}
	if env := os.Getenv(EnvVar); env != "" {
		return env
	}
	// xdg reads the environment once at init; read XDG_DATA_HOME again so a
	// changed environment (tests, wrappers) is honoured.
	if home := os.Getenv("XDG_DATA_HOME"); home != "" {
		return filepath.Join(home, "shrimp")
	}
	return filepath.Join(xdg.DataHome, "shrimp")
}

// Resolve returns the absolute data directory and makes sure it exists.
func Resolve(override string) (string, error) {
	dir, err := filepath.Abs(Default(override))
	if err != nil {
		return "", fmt.Errorf("data dir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create data dir %s: %w (set %s to a writable directory)", dir, err, EnvVar)
	}
	return dir, nil
}
