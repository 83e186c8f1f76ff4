package gitignore

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/shrimp-harness/shrimp/internal/gitfile"
)

// MaxFile caps an ignore or config file read: a larger one is not read.
const MaxFile = 256 << 10

// User says where a user's git configuration lives.
type User struct {
	// Home is the home folder ($HOME); "" when unknown.
	Home string
	// ConfigHome is $XDG_CONFIG_HOME; "" for Home/.config.
	ConfigHome string
	// System is the system-wide config file ("" for /etc/gitconfig).
	System string
}

// CurrentUser is the User this process runs as, from its environment.
func CurrentUser() User {
	home, _ := os.UserHomeDir()
	return User{Home: home, ConfigHome: os.Getenv("XDG_CONFIG_HOME")}
}

// configHome is $XDG_CONFIG_HOME or its default.
func (u User) configHome() string {
	if u.ConfigHome != "" {
		return u.ConfigHome
	}
	if u.Home == "" {
		return ""
	}
	return filepath.Join(u.Home, ".config")
}

// Outside returns rules for the folder tree at dir (an absolute path)
// holding what applies to it from outside it, to which Add adds the
// tree's own .gitignore files. They are, lowest first as git ranks them:
// the user's global excludes file; when dir is in a git repository, its
// info/exclude and the .gitignore files of the folders from the
// repository's top down to dir's parent. When dir is in a repository
// without being its top and they would ignore dir itself, or a folder
// between it and the repository's top (a build folder opened as a
// workspace, a home folder kept in git with "*" ignored), none of them
// is kept: the user chose to work there.
//
// Files in the repository are read only when they are regular files (a
// link is not followed, as git does not follow a linked .gitignore);
// the global excludes file may be a link (dotfile managers make them).
func Outside(dir string, u User) *Rules {
	r := &Rules{top: "."}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // a workspace reached through a link: git looks up from where it is
	}
	repo, gitDir := repository(dir)
	if repo != "" {
		if rel, err := filepath.Rel(repo, dir); err == nil {
			r.top = filepath.ToSlash(rel)
		}
	}
	if b := readFollowing(excludesFile(u)); b != nil {
		r.add(".", b)
	}
	if repo == "" {
		return r
	}
	if gitDir != "" {
		if b := readRegular(filepath.Join(gitDir, "info", "exclude")); b != nil {
			r.add(".", b)
		}
	}
	var above []string // the repository's folders above dir, the top first
	if r.top != "." {
		for d := path.Dir(r.top); ; d = path.Dir(d) {
			above = append([]string{d}, above...)
			if d == "." {
				break
			}
		}
	}
	for _, d := range above {
		if b := readRegular(filepath.Join(repo, filepath.FromSlash(d), ".gitignore")); b != nil {
			r.add(d, b)
		}
	}
	for d := r.top; d != "."; d = path.Dir(d) {
		if r.ignored(d, true) {
			return &Rules{top: r.top}
		}
	}
	return r
}

// repository finds the git repository dir lies in: its top folder and
// its git folder ("" when that cannot be read), or "" when there is none.
func repository(dir string) (top, gitDir string) {
	for d := filepath.Clean(dir); ; {
		dotGit := filepath.Join(d, ".git")
		if info, err := os.Lstat(dotGit); err == nil {
			switch {
			case info.IsDir():
				return d, dotGit
			case info.Mode().IsRegular(): // a submodule or a linked worktree
				if b := readRegular(dotGit); b != nil {
					if target, ok := gitfile.Target(dotGit, string(b)); ok {
						return d, commonDir(target)
					}
				}
				return d, ""
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// commonDir is the git folder whose info/exclude a linked worktree's
// git folder shares (its commondir file names it); gitDir itself for a
// submodule's.
func commonDir(gitDir string) string {
	b := readRegular(filepath.Join(gitDir, "commondir"))
	if b == nil {
		return gitDir
	}
	common := strings.TrimSpace(string(b))
	if common == "" || strings.Contains(common, "\n") {
		return gitDir
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	return filepath.Clean(common)
}

// excludesFile is the user's global excludes file: core.excludesFile
// as the user's git config sets it (the last setting of the system's,
// then $XDG_CONFIG_HOME/git/config's, then ~/.gitconfig's), else
// $XDG_CONFIG_HOME/git/ignore. "" when there is none to read.
func excludesFile(u User) string {
	system := u.System
	if system == "" {
		system = "/etc/gitconfig"
	}
	configs := []string{system}
	if c := u.configHome(); c != "" {
		configs = append(configs, filepath.Join(c, "git", "config"))
	}
	if u.Home != "" {
		configs = append(configs, filepath.Join(u.Home, ".gitconfig"))
	}
	file := ""
	for _, c := range configs {
		if v, ok := coreExcludesFile(readFollowing(c)); ok {
			file = v
		}
	}
	switch {
	case file == "":
		if c := u.configHome(); c != "" {
			return filepath.Join(c, "git", "ignore")
		}
		return ""
	case file == "~" || strings.HasPrefix(file, "~/"):
		if u.Home == "" {
			return ""
		}
		return filepath.Join(u.Home, file[1:])
	case !filepath.IsAbs(file):
		return "" // relative to a working folder git would run in: none here
	}
	return file
}

// coreExcludesFile reads the last core.excludesFile a git config file
// sets (the section and key in any case; a value in double quotes with
// its escapes, or up to a # or ; comment). [include] is not followed.
func coreExcludesFile(config []byte) (string, bool) {
	value, found := "", false
	inCore := false
	sc := bufio.NewScanner(bytes.NewReader(config))
	sc.Buffer(make([]byte, 64<<10), MaxFile)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				inCore = false
				continue
			}
			inCore = strings.EqualFold(strings.TrimSpace(line[1:end]), "core")
			line = strings.TrimSpace(line[end+1:]) // "[core] excludesFile = x" is allowed
		}
		if !inCore {
			continue
		}
		key, v, ok := strings.Cut(line, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), "excludesfile") {
			continue
		}
		value, found = configValue(strings.TrimSpace(v)), true
	}
	return value, found
}

// configValue reads a git config value: double-quoted parts joined,
// backslash escapes read, a # or ; outside quotes ending it.
func configValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// readRegular reads a regular file of at most MaxFile bytes, not
// following a link; nil when it cannot.
func readRegular(name string) []byte { return readFile(name, os.Lstat) }

// readFollowing reads a regular file of at most MaxFile bytes, following
// links; nil when it cannot.
func readFollowing(name string) []byte { return readFile(name, os.Stat) }

// readFile reads name, which stat (os.Lstat or os.Stat) must find a
// regular file of at most MaxFile bytes (a folder, or a FIFO, whose open
// would block, is not opened), and which must still be that file once
// opened; nil when it cannot.
func readFile(name string, stat func(string) (fs.FileInfo, error)) []byte {
	if name == "" {
		return nil
	}
	info, err := stat(name)
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	if opened, err := f.Stat(); err != nil || !os.SameFile(info, opened) {
		return nil // replaced by something else since the look
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil || len(b) > MaxFile {
		return nil
	}
	return b
}
