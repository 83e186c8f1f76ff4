package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/backend/procedures"
	"github.com/shrimp-harness/shrimp/backend/procedures/agentmem"
	"github.com/shrimp-harness/shrimp/backend/redact"
	"github.com/shrimp-harness/shrimp/backend/store"
)

// ErrNothingToRetry means a session has no request to retry or edit.
var ErrNothingToRetry = errors.New("nothing to retry")

// Request is one of a session's requests as it was asked, for a retry or
// an edit of it (ChatOptions.Replace).
type Request struct {
	Run    int64          `json:"run"` // the seq of its agent:run-started
	Text   string         `json:"text"`
	Model  string         `json:"model"`
	Images []attach.Image `json:"images,omitempty"` // with their data, read from the store
	// Secret is true when the request held a secret, which Shrimp did not
	// keep: its text holds a [REDACTED:…] marker in its place, and a
	// retry would send the marker (edit it and type the secret again).
	Secret bool `json:"secret"`
	// Later is how many of the session's requests followed it: a retry
	// or an edit replaces them too.
	Later int `json:"later"`
	// Steered are the procedures a retry as asked stops offering for its
	// words: those recalled for the attempt it replaces, taught or used
	// by it, when it answered.
	Steered []agentmem.Summary `json:"steered,omitempty"`
}

// LastRequest returns session's last request (run 0) or the one whose
// run started at seq run, as it was asked.
func (a *App) LastRequest(ctx context.Context, session string, run int64) (Request, error) {
	if _, err := a.Store.Session(ctx, session); err != nil {
		return Request{}, err
	}
	var events []agent.Event
	var err error
	if run == 0 {
		events, err = a.Store.LastRun(ctx, session) // not the whole session
	} else {
		events, err = a.Store.Events(ctx, session, run-1)
	}
	if err != nil {
		return Request{}, err
	}
	starts := lo.Filter(events, func(e agent.Event, _ int) bool { return e.Type == agent.TypeRunStarted })
	if len(starts) == 0 || (run != 0 && starts[0].Seq != run) {
		what := "no request yet"
		if run != 0 {
			what = fmt.Sprintf("no request numbered %d", run)
		}
		return Request{}, fmt.Errorf("%w: session %s has %s", ErrNothingToRetry, session, what)
	}
	at, later := starts[len(starts)-1], 0 // the last
	if run != 0 {
		at, later = starts[0], len(starts)-1
	}
	var d agent.RunStarted
	raw, err := at.RawData()
	if err == nil {
		err = json.Unmarshal(raw, &d)
	}
	if err != nil {
		return Request{}, fmt.Errorf("read request %d of session %s: %w", at.Seq, session, err)
	}
	out := Request{Run: at.Seq, Text: d.Text, Model: d.Model, Images: d.Images, Later: later, Secret: redact.Holds(d.Text)}
	// Its events, read above already: from its start on.
	_, steered := a.steered(ctx, events[slices.IndexFunc(events, func(e agent.Event) bool { return e.Seq == at.Seq }):])
	out.Steered = lo.Map(steered, func(p procedures.Procedure, _ int) agentmem.Summary { return agentmem.Describe(p) })
	for i, img := range out.Images {
		stored, err := a.Store.StoredImage(ctx, img.SHA256)
		if err != nil {
			return Request{}, fmt.Errorf("the image %s of request %d: %w", img.Name, out.Run, err)
		}
		out.Images[i].Data = stored.Data
	}
	return out, nil
}

// Retry fills o to replace session's request at run (0: the last one)
// with o.Text and o.Images, or, when o.Text is empty, with the request as
// it was asked (o.Model empty: the model the session goes on with). It
// refuses a request that held a secret and is not given new text.
func (a *App) Retry(ctx context.Context, session string, run int64, o ChatOptions) (ChatOptions, error) {
	req, err := a.LastRequest(ctx, session, run)
	if err != nil {
		return o, err
	}
	o.SessionID, o.Replace = session, req.Run
	if o.Text == "" {
		if req.Secret {
			return o, fmt.Errorf("%w: request %d held a secret, which Shrimp did not keep (it reads %q); edit the request and type the secret again", store.ErrNotReplaceable, req.Run, req.Text)
		}
		o.Text, o.Images = req.Text, req.Images
	}
	return o, nil
}

// declineRetried is what a retry of session's request at run, asked in
// the same words, tells recall: when that attempt answered (the user saw
// its answer and asked again), the procedures recalled for it, and those
// it taught or counted a use of, are not offered for that wording again
// (the user's "not for this request", published as such; Restore undoes
// it). Recalled again word for word, they would steer the retry into the
// attempt it replaces. An attempt that failed or was stopped (Ollama went
// down, Ctrl-C) declines nothing: its method was not what went wrong.
func (a *App) declineRetried(ctx context.Context, session string, run int64, request string) error {
	events, err := a.Store.Events(ctx, session, run-1)
	if err != nil {
		return err
	}
	asked, steered := a.steered(ctx, events)
	if agentmem.Wording(asked) != agentmem.Wording(request) {
		return nil
	}
	for _, p := range steered {
		if _, err := a.declines.Decline(ctx, p, request, session, a.Recorder.Emit); err != nil && !errors.Is(err, agentmem.ErrNoWords) {
			return err
		}
	}
	return nil
}

// steered returns the request of the run whose events start at
// events[0] (its agent:run-started) as asked and, when that run answered,
// the procedures recalled for it and those it taught or counted a use of
// (those still kept): what a retry as asked declines.
func (a *App) steered(ctx context.Context, events []agent.Event) (asked string, out []procedures.Procedure) {
	var status string
	var ids []string
	for i, e := range events {
		if i > 0 && e.Type == agent.TypeRunStarted {
			break // the next request's
		}
		raw, err := e.RawData()
		if err != nil {
			continue
		}
		var d struct {
			Text       string             `json:"text"`
			Status     string             `json:"status"`
			ID         string             `json:"id"`
			Procedures []agentmem.Summary `json:"procedures"`
		}
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		switch e.Type {
		case agent.TypeRunStarted:
			asked = d.Text
		case agent.TypeRunEnded:
			status = d.Status
		case agentmem.TypeRecalled:
			ids = append(ids, lo.Map(d.Procedures, func(p agentmem.Summary, _ int) string { return p.ID })...)
		case agentmem.TypeLearned, agentmem.TypeUpdated:
			ids = append(ids, d.ID)
		}
	}
	if status != string(agent.StatusResponded) || len(ids) == 0 {
		return asked, nil
	}
	mem, err := a.Memory(ctx) // loads the declines too
	if err != nil || a.declines == nil {
		return asked, nil // no procedural memory here, or no declines kept: nothing to decline
	}
	for _, id := range lo.Uniq(ids) {
		if p, err := mem.Get(id); err == nil { // else deleted since
			out = append(out, p)
		}
	}
	return asked, out
}
