package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/injection"
	shrimptool "github.com/shrimp-harness/shrimp/backend/tool"
	"github.com/shrimp-harness/shrimp/backend/tool/web"
	"github.com/shrimp-harness/shrimp/internal/textcut"
)

// A server may ask the user for something during a call (MCP's
// elicitation: a form, or a page to open in the browser): the question
// goes to the Asker of the call under way on that session
// (tool.WithAsker), the last one started when there are several; with no
// call under way, or nobody to ask, the answer is "cancel". The question
// is the server's text, freed of hidden characters and bounded. The
// call's timeout does not run while the user is asked (clock.go).

// maxQuestion caps a question's message (its fields' texts are capped at
// maxTitle).
const maxQuestion = 2000

// askers are the Askers of a session's calls under way, oldest first.
type askers struct {
	mu   sync.Mutex
	list []*asking
}

// asking is one call under way that can ask the user (its Asker) or lend
// the model (its context's Sampler), with the call's context: a question
// or a sampling request ends when its call does.
type asking struct {
	ctx     context.Context
	ask     shrimptool.Asker // nil: nobody can be asked
	samples atomic.Int32     // sampling requests the call made (sample.go)
}

// callKey keys a call's *asking in the call's context: what the server
// asks within the call (multi round-trip requests) finds it there.
type callKey struct{}

// add registers a call under way until the returned function is called,
// and returns ctx carrying it.
func (a *askers) add(ctx context.Context, ask shrimptool.Asker) (context.Context, func()) {
	e := &asking{ctx: ctx, ask: ask}
	a.mu.Lock()
	a.list = append(a.list, e)
	a.mu.Unlock()
	return context.WithValue(ctx, callKey{}, e), func() {
		a.mu.Lock()
		a.list = slices.DeleteFunc(a.list, func(x *asking) bool { return x == e })
		a.mu.Unlock()
	}
}

// of returns the call a server's request (a question, a request for the
// model) belongs to: the call whose context ctx is, when it was asked
// within the call (multi round-trip requests, protocol 2026-07-28), else
// the call started last on the session (asked apart from it, as
// elicitation/create or sampling/createMessage); nil when none is under
// way.
func (a *askers) of(ctx context.Context) *asking {
	if e, ok := ctx.Value(callKey{}).(*asking); ok {
		return e
	}
	return a.last()
}

// last is the call started last, nil when none is under way.
func (a *askers) last() *asking {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.list) == 0 {
		return nil
	}
	return a.list[len(a.list)-1]
}

// elicit answers a server's elicitation/create.
func (s *Session) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p := req.Params
	if p == nil {
		return nil, fmt.Errorf("an empty question")
	}
	var q shrimptool.Question
	var err error
	switch p.Mode {
	case "", "form":
		q, err = question(p)
	case "url":
		q, err = page(p)
	default:
		return nil, fmt.Errorf("only questions asked as a form or a page to open are answered here, not %q", p.Mode)
	}
	if err != nil {
		return nil, fmt.Errorf("the question cannot be shown: %w", err)
	}
	call := s.askers.of(ctx)
	if call == nil || call.ask == nil {
		return &sdk.ElicitResult{Action: shrimptool.Cancel}, nil
	}
	// Ends with the call, or when the server stops waiting (askHeld).
	actx, cancel := context.WithCancel(call.ctx)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	a, err := askHeld(actx, call.ask, q)
	if err != nil || a.Action != shrimptool.Accept {
		action := a.Action
		if err != nil || action != shrimptool.Decline {
			action = shrimptool.Cancel
		}
		return &sdk.ElicitResult{Action: action}, nil
	}
	if q.URL != "" {
		return &sdk.ElicitResult{Action: shrimptool.Accept}, nil // the user opens the page
	}
	values, err := q.Parse(a.Values)
	if err != nil {
		return nil, fmt.Errorf("the answer does not fit the question: %w", err)
	}
	return &sdk.ElicitResult{Action: shrimptool.Accept, Content: values}, nil
}

