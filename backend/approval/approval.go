// Package approval is the gate the agent asks before every tool call.
//
// The mode is a ceiling and rules only spare a question:
//   - a "never" rule denies in every mode;
//   - mode none runs nothing; mode all runs everything else;
//   - mode read runs read-only tools and asks for the rest, whatever rules
//     are stored;
//   - mode ask asks, except that an "always" rule for the tool in this
//     workspace (or for this exact call: [CallRules]) answers for the
//     user, unless the call must be answered
//     explicitly (a shell command that does not parse), or the session
//     has read content from outside (a web page, an MCP server's answer:
//     [Gate.Outside]) and the call is not read-only. Content from outside
//     may carry instructions, and a rule given for the user's own requests
//     does not answer for a page's.
//
// Rules are scoped to the workspace they were given in. The gate fails
// closed: a prompter that errors, times out or is cancelled, or no prompter
// at all (headless with no terminal), means the tool does not run, and the
// model is told it was denied. Every request and decision is published
// (approval:requested, approval:decided) for the timeline, and the decision
// says what decided it: the mode, a rule or the user.
package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// Event types.
const (
	TypeRequested agent.Type = "approval:requested"
	TypeDecided   agent.Type = "approval:decided"
)

// Mode is the approval policy for tools without a rule.
type Mode string

// Modes.
const (
	ModeAsk  Mode = "ask"  // ask for every tool (the default)
	ModeRead Mode = "read" // read-only workspace tools run; others are asked, or denied headless
	ModeAll  Mode = "all"  // everything runs
	ModeNone Mode = "none" // nothing runs
)

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeAsk, ModeRead, ModeAll, ModeNone:
		return m, nil
	case "":
		return ModeAsk, nil
	}
	return "", fmt.Errorf("unknown approval mode %q: use ask, read, all or none", s)
}

// Rules, per tool.
const (
	RuleAlways = "always"
	RuleAsk    = "ask"
	RuleNever  = "never"
)

