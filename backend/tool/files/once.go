package files

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// Some writes are likely mistakes but may be meant: a placeholder for the
// rest of a file, text escaped once too often, a folder named as the
// workspace, a file changed since it was read. Such a call is refused
// once, saying why; the same call made again goes through every such
// check (one key per call, so a call two checks doubt is not refused
// twice: three identical calls in a row stop a run), and so does a call
// the user was shown and allowed.

// confirmed remembers the calls refused once.
type confirmed struct {
	mu   sync.Mutex
	keys []string // the latest last; at most 16
}

// once is one write or edit's standing against those checks.
type once struct {
	w    *Workspace
	key  string
	pass bool // made again, or shown to the user and allowed
}

// once returns the call's standing: tool and its arguments identify it.
func (w *Workspace) once(ctx context.Context, tool string, args ...string) once {
	h := sha256.New()
	fmt.Fprintf(h, "%s", tool)
	for _, a := range args {
		fmt.Fprintf(h, "\x00%d:%s", len(a), a)
	}
	o := once{w: w, key: string(h.Sum(nil)), pass: agent.Seen(ctx)}
	w.refusedOnce.mu.Lock()
	defer w.refusedOnce.mu.Unlock()
	for _, k := range w.refusedOnce.keys {
		o.pass = o.pass || k == o.key
	}
	return o
}

// refuse returns err, and remembers the call so that made again it goes
// through; nil when the call is to go through.
func (o once) refuse(err error) error {
	if o.pass {
		return nil
	}
	c := &o.w.refusedOnce
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys = append(c.keys, o.key)
	if len(c.keys) > 16 {
		c.keys = c.keys[1:]
	}
	return err
}
