// Package outputs provides tool.output.read: the model pages through a tool
// output that was too long to show it whole, by the handle the cut result
// named. A handle resolves only within the session and workspace whose run
// kept it: a handle from another conversation (pasted into a file, a page
// or a fact) reads nothing.
package outputs

import (
	"context"
	"fmt"

	"github.com/shrimp-harness/shrimp/backend/tool"
)

// Reader reads kept outputs of one session and workspace.
type Reader interface {
	// ReadOutput returns up to length bytes from offset in whole
	// characters, from start (the start of the character offset is in).
	ReadOutput(ctx context.Context, sessionID, workspace, handle string, offset, length int) (text string, start, total int, err error)
}

// Args are tool.output.read's arguments.
type Args struct {
	Handle string `json:"handle" jsonschema_description:"the handle named in the cut tool result"`
	Offset int    `json:"offset,omitempty" jsonschema:"minimum=0" jsonschema_description:"byte offset to start at (default 0; a character's middle reads from its start)"`
	Length int    `json:"length,omitempty" jsonschema:"minimum=0" jsonschema_description:"how many bytes to read at most (default and maximum 8192; whole characters)"`
}

// MaxRead is the most one call returns.
const MaxRead = 8 << 10

// Tool returns tool.output.read over r for the run's session (read when
// the tool runs: a new session's id is known only once the run started)
// and workspace.
func Tool(r Reader, session func() string, workspace string) tool.Tool {
	return tool.Define("tool.output.read", "Read more of a tool output that was cut, by its handle, from an offset.", true,
		func(ctx context.Context, in Args) (string, error) {
			n := in.Length
			if n <= 0 || n > MaxRead {
				n = MaxRead
			}
			text, start, total, err := r.ReadOutput(ctx, session(), workspace, in.Handle, in.Offset, n)
			if err != nil {
				return "", err
			}
			end := start + len(text)
			if end < total {
				return text + fmt.Sprintf("\n[bytes %d–%d of %d; call again with offset %d for more]", start, end, total, end), nil
			}
			return text + fmt.Sprintf("\n[bytes %d–%d of %d: the end]", start, end, total), nil
		})
}
