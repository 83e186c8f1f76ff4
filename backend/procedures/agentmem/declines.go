package agentmem

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/instruction"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// TypeDeclined is published when a run did not use a procedure recalled
// for it; its data is a [Declined].
const TypeDeclined agent.Type = "memory:procedure-declined"

// Declined is the data of [TypeDeclined].
type Declined struct {
	Procedure Summary `json:"procedure"`
	Request   string  `json:"request"`
	ByUser    bool    `json:"by_user"` // the user's "not for this request", not a run's
}

// ErrNoWords is returned for a request with no letters or digits: there
// is no wording to decline a procedure for.
var ErrNoWords = errors.New("the request has no words to remember it by")

// Decline is the user's "not for this request": procedure p is not offered
// for request again until it is restored. It reports whether that is new
// and, if so, publishes memory:procedure-declined through emit (may be nil).
func (d *Declines) Decline(ctx context.Context, p procedures.Procedure, request, session string, emit func(ctx context.Context, session string, t agent.Type, data any) error) (bool, error) {
	if d == nil {
		return false, errors.New("declined recalls could not be loaded (see the log); restart Shrimp to try again")
	}
	if Wording(request) == "" {
		return false, ErrNoWords
	}
	added, err := d.Add(ctx, p.ID, request, session)
	if err != nil || !added || emit == nil {
		return added, err
	}
	return true, emit(ctx, session, TypeDeclined, Declined{Procedure: summary(p, 0), Request: request, ByUser: true})
}

// Declines remembers the recalls that runs did not use: a procedure
// recalled for a request whose run then called none of its tools is not
// offered for that wording again. Recall can take a new chore for a
// neighbouring one (docs/recall.md); a chore too short to be learned (fewer
// than procedures.MinChain calls) would otherwise get the same wrong hint
// every time it is asked. Wordings are compared normalised (Wording), so a
// repeat matches whatever its case, punctuation and spacing; another
// wording of the request is recalled afresh. The user's restore of the
// procedure offers it again (Clear). Another process's declines and
// restores (the window's, a terminal's) are read again before a recall
// (Fresh), a listing or a change: the store numbers their changes. Safe
// for concurrent use.
type Declines struct {
	repo store.DeclineRepo
	mu   sync.RWMutex
	set  map[string]map[string]string // procedure id → wording → the request as typed
	seq  map[string][]string          // procedure id → wordings, oldest first
	copy *store.Copy                  // the revision set was read at
}

// OpenDeclines loads the declined recalls kept in st.
func OpenDeclines(ctx context.Context, st *store.Store) (*Declines, error) {
	d := &Declines{repo: st.Declines(), copy: st.Declines().Copy()}
	if err := d.copy.Load(ctx, func() error { return d.load(ctx) }); err != nil {
		return nil, err
	}
	return d, nil
}

// load reads every declined recall. The caller holds d.mu (or is
// OpenDeclines).
func (d *Declines) load(ctx context.Context) error {
	rows, err := d.repo.All(ctx)
	if err != nil {
		return err
	}
	d.set, d.seq = map[string]map[string]string{}, map[string][]string{}
	for _, r := range rows {
		d.mark(r.ProcedureID, r.Wording, r.Request)
	}
	return nil
}

// sync loads the declines again when another process changed them. The
// caller holds d.mu.
func (d *Declines) sync(ctx context.Context) error {
	return d.copy.Sync(ctx, func() error { return d.load(ctx) })
}

// Fresh reads another process's changes, if any, before a recall asks
// Has; failing, the declines held are used.
func (d *Declines) Fresh(ctx context.Context) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = d.sync(ctx)
}

func (d *Declines) mark(id, wording, request string) bool {
	if d.set[id] == nil {
		d.set[id] = map[string]string{}
	}
	if _, ok := d.set[id][wording]; ok {
		return false
	}
	d.set[id][wording] = request
	d.seq[id] = append(d.seq[id], wording)
	return true
}

// Has reports whether a run declined procedure id for this request.
func (d *Declines) Has(id, request string) bool {
	if d == nil {
		return false
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	_, ok := d.set[id][Wording(request)]
	return ok
}

// Requests returns the requests procedure id was declined for, as typed,
// oldest first.
func (d *Declines) Requests(id string) []string {
	out := []string{}
	if d == nil {
		return out
	}
	d.Fresh(context.Background())
	d.mu.RLock()
	defer d.mu.RUnlock()
	for _, w := range d.seq[id] {
		out = append(out, d.set[id][w])
	}
	return out
}

// Clear offers procedure id again for every request it was declined for
// (the user's restore).
func (d *Declines) Clear(ctx context.Context, id string) error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	rev, err := d.repo.DeleteProcedure(ctx, id)
	if err != nil {
		return err
	}
	d.copy.Wrote(rev)
	delete(d.set, id)
	delete(d.seq, id)
	return nil
}

// Add records that the run of session declined procedure id for request,
// and reports whether it was new.
func (d *Declines) Add(ctx context.Context, id, request, session string) (bool, error) {
	request = instruction.Of(request) // kept, not the material pasted into it
	w := Wording(request)
	if w == "" {
		return false, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.sync(ctx); err != nil {
		return false, err
	}
	if _, ok := d.set[id][w]; ok {
		return false, nil
	}
	row := store.RecallDecline{ProcedureID: id, Wording: w, Request: request, Session: session, CreatedAt: time.Now().UTC()}
	rev, err := d.repo.Add(ctx, row)
	if err != nil {
		return false, fmt.Errorf("decline procedure %s: %w", id, err)
	}
	d.copy.Wrote(rev)
	return d.mark(id, w, request), nil
}

// Wording is request normalised for comparing repeats: its instruction
// (instruction.Of: what recall reads of a request that carries pasted
// material), letters and digits in lower case, every other run of
// characters one space.
func Wording(request string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(instruction.Of(request)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space = false
			continue
		}
		space = true
	}
	return b.String()
}
