package app

import (
	"context"
	"sync"
)

// outside is what a session's model has read from outside the user's
// machine and files (a web page, an MCP server's answer), for the approval
// gate ([approval.Gate.Outside]): the session's record when it goes on,
// then the first source a run reads, kept in the store for later runs.
type outside struct {
	mu   sync.Mutex
	seen string
	kept bool
	keep func(source string) bool // false: no session to keep it under yet
}

// outsideSeen starts from what the session read before (its record, ""
// for a new one); what a run reads is kept under the session id session()
// returns by then. A source marked before the session is stored (the
// request's own: ChatOptions.Outside) is kept by flush.
func (a *App) outsideSeen(before string, session func() string) *outside {
	return &outside{seen: before, kept: true, keep: func(source string) bool {
		id := session()
		if id == "" {
			return false
		}
		if err := a.Store.MarkOutside(context.Background(), id, source); err != nil {
			a.Log.Error("keep what the session read from outside", "err", err) // the gate still knows, for this run
		}
		return true
	}}
}

// source implements approval.Gate.Outside.
func (o *outside) source() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.seen
}

// mark records a source, the first one for good.
func (o *outside) mark(source string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen == "" {
		o.seen = source
		o.kept = o.keep(source)
	}
}

// flush keeps a source marked before the session was stored, now that it is.
func (o *outside) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.kept {
		o.kept = o.keep(o.seen)
	}
}
