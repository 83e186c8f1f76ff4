// Package datadir finds where Shrimp keeps its data: the directory named by
// an explicit override, else $SHRIMP_DATA_DIR, else the XDG data directory
// ($XDG_DATA_HOME/shrimp, usually ~/.local/share/shrimp; see Default). Resolve creates
// the directory (0700) so callers can open files in it straight away.
package datadir

import (
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"syscall"
)

// EnvVar is the environment variable that overrides the data directory.
const EnvVar = "SHRIMP_DATA_DIR"

// Default returns the data directory without creating it: override when
// set, else $SHRIMP_DATA_DIR, else $XDG_DATA_HOME/shrimp when that is an
// absolute path (the XDG spec has a relative one ignored: it would put the
// data in whatever folder Shrimp was started from), else
// ~/.local/share/shrimp. The home folder is $HOME, or the user's entry in
// the system's user database when $HOME is unset or relative (a service,
// `env -i`), not "/"; "" when neither gives one.
func Default(override string) string {
	if override != "" {
		return override
	}
	if env := os.Getenv(EnvVar); env != "" {
		return env
	}
	if home := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(home) {
		return filepath.Join(home, "shrimp")
	}
	home := os.Getenv("HOME")
	if !filepath.IsAbs(home) {
		if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) {
			home = u.HomeDir
		} else {
			return ""
		}
	}
	return filepath.Join(home, ".local", "share", "shrimp")
}

// Resolve returns the absolute data directory and makes sure it exists.
func Resolve(override string) (string, error) {
	def := Default(override)
	if def == "" {
		return "", fmt.Errorf("data dir: no home folder ($HOME is unset and the user database has none): set %s to a directory", EnvVar)
	}
	dir, err := filepath.Abs(def)
	if err != nil {
		return "", fmt.Errorf("data dir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create data dir %s: %w (set %s to a writable directory)", dir, err, EnvVar)
	}
	return dir, nil
}

// CheckPrivate refuses a configuration file that decides what Shrimp runs
// (mcp.json, hooks.json) when someone else could have written it: another
// user owns it, or its group or others may write it. The error says how
// to fix it.
func CheckPrivate(info os.FileInfo, path string) error {
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s may be written by other users (mode %v), so Shrimp does not run what it names: check it, then `chmod 600 %s`", path, info.Mode().Perm(), path)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to another user (uid %d), so Shrimp does not run what it names: check it, then `chown %d %s`", path, st.Uid, os.Getuid(), path)
	}
	return nil
}

// ReadPrivate reads the configuration file at path whole, refusing it as
// CheckPrivate does. A missing file's error wraps os.ErrNotExist.
func ReadPrivate(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := CheckPrivate(info, path); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// WritePrivate replaces the file at path with b whole, mode 0600: a
// temporary file in the same folder, synced, then renamed over it, so a
// reader never sees half a file and a crash leaves the old one.
func WritePrivate(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err = tmp.Write(b); err == nil {
		if err = tmp.Chmod(0o600); err == nil {
			err = tmp.Sync()
		}
	}
	if err != nil {
		tmp.Close()
		return fmt.Errorf("save %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return nil
}
