package files

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// Some writes are likely mistakes but may be meant: a placeholder for the
// rest of a file (elided.go), text escaped once too often or wrapped in a
// Markdown fence (escaped.go), a folder named as the workspace
// (suggest.go), a file changed since it was read (stale.go), a JSON, YAML
// or TOML file left unreadable (syntax.go). Such a call is refused once, saying why; the same call
// made again goes through (one key per call, so a call two checks doubt
// is not refused twice: three identical calls in a row stop a run), and
// so does a call the user was shown and allowed. The approval question
// shows the same doubts ([Workspace.Doubts]).

// doubt is why a write or an edit may be a mistake (why: for the user and
// the model) and what the model can do instead (advice).
type doubt struct{ why, advice string }

// confirmed remembers the calls refused once.
type confirmed struct {
	mu   sync.Mutex
	keys []string // the latest last; at most 16
}

// once is one write or edit's standing against the doubts.
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

// refuse returns the refusal of a call of tool over p for its doubts, and
// remembers the call so that made again it goes through; nil when there
// is no doubt or the call is to go through.
func (o once) refuse(tool, p string, doubts []doubt) error {
	if o.pass || len(doubts) == 0 {
		return nil
	}
	c := &o.w.refusedOnce
	c.mu.Lock()
	c.keys = append(c.keys, o.key)
	if len(c.keys) > 16 {
		c.keys = c.keys[1:]
	}
	c.mu.Unlock()
	var whys, advice []string
	for _, d := range doubts {
		whys, advice = append(whys, d.why), append(advice, d.advice)
	}
	return fmt.Errorf("%s of %s was not done: %s. %s. If it is meant as it is, make the same call again", tool, p, strings.Join(whys, "; and "), strings.Join(advice, ". "))
}

// writeDoubts are the doubts a write of content raises.
func (w *Workspace) writeDoubts(pl writePlan, content string) []doubt {
	ds := []*doubt{w.nestedDoubt(pl.path), escapedDoubt(content), fencedDoubt(pl.path, content), syntaxDoubt(pl.path, pl.old, pl.st != nil && pl.why == "", content)}
	if pl.st != nil {
		ds = append(ds, placeholderDoubt("fs.write", pl.old, content), w.staleDoubt(pl.target))
	}
	return present(ds)
}

// doubts are the doubts an edit raises.
func (pl editPlan) doubts(in EditArgs) []doubt {
	return present([]*doubt{placeholderDoubt("fs.edit", pl.old, pl.content), newEscapedDoubt(in), syntaxDoubt(pl.path, pl.old, true, pl.content)})
}

// present is the doubts that are there (not nil).
func present(ds []*doubt) []doubt {
	var out []doubt
	for _, d := range ds {
		if d != nil {
			out = append(out, *d)
		}
	}
	return out
}

// Doubts returns, for the approval question, why fs.write or fs.edit with
// these arguments may be a mistake (nil when nothing says so, or the call
// cannot be made): the doubts the call would be refused for once, were
// nobody asked.
func (w *Workspace) Doubts(ctx context.Context, tool string, args []byte) []string {
	var doubts []doubt
	switch tool {
	case "fs.write":
		var in WriteArgs
		if json.Unmarshal(args, &in) != nil {
			return nil
		}
		if pl, err := w.planWrite(ctx, in); err == nil {
			doubts = w.writeDoubts(pl, in.Content)
		}
	case "fs.edit":
		var in EditArgs
		if json.Unmarshal(args, &in) != nil {
			return nil
		}
		if pl, err := w.planEdit(ctx, in); err == nil {
			doubts = pl.doubts(in)
		}
	}
	var out []string
	for _, d := range doubts {
		out = append(out, d.why)
	}
	return out
}
