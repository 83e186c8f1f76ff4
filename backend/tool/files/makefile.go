package files

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/shrimp-harness/shrimp/internal/plural"
)

// make runs a rule's recipe lines only when each starts with a tab; a
// model that writes a Makefile often indents them with spaces (tabs are
// lost on the way through its tokens and JSON), and make then stops at
// the first with "missing separator". fs.write of a Makefile gives such a
// line the tab it needs, and says how many it gave; so does fs.edit, for
// the lines its new text brings. Nothing else is
// changed: a line indented in a rule that is a make directive or a
// comment, a line continued from the one before, a define block, and a
// makefile that sets another recipe prefix (.RECIPEPREFIX) are left as
// written.

// makeRule matches a rule's first line: targets, then ":" or "::" that
// is not an assignment (":=", "::=").
var makeRule = regexp.MustCompile(`^[^\s#=][^=]*?:{1,2}([^=:]|$)`)

// makeDirectives start lines that are make's own, not a recipe's, even
// indented within a rule.
var makeDirectives = []string{"ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include", "sinclude", "override", "export", "unexport", "vpath", "define", "endef", "undefine"}

// isMakefile reports whether the workspace path p names a makefile.
func isMakefile(p string) bool {
	base := path.Base(p)
	return base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(base, ".mk")
}

// recipeTabs returns a makefile's content with each recipe line that
// starts with spaces starting with a tab instead, and how many it
// changed; other files, and makefiles with no such line, are returned as
// they are.
func recipeTabs(p, content string) (string, int) {
	if !isMakefile(p) || strings.Contains(content, ".RECIPEPREFIX") {
		return content, 0
	}
	lines := strings.Split(content, "\n")
	inRule, continued, defines, changed := false, false, 0, 0
	for i, line := range lines {
		wasContinued := continued
		continued = strings.HasSuffix(strings.TrimRight(line, "\r"), "\\")
		if wasContinued {
			continue // part of the line before it, as make reads it
		}
		trimmed := strings.TrimLeft(line, " \t")
		word, _, _ := strings.Cut(trimmed, " ")
		switch {
		case defines > 0:
			switch word {
			case "define":
				defines++
			case "endef":
				defines--
			}
		case word == "define":
			defines, inRule = 1, false
		case strings.TrimSpace(trimmed) == "" || strings.HasPrefix(line, "\t"):
			// A blank line or a recipe line as make wants it.
		case strings.HasPrefix(line, " "):
			if inRule && !strings.HasPrefix(trimmed, "#") && !isDirective(word) {
				lines[i] = "\t" + trimmed
				changed++
			}
		default:
			inRule = makeRule.MatchString(line) && !isDirective(word)
		}
	}
	if changed == 0 {
		return content, 0
	}
	return strings.Join(lines, "\n"), changed
}

// editTabs is recipeTabs for an edit: only the lines the edit brought
// (those the file did not have before) are given a tab; a line the file
// already had is the user's, as it is.
func editTabs(p, before, after string) (string, int) {
	fixed, n := recipeTabs(p, after)
	if n == 0 {
		return after, 0
	}
	had := map[string]bool{}
	for _, l := range strings.Split(before, "\n") {
		had[l] = true
	}
	lines, fixedLines := strings.Split(after, "\n"), strings.Split(fixed, "\n")
	n = 0
	for i := range lines {
		if lines[i] != fixedLines[i] && !had[lines[i]] {
			lines[i] = fixedLines[i]
			n++
		}
	}
	return strings.Join(lines, "\n"), n
}

// tabbedNote is what a write's or an edit's result says of the n recipe
// lines it gave a tab ("" for none).
func tabbedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %s of a rule began with spaces and now begin with a tab, as make needs", plural.N(n, "recipe line", "recipe lines"))
}

// isDirective reports whether a line's first word is a make directive.
func isDirective(word string) bool {
	for _, d := range makeDirectives {
		if word == d || strings.HasPrefix(word, d+"(") {
			return true
		}
	}
	return false
}
