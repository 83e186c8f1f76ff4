// Package gitignore tells which paths of a folder tree git would ignore,
// from the .gitignore files in it (and a repository's .git/info/exclude),
// as gitignore(5) describes them: blank lines and # comments skipped, !
// re-includes, a trailing / matches folders only, a pattern with a / at
// its start or middle is relative to its file's folder while one without
// matches at any depth, *, ? and [...] match within a path segment (and
// [!...] is a negated class), ** matches any number of folders, and the
// last matching pattern wins, a deeper file's after a shallower one's.
//
// [Outside] adds what holds for a tree from outside it, as git would:
// the .gitignore files of the folders above it up to its repository's
// top (a package of a larger repository), the repository's info/exclude,
// and the user's global excludes file (core.excludesFile, read from the
// user's and the system's git config, not from the repository's). It runs
// no git: a repository's config can make git run commands
// (core.fsmonitor).
package gitignore

import (
	"bufio"
	"bytes"
	"path"
	"strings"
)

// Rules are the patterns read so far, by the folder whose file gave them.
type Rules struct {
	byDir map[string][]rule
	// top is the tree's folder within its repository ("." for the
	// repository's top, or when there is none): byDir's keys are
	// relative to the repository's top, Add's and Ignored's paths to the
	// tree's.
	top string
}

// rule is one pattern of a file in folder base ("." for the top).
type rule struct {
	base     string
	segments []string // the pattern split at /; "**" as its own segment
	negate   bool
	dirOnly  bool
}

// Add reads the patterns of an ignore file that lies in dir (slash-
// separated, relative to the tree's top; "." for the top itself).
func (r *Rules) Add(dir string, data []byte) {
	r.add(r.full(dir), data)
}

// full is the tree's path p relative to the repository's top.
func (r *Rules) full(p string) string {
	if r.top == "" || r.top == "." {
		return p
	}
	return path.Join(r.top, p)
}

// add reads the patterns of an ignore file whose base is dir, relative
// to the repository's top.
func (r *Rules) add(dir string, data []byte) {
	if r.byDir == nil {
		r.byDir = map[string][]rule{}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		if ru, ok := parse(sc.Text()); ok {
			ru.base = dir
			r.byDir[dir] = append(r.byDir[dir], ru)
		}
	}
}

// parse reads one line of an ignore file.
func parse(line string) (rule, bool) {
	line = strings.TrimSuffix(line, "\r")
	// Trailing blanks go, unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line == "" || strings.HasPrefix(line, "#") {
		return rule{}, false
	}
	var ru rule
	if strings.HasPrefix(line, "!") {
		ru.negate, line = true, line[1:]
	}
	if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		ru.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	if line == "" {
		return rule{}, false
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	for _, seg := range strings.Split(line, "/") {
		if seg == "" {
			continue
		}
		if strings.Contains(seg, "**") && seg != "**" {
			seg = strings.ReplaceAll(seg, "**", "*") // "a**b" is "a*b" in a segment
		}
		ru.segments = append(ru.segments, strings.ReplaceAll(seg, "[!", "[^"))
	}
	if len(ru.segments) == 0 {
		return rule{}, false
	}
	if !anchored {
		ru.segments = append([]string{"**"}, ru.segments...)
	}
	return ru, true
}

// Ignored reports whether the path p (slash-separated, relative to the
// tree's top; dir says it is a folder) is ignored by the rules of its
// folder and the folders above it. A path inside an ignored folder is not
// asked about: a walk skips the folder.
func (r *Rules) Ignored(p string, dir bool) bool {
	if r == nil || len(r.byDir) == 0 {
		return false
	}
	return r.ignored(r.full(p), dir)
}

// ignored is Ignored of p relative to the repository's top.
func (r *Rules) ignored(p string, dir bool) bool {
	var bases []string // the folders above p, the top first
	for d := path.Dir(p); ; d = path.Dir(d) {
		bases = append([]string{d}, bases...)
		if d == "." || d == "/" {
			break
		}
	}
	ignored := false
	for _, base := range bases {
		rel := p
		if base != "." {
			rel = strings.TrimPrefix(p, base+"/")
		}
		name := strings.Split(rel, "/")
		for _, ru := range r.byDir[base] {
			if ru.dirOnly && !dir {
				continue
			}
			if match(ru.segments, name) {
				ignored = !ru.negate
			}
		}
	}
	return ignored
}

// match reports whether the pattern's segments match the path's: a
// table of which pattern suffix matches which path suffix, so a pattern
// of many ** (a hostile .gitignore) against a deep path takes time in
// proportion to their product, not exponential time.
func match(pat, name []string) bool {
	// ok[i][j]: pat[i:] matches name[j:]; filled from the ends.
	ok := make([][]bool, len(pat)+1)
	for i := range ok {
		ok[i] = make([]bool, len(name)+1)
	}
	ok[len(pat)][len(name)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		for j := len(name); j >= 0; j-- {
			switch {
			case pat[i] == "**" && i == len(pat)-1: // "abc/**": what is inside abc, not abc
				ok[i][j] = j < len(name)
			case pat[i] == "**":
				ok[i][j] = ok[i+1][j] || j < len(name) && ok[i][j+1]
			case j < len(name):
				m, err := path.Match(pat[i], name[j])
				ok[i][j] = err == nil && m && ok[i+1][j+1]
			}
		}
	}
	return ok[0][0]
}