// schemaField is one property of an elicitation's requested schema: a
// string, number, integer or boolean, a choice among strings (enum, with
// enumNames, or oneOf const and title), or several of them (an array
// whose items are an enum or anyOf const and title).
type schemaField struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Enum        []string `json:"enum"`
	EnumNames   []string `json:"enumNames"`
	OneOf       []titled `json:"oneOf"`
	Items       struct {
		Enum  []string `json:"enum"`
		AnyOf []titled `json:"anyOf"`
	} `json:"items"`
	MinItems  int      `json:"minItems"`
	MaxItems  int      `json:"maxItems"`
	Default   any      `json:"default"`
	Format    string   `json:"format"`
	Minimum   *float64 `json:"minimum"`
	Maximum   *float64 `json:"maximum"`
	MinLength int      `json:"minLength"`
	MaxLength int      `json:"maxLength"`
}

// titled is one choice with its title (oneOf, or anyOf for several).
type titled struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// choose sets f's choices from titled ones.
func choose(f *shrimptool.Field, opts []titled) {
	for _, o := range opts {
		f.Choices = append(f.Choices, o.Const)
		f.ChoiceNames = append(f.ChoiceNames, serverLine(o.Title, maxTitle))
	}
}

// askHeld puts q to the user through ask, within ctx (a call's, or one
// derived from it) and QuestionTimeout, with the call's clock stopped
// meanwhile (clock.go): the user's time is not the server's.
func askHeld(ctx context.Context, ask shrimptool.Asker, q shrimptool.Question) (shrimptool.Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, QuestionTimeout)
	defer cancel()
	defer holdClock(ctx)()
	return ask(ctx, q)
}

// questionMessage is a question's message as shown: the server's text,
// hidden characters removed, cut at maxQuestion.
func questionMessage(p *sdk.ElicitParams) string {
	msg, _ := injection.Unhide(p.Message)
	if len(msg) > maxQuestion {
		msg = msg[:textcut.Before(msg, maxQuestion)] + "…"
	}
	return msg
}

// maxURL is the longest page address a server may ask the user to open.
const maxURL = 4096

// page reads an elicitation in url mode (a page for the user to open) as
// a Question: its address must be https (or http on this machine) and is
// shown whole, with what about it deserves a second look.
func page(p *sdk.ElicitParams) (shrimptool.Question, error) {
	msg := questionMessage(p)
	if len(p.URL) > maxURL {
		return shrimptool.Question{}, fmt.Errorf("the page's address is longer than %d bytes", maxURL)
	}
	if err := browsable(p.URL); err != nil {
		return shrimptool.Question{}, err
	}
	if _, n := injection.Unhide(p.URL); n > 0 || strings.ContainsAny(p.URL, " \t\r\n") {
		return shrimptool.Question{}, errors.New("the page's address holds hidden or blank characters")
	}
	return shrimptool.Question{Message: msg, URL: p.URL, Warnings: web.Warnings(p.URL), Fields: []shrimptool.Field{}}, nil
}

