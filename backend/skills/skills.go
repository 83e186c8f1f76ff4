// Package skills finds Agent Skills (the open format of agentskills.io
// that Claude Code, Codex, Cursor and others read: a folder holding a
// SKILL.md whose YAML front matter gives its name and a description, then
// instructions, beside scripts and references) in the workspace's skill
// folders and the user's, offers the model a catalog of them (a line each:
// name and description), and lets it read a skill's instructions, or a
// file of its folder, when a request calls for it (the skill.read tool).
//
// A skill is text for the model, like AGENTS.md: it runs nothing by
// itself, and whatever the model does next goes through the approval
// mode. A SKILL.md that another user owns or that others may write, that
// leads out of its folder (or a workspace skill out of the workspace), or
// whose front matter breaks the format (a name that is not lower-case
// words joined by hyphens or differs from its folder, no description) is
// left out with a warning saying why; text a reader cannot see is
// removed. When two folders hold a skill of the same name, the first
// (the workspace's) is used.
package skills

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/shrimp-harness/shrimp/backend/injection"
	"github.com/shrimp-harness/shrimp/backend/instructions"
	"github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// WorkspaceFolders are where a workspace keeps its skills, and
// UserFolders where the user keeps theirs, under the home folder (the
// data directory's skills folder comes first); in this order.
var (
	WorkspaceFolders = []string{filepath.Join(".agents", "skills"), filepath.Join(".claude", "skills")}
	UserFolders      = []string{filepath.Join(".agents", "skills"), filepath.Join(".claude", "skills")}
)

// Skill is one skill found.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Dir         string `json:"dir"`   // its folder, links resolved
	Scope       string `json:"scope"` // "workspace" or "user"
}

// Found is what Find found.
type Found struct {
	Skills   []Skill  `json:"skills"`
	Warnings []string `json:"warnings"`
}

// maxSkills bounds how many skills one folder offers.
const maxSkills = 200

// Find looks for skills in the workspace's folders, then in userDirs (the
// user's own skill folders, in order).
func Find(workspace string, userDirs []string) Found {
	f := Found{Skills: []Skill{}, Warnings: []string{}}
	seen := map[string]bool{}
	root := instructions.Resolved(workspace)
	look := func(dir, scope string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return // no such folder: the common case
		}
		n := 0
		for _, e := range entries {
			if n == maxSkills {
				f.Warnings = append(f.Warnings, fmt.Sprintf("%s holds more than %d skills: the rest are left out", dir, maxSkills))
				return
			}
			folder := filepath.Join(dir, e.Name())
			if _, err := os.Stat(filepath.Join(folder, FileName)); err != nil {
				continue // not a skill
			}
			n++
			s, err := read(folder, scope)
			if err == nil && scope == "workspace" && !instructions.Within(s.Dir, root) {
				err = errors.New("its folder leads out of the workspace")
			}
			switch {
			case err != nil:
				f.Warnings = append(f.Warnings, fmt.Sprintf("skill %s left out: %v", folder, err))
			case seen[s.Name]:
				f.Warnings = append(f.Warnings, fmt.Sprintf("skill %s left out: a skill named %s was found first", folder, s.Name))
			default:
				seen[s.Name] = true
				f.Skills = append(f.Skills, s)
			}
		}
	}
	if workspace != "" {
		for _, d := range WorkspaceFolders {
			look(filepath.Join(workspace, d), "workspace")
		}
	}
	for _, d := range userDirs {
		look(d, "user")
	}
	return f
}

// validName is a skill's name: lower-case letters and digits, words joined
// by single hyphens, at most 64 characters.
var validName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// maxDescription bounds a skill's description (the format's limit).
const maxDescription = 1024

// read reads a skill's front matter.
func read(folder, scope string) (Skill, error) {
	dir := instructions.Resolved(folder)
	text, err := skillFile(dir)
	if err != nil {
		return Skill{}, err
	}
	meta, _, err := split(text)
	if err != nil {
		return Skill{}, err
	}
	var fm struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}
	if err := yaml.Unmarshal([]byte(meta), &fm); err != nil {
		return Skill{}, fmt.Errorf("its front matter is not YAML (%v)", err)
	}
	desc, hidden := injection.Unhide(strings.Join(strings.Fields(fm.Description), " "))
	switch {
	case len(fm.Name) > 64 || !validName.MatchString(fm.Name):
		return Skill{}, fmt.Errorf("its name %q is not lower-case words joined by hyphens (64 characters at most)", fm.Name)
	case fm.Name != filepath.Base(folder):
		return Skill{}, fmt.Errorf("its name %q differs from its folder's", fm.Name)
	case desc == "":
		return Skill{}, errors.New("it has no description")
	case utf8.RuneCountInString(desc) > maxDescription:
		return Skill{}, fmt.Errorf("its description is longer than %d characters", maxDescription)
	case hidden > 0:
		return Skill{}, errors.New("its description holds characters a reader cannot see")
	}
	return Skill{Name: fm.Name, Description: desc, Dir: dir, Scope: scope}, nil
}

