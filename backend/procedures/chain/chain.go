// Package chain describes a procedure's tool chain by its shape: calls of
// one tool in a row are one step, however many there were. The same chore
// done over three files or over twenty ("fs.read" three times or twenty)
// is one method, so learning merges the two runs, a forgotten procedure is
// not learned again from a run that differs only in how often a step
// repeated, a run that followed a recalled method counts as following it,
// and the method is shown as "fs.list → fs.read ×20 → fs.write" rather than
// twenty names a small model must read past.
//
// The full chain is still what is stored: the shape is how chains are
// compared and shown, not what is kept.
package chain

import (
	"fmt"
	"strings"
)

// Step is one step of a chain's shape: a tool and how many calls of it
// came in a row.
type Step struct {
	Tool  string `json:"tool"`
	Count int    `json:"count"`
}

// Steps returns the shape of tools (tool names in call order).
func Steps(tools []string) []Step {
	var out []Step
	for _, t := range tools {
		if n := len(out); n > 0 && out[n-1].Tool == t {
			out[n-1].Count++
			continue
		}
		out = append(out, Step{Tool: t, Count: 1})
	}
	return out
}

// Same reports whether two chains have the same shape: the same tools in
// the same order once calls in a row are taken as one step.
func Same(a, b []string) bool {
	sa, sb := Steps(a), Steps(b)
	if len(sa) != len(sb) {
		return false
	}
	for i := range sa {
		if sa[i].Tool != sb[i].Tool {
			return false
		}
	}
	return true
}

// String renders tools as "a → b ×3 → c".
func String(tools []string) string {
	var b strings.Builder
	for i, s := range Steps(tools) {
		if i > 0 {
			b.WriteString(" → ")
		}
		b.WriteString(s.Tool)
		if s.Count > 1 {
			fmt.Fprintf(&b, " ×%d", s.Count)
		}
	}
	return b.String()
}