// question reads an elicitation as a Question.
func question(p *sdk.ElicitParams) (shrimptool.Question, error) {
	q := shrimptool.Question{Message: questionMessage(p), Fields: []shrimptool.Field{}}
	if p.RequestedSchema == nil {
		return q, nil
	}
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return q, err
	}
	var schema struct {
		Properties map[string]schemaField `json:"properties"`
		Required   []string               `json:"required"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		return q, fmt.Errorf("its fields: %w", err)
	}
	props := schema.Properties
	// The required fields first, then the rest, each by name: the SDK
	// hands the schema over as a map, without the order it was written in.
	names := slices.SortedFunc(maps.Keys(props), func(a, b string) int {
		ra, rb := slices.Contains(schema.Required, a), slices.Contains(schema.Required, b)
		if ra != rb {
			return cmp.Compare(lo.Ternary(ra, 0, 1), lo.Ternary(rb, 0, 1))
		}
		return strings.Compare(a, b)
	})
	for _, name := range names {
		sf := props[name]
		f := shrimptool.Field{Name: name, Title: serverLine(sf.Title, maxTitle), Description: serverLine(sf.Description, maxTitle), Type: sf.Type,
			Required: slices.Contains(schema.Required, name), Default: sf.Default, Format: sf.Format,
			Min: sf.Minimum, Max: sf.Maximum, MinLength: sf.MinLength, MaxLength: sf.MaxLength, MinItems: sf.MinItems, MaxItems: sf.MaxItems}
		if d, ok := sf.Default.(string); ok {
			f.Default = serverLine(d, maxTitle) // shown in the form as the answer
		}
		switch {
		case f.Type == "array":
			if choose(&f, sf.Items.AnyOf); len(f.Choices) == 0 {
				f.Choices = sf.Items.Enum
			}
			if len(f.Choices) == 0 {
				return q, fmt.Errorf("field %s is a list with no choices", name)
			}
		case len(sf.OneOf) > 0:
			choose(&f, sf.OneOf)
		case len(sf.Enum) > 0:
			f.Choices = sf.Enum
			if len(sf.EnumNames) == len(sf.Enum) {
				f.ChoiceNames = lo.Map(sf.EnumNames, func(n string, _ int) string { return serverLine(n, maxTitle) })
			}
		}
		switch f.Type {
		case "string", "number", "integer", "boolean", "array":
		default:
			return q, fmt.Errorf("field %s is of type %q (a form asks for text, numbers, yes or no, or choices from a list)", name, f.Type)
		}
		q.Fields = append(q.Fields, f)
	}
	return q, nil
}

// A server may answer a call with an error asking the user to open pages
// first (MCP's URLElicitationRequired, -32042): each page is put to the
// user like a page question; once all are opened, the call is tried again
// when the server says the user is done there
// (notifications/elicitation/complete) or the user says so, whichever
// comes first. Once: a second such answer is the call's error.

// pagesFirst returns the pages a call's error asks the user to open first
// (nil when it asks for none).
func pagesFirst(err error) []*sdk.ElicitParams {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != sdk.CodeURLElicitationRequired {
		return nil
	}
	var data struct {
		Elicitations []*sdk.ElicitParams `json:"elicitations"`
	}
	if json.Unmarshal(rpc.Data, &data) != nil || len(data.Elicitations) == 0 {
		return nil
	}
	return lo.Compact(data.Elicitations)
}

// openFirst asks the user to open each page, then waits until the server
// or the user says they are done.
func (s *Session) openFirst(ctx context.Context, tool string, pages []*sdk.ElicitParams) error {
	ask := shrimptool.AskerOf(ctx)
	fail := func(why string) error {
		urls := lo.Map(pages, func(p *sdk.ElicitParams, _ int) string { return p.URL })
		return fmt.Errorf("%w: %s on MCP server %s needs the user to open %s in a browser first: %s", ErrToolFailed, tool, s.name, strings.Join(urls, " and "), why)
	}
	if ask == nil {
		return fail("nobody could be asked here")
	}
	var done []chan struct{}
	for _, p := range pages {
		if p.Mode != "url" {
			return fail(fmt.Sprintf("it asked for %q, not a page", p.Mode))
		}
		q, err := page(p)
		if err != nil {
			return fail(err.Error())
		}
		ch := make(chan struct{})
		if p.ElicitationID != "" {
			s.completions.Store(p.ElicitationID, ch)
			defer s.completions.Delete(p.ElicitationID)
		}
		done = append(done, ch)
		a, err := askHeld(ctx, ask, q)
		if err != nil || a.Action != shrimptool.Accept {
			return fail("the user did not open it")
		}
	}
	// Wait for the server's word on every page, or the user's.
	wctx, cancel := context.WithTimeout(ctx, QuestionTimeout)
	defer cancel()
	defer holdClock(ctx)()
	told := make(chan struct{})
	go func() {
		defer close(told)
		for _, ch := range done {
			select {
			case <-ch:
			case <-wctx.Done():
				return
			}
		}
	}()
	user := make(chan bool, 1)
	go func() {
		a, err := ask(wctx, shrimptool.Question{Message: "When you are done in the browser, continue: the call is tried again.", Fields: []shrimptool.Field{}})
		user <- err == nil && a.Action == shrimptool.Accept
	}()
	select {
	case <-told:
		if wctx.Err() != nil {
			return fail("the pages were not finished in time")
		}
		cancel() // the question to the user is over
		<-user
		return nil
	case ok := <-user:
		if !ok {
			return fail("the user stopped")
		}
		return nil
	}
}

// completed is told a page the user opened is done with.
func (s *Session) completed(_ context.Context, req *sdk.ElicitationCompleteNotificationRequest) {
	if req.Params == nil {
		return
	}
	if ch, ok := s.completions.LoadAndDelete(req.Params.ElicitationID); ok {
		close(ch.(chan struct{}))
	}
}
