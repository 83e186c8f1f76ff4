// Package injection recognises text that tries to steer the agent (prompt
// injection: overrides, role markers, tool-call JSON, shell payloads,
// exfiltration) and renders remembered items as quoted data. Its patterns
// are data (injection.json); its contract: InstructionLike is true for any
// text matching a class after Normalize, and QuotedLine never lets a key or
// value end a block or start a line.
package injection

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

//go:embed injection.json
var classesJSON []byte

// classes are injection.json's classes, compiled, by name.
var classes = func() map[string][]*regexp.Regexp {
	var d struct {
		Classes map[string][]string `json:"classes"`
	}
	if err := json.Unmarshal(classesJSON, &d); err != nil {
		panic(fmt.Sprintf("injection: injection.json: %v", err)) // embedded data; a test reads it
	}
	out := map[string][]*regexp.Regexp{}
	for name, patterns := range d.Classes {
		for _, p := range patterns {
			out[name] = append(out[name], regexp.MustCompile(p))
		}
	}
	return out
}()

// Normalize returns text as the injection check reads it: Unicode NFKC
// (full-width and compatibility forms folded), zero-width, format and
// control characters removed, case folded, each run of whitespace one
// space (one newline when it held a line break).
func Normalize(text string) string {
	text = norm.NFKC.String(text)
	var b strings.Builder
	b.Grow(len(text))
	var space rune // the whitespace to write before the next character: ' ' or '\n'
	for _, r := range text {
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			space = '\n'
			continue
		case unicode.IsSpace(r):
			if space == 0 {
				space = ' '
			}
			continue
		case unicode.Is(unicode.Cf, r) || unicode.IsControl(r) || r == '\uFFFD':
			continue
		}
		if space != 0 && b.Len() > 0 {
			b.WriteRune(space)
		}
		space = 0
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Classes returns the classes of steering text (injection.json)
// that text falls in, sorted; none means it reads as a plain fact.
func Classes(text string) []string {
	n := Normalize(text)
	var out []string
	for name, patterns := range classes {
		for _, p := range patterns {
			if p.MatchString(n) {
				out = append(out, name)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// InstructionLike reports whether text looks like instructions to the
// agent rather than a fact.
func InstructionLike(text string) bool { return len(Classes(text)) > 0 }

// QuotedLine is one remembered item as prompt data: key and value as JSON
// strings, so nothing in them can end the block or start a line.
func QuotedLine(key, value string) string {
	k, _ := json.Marshal(key)
	v, _ := json.Marshal(value)
	return fmt.Sprintf("%s: %s\n", k, v)
}