// skillFile reads a skill folder's SKILL.md as the user's own text.
func skillFile(dir string) (string, error) {
	path := filepath.Join(dir, FileName)
	if !instructions.Within(instructions.Resolved(path), dir) {
		return "", fmt.Errorf("its %s leads out of its folder", FileName)
	}
	text, _, err := instructions.ReadTrusted(path)
	if err != nil {
		return "", fmt.Errorf("its %s cannot be read: %w", FileName, err)
	}
	return text, nil
}

// split parts a SKILL.md into its front matter and its instructions.
func split(text string) (meta, body string, err error) {
	text = strings.TrimPrefix(text, "\ufeff")
	rest, ok := strings.CutPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "---\n")
	if !ok {
		return "", "", errors.New("it does not start with front matter (---, name and description, ---)")
	}
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return "", "", errors.New("its front matter does not end (a line of ---)")
	}
	body = rest[end+4:]
	body = strings.TrimPrefix(strings.TrimLeft(body, "-"), "\n")
	return rest[:end], body, nil
}

// Catalog is the skills' part of the model's instructions, at most budget
// bytes: how to use them, then a line per skill (name and description);
// skills past the budget are named only. "" when there are none.
func (f Found) Catalog(budget int) string {
	if len(f.Skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Skills: instructions for particular tasks, written by the user or the project. When a request matches a skill's description, first read it with skill.read (then any file it names with skill.read and \"file\"), and follow it.\n")
	var rest []string
	for _, s := range f.Skills {
		line := fmt.Sprintf("- %s: %s\n", s.Name, s.Description)
		if len(rest) > 0 || b.Len()+len(line) > budget {
			rest = append(rest, s.Name)
			continue
		}
		b.WriteString(line)
	}
	if len(rest) > 0 {
		b.WriteString("More skills, by name only: " + strings.Join(rest, ", ") + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Args are skill.read's arguments.
type Args struct {
	Name string `json:"name" jsonschema_description:"the skill's name, as the catalog gives it"`
	File string `json:"file,omitempty" jsonschema_description:"a file of the skill's folder to read instead of its SKILL.md, relative to it (references/api.md)"`
}

// maxResource bounds a file of a skill's folder read at once.
const maxResource = 256 << 10

// Tool returns skill.read over the skills found (found is called at each
// read, so a run sees the skills of its own start).
func Tool(found func() Found) tool.Tool {
	return tool.Define("skill.read", "Read a skill's instructions (its SKILL.md, or a file of its folder) before doing a task it describes.", true,
		func(_ context.Context, in Args) (string, error) {
			var s *Skill
			f := found()
			for i := range f.Skills {
				if f.Skills[i].Name == in.Name {
					s = &f.Skills[i]
				}
			}
			if s == nil {
				names := make([]string, 0, len(f.Skills))
				for _, k := range f.Skills {
					names = append(names, k.Name)
				}
				return "", fmt.Errorf("%w: no skill is named %q; the skills are: %s", tool.ErrInvalidArgs, in.Name, strings.Join(names, ", "))
			}
			if in.File == "" || filepath.Clean(in.File) == FileName {
				text, err := skillFile(s.Dir)
				if err != nil {
					return "", err
				}
				_, body, err := split(text)
				if err != nil {
					return "", err
				}
				body, _ = injection.Unhide(body)
				return fmt.Sprintf("[skill %s; its folder, for the scripts and files it names: %s]\n%s", s.Name, s.Dir, strings.TrimSpace(body)), nil
			}
			return resource(*s, in.File)
		})
}

// resource reads a text file of a skill's folder.
func resource(s Skill, file string) (string, error) {
	path := instructions.Resolved(filepath.Join(s.Dir, filepath.Clean("/"+file)))
	if !instructions.Within(path, s.Dir) {
		return "", fmt.Errorf("%w: %s leads out of skill %s's folder", tool.ErrInvalidArgs, file, s.Name)
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("skill %s has no file %s (its folder is %s)", s.Name, file, s.Dir)
	}
	defer fh.Close()
	if info, err := fh.Stat(); err != nil || !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s in skill %s is not a file to read", file, s.Name)
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxResource+1))
	if err != nil {
		return "", err
	}
	cut := len(b) > maxResource
	if cut {
		b = b[:textcut.Before(b, maxResource)]
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s in skill %s is not text; run or read it with the other tools", file, s.Name)
	}
	text, _ := injection.Unhide(string(b))
	if cut {
		text += fmt.Sprintf("\n[cut at %d KiB]", maxResource>>10)
	}
	return fmt.Sprintf("[skill %s, file %s]\n%s", s.Name, file, text), nil
}
