package instructions

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/injection"
)

// Claude Code, Gemini CLI and Qwen Code let an instruction file pull in
// others with @path ("See @README.md for the layout", a CLAUDE.md that is
// only "@AGENTS.md" or "@~/dotfiles/rules.md"). Read without them, such a
// file gives the model a list of names and none of the rules. An import
// is a word that starts with @ and names a file that is there, outside
// code (fences and `spans`); its text follows the line that names it,
// delimited, and may import in turn, five deep at most, each file once.
//
// A project's file (scope folder or subfolder: a cloned repository's)
// imports only files inside its own folder, so "@~/.ssh/id_rsa" or
// "@../../.aws/credentials" puts nothing in the prompt; the user's own
// file (scope user) may import from anywhere in the home folder too.
// Every imported file gets the checks an instruction file gets.

// maxImportDepth is how deep imports go.
const maxImportDepth = 5

// importWord is an @ word: at a line's start or after a blank.
var importWord = regexp.MustCompile(`(^|[\s(])@([^\s` + "`" + `]+)`)

// imports expands the imports of text, the file at path read in scope
// (home: the home folder, for the user's file). It returns the text with
// each imported file's after the line that names it, the files imported,
// and warnings for imports refused or cut. At most room bytes are added.
func imports(text, path, scope, home string, room int) (string, []string, []string) {
	x := &importer{scope: scope, home: resolved(home), root: resolved(filepath.Dir(path)), left: room, seen: map[string]bool{}}
	x.seen[resolved(path)] = true
	out := x.expand(text, filepath.Dir(path), 1)
	return out, x.files, x.warnings
}

// importer is one file's expansion.
type importer struct {
	scope, home, root string
	left              int             // bytes that may still be added
	seen              map[string]bool // files read, by real path
	files             []string
	warnings          []string
}

// expand returns text with the imports of its lines expanded; dir is the
// folder its relative imports start from.
func (x *importer) expand(text, dir string, depth int) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.SplitAfter(text, "\n") {
		b.WriteString(line)
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		for _, ref := range x.refs(line) {
			got := x.read(ref, dir, depth)
			if got == "" {
				continue
			}
			if !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte('\n')
			}
			b.WriteString(got)
		}
	}
	return b.String()
}

// refs lists the @ words of a line outside `code spans`.
func (x *importer) refs(line string) []string {
	var out []string
	for i, part := range strings.Split(line, "`") {
		if i%2 == 1 {
			continue // inside a code span
		}
		for _, m := range importWord.FindAllStringSubmatch(part, -1) {
			if ref := strings.TrimRight(m[2], ".,;:!?)]}'\""); ref != "" {
				out = append(out, ref)
			}
		}
	}
	return out
}

// read returns an imported file's text, delimited and expanded in turn,
// or "" when ref names no file, a refused one or one already read.
func (x *importer) read(ref, dir string, depth int) string {
	path := ref
	switch {
	case strings.HasPrefix(ref, "~/"):
		path = filepath.Join(x.home, ref[2:])
	case !filepath.IsAbs(ref):
		path = filepath.Join(dir, ref)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "" // not a file: an @mention, a package name, a handle
	}
	if info, err := os.Stat(real); err != nil || info.IsDir() {
		return ""
	}
	if x.seen[real] {
		return ""
	}
	x.seen[real] = true
	if !within(real, x.root) && (x.scope != "user" || x.home == "" || !within(real, x.home)) {
		x.warnings = append(x.warnings, fmt.Sprintf("@%s not imported: it is outside %s, and a project's instructions import only their own folder's files", ref, x.root))
		return ""
	}
	if depth > maxImportDepth {
		x.warnings = append(x.warnings, fmt.Sprintf("@%s not imported: imports go %d deep at most", ref, maxImportDepth))
		return ""
	}
	text, size, err := readTrusted(real)
	if err != nil {
		x.warnings = append(x.warnings, fmt.Sprintf("@%s not imported: %v", ref, err))
		return ""
	}
	text, hidden := injection.Unhide(text)
	if hidden > 0 {
		x.warnings = append(x.warnings, fmt.Sprintf("@%s holds %d invisible characters that could carry instructions you cannot see: removed", ref, hidden))
	}
	x.files = append(x.files, real)
	body := x.expand(text, filepath.Dir(real), depth+1)
	block := fmt.Sprintf("<imported file=%q>\n%s\n</imported>\n", real, strings.TrimSpace(body))
	if len(block) > x.left {
		x.warnings = append(x.warnings, fmt.Sprintf("@%s not imported: the imports of one file take %d bytes at most", ref, maxFile))
		return ""
	}
	if size > int64(len(text)) {
		x.warnings = append(x.warnings, fmt.Sprintf("@%s has %d bytes: only its first %d are read", ref, size, maxFile))
	}
	x.left -= len(block)
	return block
}