// Request is what the user is asked about.
type Request struct {
	ID string `json:"id"` // the tool call id
	// Question names this one question where answers come back later (the
	// window): an answer that allows must name it, so an answer given to
	// a question that has ended never answers a later one about another
	// call under the same id. Empty in the gate's events.
	Question  string          `json:"question,omitempty"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	ReadOnly  bool            `json:"read_only"`
	Workspace string          `json:"workspace,omitempty"` // where the call runs; an "always" answer is kept for it
	// Asked is set when the user is asked (the gate announces every
	// call: the ones the mode or a rule decides too, unasked).
	Asked   bool   `json:"asked,omitempty"`
	Shown   string `json:"shown,omitempty"`   // when the user is asked: the whole arguments as they read them ([Shown]), never cut, controls escaped
	Preview string `json:"preview,omitempty"` // what the call would change (a diff for fs.write and fs.edit)
	// Outside is what the session read from outside when that is why no
	// rule answers ([Gate.Outside]); an "always" given now answers in the
	// workspace's other sessions, not this one.
	Outside string `json:"outside,omitempty"`
	Detail
}

// Detail says what a call would do, worked out before the user is asked
// (for shell.run: the parsed command).
type Detail struct {
	Effects  []string `json:"effects,omitempty"`  // what the call does, one fact per line
	Warnings []string `json:"warnings,omitempty"` // what deserves a second look
	// MustAsk means no rule may answer for the user: the call is asked
	// about in ask and read mode even when an "always" rule exists.
	MustAsk bool `json:"must_ask,omitempty"`
}

// Answer is the user's reply.
type Answer struct {
	Allow  bool
	Always bool   // remember "always" for this tool
	Exact  bool   // remember "always" for this exact call (a shell command as typed)
	Reason string // optional, sent to the model on deny
}

// Decided is the data of [TypeDecided].
type Decided struct {
	ID     string `json:"id"`
	Tool   string `json:"tool"`
	Allow  bool   `json:"allow"`
	By     string `json:"by"`              // "rule", "mode", "hook", "user", "no-prompter", "error"
	Exact  bool   `json:"exact,omitempty"` // the rule was for this exact call
	Reason string `json:"reason,omitempty"`
}

// Prompter asks the user. It calls ready once the request can be answered
// (the gate announces it then: approval:requested), and must return when
// ctx ends.
type Prompter func(ctx context.Context, req Request, ready func()) (Answer, error)

// RuleStore keeps per-tool rules, each for one workspace. Rule returns
// the rule that applies to tool in workspace ("" for none).
type RuleStore interface {
	Rule(ctx context.Context, workspace, tool string) (string, error)
	SetRule(ctx context.Context, workspace, tool, rule string) error
}

// CallRules keeps "always" answers for one exact call in one workspace,
// by the call's key ([CallKey]): "go test ./..." allowed always does not
// allow "go test -exec ./evil ./..." or any other command.
type CallRules interface {
	CallRule(ctx context.Context, workspace, tool, call string) (bool, error)
	SetCallRule(ctx context.Context, workspace, tool, call string) error
}

// CallKey is the key of one exact call: a shell command as typed (the
// blanks and newlines the shell ignores around it trimmed, whatever
// timeout the call asks for), or the
// arguments as compact JSON with sorted keys, numbers as written. Two
// calls that would act differently never share a key: other spaces
// (U+00A0, U+0085, a carriage return) are part of the shell's words, and
// 10000000000000001 is not 1e16.
func CallKey(tool string, args json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return string(args)
	}
	if m, ok := v.(map[string]any); ok && tool == "shell.run" {
		// How long it may run is not what it does: "always" for a
		// command holds whatever timeout the call asks for.
		delete(m, "timeout")
		if c, ok := m["command"].(string); ok && len(m) == 1 {
			return strings.Trim(c, " \t\n")
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(args)
	}
	return string(b)
}

// Gate decides tool calls for one run.
type Gate struct {
	Mode      Mode
	Workspace string                                                  // the run's workspace: rules are looked up and kept for it
	Rules     RuleStore                                               // nil: no rules
	Calls     CallRules                                               // nil: no rules for exact calls
	ReadOnly  func(tool string) bool                                  // which tools only read the workspace
	Prompt    Prompter                                                // nil: cannot ask (headless)
	Unasked   string                                                  // with no Prompt, why nobody can be asked ("": no terminal)
	Emit      func(ctx context.Context, t agent.Type, data any) error // publishes approval events
	Describe  func(call agent.ToolCall) Detail                        // optional: what a call would do (cheap, never blocks)
	Preview   func(ctx context.Context, call agent.ToolCall) string   // optional: what a call would change; run only when the user is asked
	Timeout   time.Duration                                           // for Prompt (default 10 min)
	// Outside says what the session has read from outside the user's
	// machine and files ("" for nothing yet); nil for never. When it says
	// something, a call that is not read-only is asked even where an
	// "always" rule exists, and the question says why.
	Outside func() string
	// Hooks are the user's pre-tool-call hooks, asked before any rule or
	// person: a denial is final; HookAsk puts the call to the user in
	// every mode and over every "always" rule (reason joins the
	// question's warnings); letting a call go on only passes it to the
	// rest of the gate (hooks tighten the mode, never loosen it).
	Hooks func(ctx context.Context, call agent.ToolCall) (reason string, verdict HookVerdict)
}

// HookVerdict is what the pre-tool-call hooks said of a call.
type HookVerdict int

const (
	HookPass HookVerdict = iota // the rest of the gate decides
	HookAsk                     // the user decides, whatever the mode and rules say
	HookDeny                    // denied
)

// Approve implements agent.Approver.
func (g *Gate) Approve(ctx context.Context, call agent.ToolCall) (agent.Decision, error) {
	req := Request{ID: call.ID, Tool: call.Name, Arguments: call.Arguments, Workspace: g.Workspace,
		ReadOnly: g.ReadOnly != nil && g.ReadOnly(call.Name)}
	if g.Describe != nil {
		req.Detail = g.Describe(call)
	}
	if g.Outside != nil && !req.ReadOnly {
		if src := g.Outside(); src != "" {
			req.MustAsk, req.Outside = true, src
			req.Warnings = append(req.Warnings, fmt.Sprintf("this session has read content from outside (%s), which may carry instructions: check that this call is what you asked for", src))
		}
	}
	// approval:requested goes out once the request can be answered: when a
	// prompter says it is ready, else just before the decision.
	announced := false
	announce := func() {
		if !announced {
			announced = true
			g.emit(ctx, TypeRequested, req)
		}
	}
	d := g.decide(ctx, &req, announce)
	announce()
	g.emit(ctx, TypeDecided, d)
	// Not answered for this call: a stored rule, or read mode for a tool
	// said to only read (an MCP tool the user marked read-only may still
	// write). Approval mode all is the user's answer for every call.
	standing := d.By == "rule" || d.By == "mode" && g.Mode == ModeRead
	return agent.Decision{Allow: d.Allow, Reason: d.Reason, Standing: d.Allow && standing, Seen: d.Allow && req.Asked}, nil
}

func (g *Gate) emit(ctx context.Context, t agent.Type, data any) {
	if g.Emit != nil {
		_ = g.Emit(ctx, t, data)
	}
}

func (g *Gate) decide(ctx context.Context, req *Request, ready func()) Decided {
	d := Decided{ID: req.ID, Tool: req.Tool}
	mode := g.Mode
	if mode == "" {
		mode = ModeAsk
	}
	if mode == ModeNone {
		d.By, d.Reason = "mode", "tools are switched off (approval mode none)"
		return d
	}
	hookAsks := false
	if g.Hooks != nil {
		switch reason, verdict := g.Hooks(ctx, agent.ToolCall{ID: req.ID, Name: req.Tool, Arguments: req.Arguments}); verdict {
		case HookDeny:
			d.By, d.Reason = "hook", reason
			return d
		case HookAsk:
			hookAsks, req.MustAsk = true, true
			req.Warnings = append(req.Warnings, reason)
		}
	}
	rule := ""
	if g.Rules != nil {
		var err error
		if rule, err = g.Rules.Rule(ctx, g.Workspace, req.Tool); err != nil {
			d.By, d.Reason = "error", "the approval rules could not be read: "+err.Error()
			return d
		}
	}
	switch {
	case rule == RuleNever:
		d.By, d.Reason = "rule", fmt.Sprintf("the user never allows %s", req.Tool)
		return d
	case mode == ModeAll && !hookAsks:
		d.Allow, d.By = true, "mode"
		return d
	case mode == ModeRead && req.ReadOnly && !hookAsks:
		d.Allow, d.By = true, "mode"
		return d
	case mode == ModeAsk && rule == RuleAlways && !req.MustAsk:
		d.Allow, d.By = true, "rule"
		return d
	case mode == ModeAsk && !req.MustAsk && g.Calls != nil:
		exact, err := g.Calls.CallRule(ctx, g.Workspace, req.Tool, CallKey(req.Tool, req.Arguments))
		if err != nil {
			d.By, d.Reason = "error", "the approval rules could not be read: "+err.Error()
			return d
		}
		if exact {
			d.Allow, d.By, d.Exact = true, "rule", true
			return d
		}
	}
	if g.Prompt == nil {
		d.By = "no-prompter"
		why := g.Unasked
		if why == "" {
			why = "without a terminal"
		}
		d.Reason = fmt.Sprintf("%s needs the user's approval and nobody can be asked here (approval mode %s %s); the user can rerun with --approve all", req.Tool, mode, why)
		if req.MustAsk && len(req.Warnings) > 0 {
			d.Reason += "; it must be answered by the user: " + strings.Join(req.Warnings, "; ")
		}
		return d
	}
	// Only now is the user asked: render the arguments for reading and
	// work out what the call would change.
	req.Asked, req.Shown = true, Shown(req.Tool, req.Arguments)
	if g.Preview != nil {
		// Escaped like the arguments: a diff of code with bidirectional
		// controls (Trojan Source) would read as other code.
		req.Preview = Visible(safePreview(ctx, g.Preview, agent.ToolCall{ID: req.ID, Name: req.Tool, Arguments: req.Arguments}))
	}
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ans, err := safePrompt(pctx, g.Prompt, *req, ready)
	if err != nil {
		d.By = "error"
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			d.Reason = "nobody answered the approval request in time"
		case errors.Is(err, context.Canceled):
			d.Reason = "the approval request was cancelled"
		default:
			d.Reason = "the approval request failed: " + err.Error()
		}
		return d
	}
	d.By, d.Allow, d.Reason = "user", ans.Allow, ans.Reason
	if !ans.Allow && d.Reason == "" {
		d.Reason = "the user denied it"
	}
	if ans.Allow && ans.Always && g.Rules != nil {
		_ = g.Rules.SetRule(context.WithoutCancel(ctx), g.Workspace, req.Tool, RuleAlways)
	}
	if ans.Allow && ans.Exact && g.Calls != nil {
		_ = g.Calls.SetCallRule(context.WithoutCancel(ctx), g.Workspace, req.Tool, CallKey(req.Tool, req.Arguments))
	}
	return d
}

// previewTimeout bounds how long a preview may take; past it the user is
// asked without one.
const previewTimeout = 2 * time.Second

// safePreview runs a preview with a deadline and recovers its panic; a
// preview that fails says so instead of holding up the question.
func safePreview(ctx context.Context, p func(context.Context, agent.ToolCall) string, call agent.ToolCall) string {
	ctx, cancel := context.WithTimeout(ctx, previewTimeout)
	defer cancel()
	ch := make(chan string, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- fmt.Sprintf("(no preview: it failed: %v)", r)
			}
		}()
		ch <- p(ctx, call)
	}()
	select {
	case s := <-ch:
		return s
	case <-ctx.Done():
		return "(no preview: working it out took too long)"
	}
}

func safePrompt(ctx context.Context, p Prompter, req Request, ready func()) (a Answer, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, err = Answer{}, fmt.Errorf("prompter panicked: %v", r)
		}
	}()
	return p(ctx, req, ready)
}
