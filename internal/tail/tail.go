// Package tail keeps the last lines a process writes (an MCP server's
// stderr, the log of the Ollama the window started), to show beside an
// error. A Lines is an io.Writer safe for concurrent use; a line longer
// than MaxLine bytes is cut there, and an unfinished last line is shown
// as it stands.
package tail

import (
	"slices"
	"strings"
	"sync"
)

// MaxLine is the longest line kept, in bytes.
const MaxLine = 2000

// Lines keeps the last lines written to it.
type Lines struct {
	mu      sync.Mutex
	max     int
	partial strings.Builder
	buf     []string
}

// New keeps the last n lines.
func New(n int) *Lines { return &Lines{max: n} }

// Write takes output; it never fails.
func (t *Lines) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range string(p) {
		if c == '\n' {
			t.push(t.partial.String())
			t.partial.Reset()
			continue
		}
		if t.partial.Len() < MaxLine {
			t.partial.WriteRune(c)
		}
	}
	return len(p), nil
}

func (t *Lines) push(line string) {
	line = strings.TrimRight(line, "\r")
	if line == "" {
		return
	}
	t.buf = append(t.buf, line)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
}

// Lines returns the lines kept, oldest first (never nil).
func (t *Lines) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := slices.Clone(t.buf)
	if t.partial.Len() > 0 {
		out = append(out, t.partial.String())
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// Last joins the last n of lines with " | ", to quote a process's output
// on one line of an error.
func Last(lines []string, n int) string {
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}
