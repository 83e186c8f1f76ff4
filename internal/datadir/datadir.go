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
	"strconv"
	"strings"
	"sync"
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
// user owns it, or others may write it (OthersMayWrite). The error says
// how to fix it.
func CheckPrivate(info os.FileInfo, path string) error {
	if OthersMayWrite(info) {
		return fmt.Errorf("%s may be written by other users (mode %v), so Shrimp does not run what it names: check it, then `chmod 600 %s`", path, info.Mode().Perm(), path)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to another user (uid %d), so Shrimp does not run what it names: check it, then `chown %d %s`", path, st.Uid, os.Getuid(), path)
	}
	return nil
}

// OthersMayWrite reports whether users other than the file's owner may
// write it: anyone may, or its group may and it is not the user's private
// group. Ubuntu and Fedora give each user a group of their own and a
// umask of 002 (pam_umask's usergroups, login.defs' USERGROUPS_ENAB), so
// every file a user writes there is group-writable by that group, which
// holds nobody else: refusing those refused every AGENTS.md, skill and
// hand-written mcp.json of theirs.
func OthersMayWrite(info os.FileInfo) bool {
	perm := info.Mode().Perm()
	if perm&0o002 != 0 {
		return true
	}
	if perm&0o020 == 0 {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return !ok || st.Gid != ownGroup()
}

// noGroup is a group ID no file has: ownGroup's when the user has no
// private group.
const noGroup = ^uint32(0)

// ownGroup is the user's private group's ID (privateGroup), noGroup when
// the user has none.
var ownGroup = sync.OnceValue(func() uint32 {
	u, err := user.Current()
	if err != nil {
		return noGroup
	}
	g, err := user.LookupGroupId(u.Gid)
	if err != nil {
		return noGroup
	}
	etc, _ := os.ReadFile("/etc/group") // groups from a directory service are not listed there
	return privateGroup(u, g, etc)
})

// privateGroup returns g's ID when it is u's private group: u's primary
// group, named as u is (the rule pam_umask's usergroups applies), with no
// other member in etcGroup (/etc/group's text); noGroup otherwise.
func privateGroup(u *user.User, g *user.Group, etcGroup []byte) uint32 {
	gid, err := strconv.ParseUint(g.Gid, 10, 32)
	if err != nil || g.Gid != u.Gid || g.Name != u.Username {
		return noGroup
	}
	for line := range strings.Lines(string(etcGroup)) {
		f := strings.Split(strings.TrimSpace(line), ":")
		if len(f) != 4 || f[2] != g.Gid || f[3] == "" {
			continue
		}
		for _, m := range strings.Split(f[3], ",") {
			if m != u.Username {
				return noGroup
			}
		}
	}
	return uint32(gid)
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
