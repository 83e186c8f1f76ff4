package approval

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

type rules map[string]string

func (r rules) Rule(_ context.Context, tool string) (string, error) { return r[tool], nil }
func (r rules) SetRule(_ context.Context, tool, rule string) error  { r[tool] = rule; return nil }

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
	}{
		{"rule always beats mode none", ModeNone, rules{"fs.write": RuleAlways}, "fs.write", nil, true, "rule", RuleAlways},
		{"rule never beats mode all", ModeAll, rules{"fs.write": RuleNever}, "fs.write", allow, false, "rule", RuleNever},
		{"mode all", ModeAll, rules{}, "fs.write", nil, true, "mode", ""},
		{"mode none", ModeNone, rules{}, "fs.read", allow, false, "mode", ""},
		{"read mode read-only tool", ModeRead, rules{}, "fs.read", nil, true, "mode", ""},
		{"read mode writer headless", ModeRead, rules{}, "fs.write", nil, false, "no-prompter", ""},
		{"ask headless denies", ModeAsk, rules{}, "fs.read", nil, false, "no-prompter", ""},
		{"ask allowed", ModeAsk, rules{}, "fs.write", allow, true, "user", ""},
		{"ask always remembers", ModeAsk, rules{}, "fs.write", always, true, "user", RuleAlways},
		{"ask denied", ModeAsk, rules{}, "fs.write", deny, false, "user", ""},
		{"prompter error fails closed", ModeAsk, rules{}, "fs.write", broken, false, "error", ""},
		{"timeout fails closed", ModeAsk, rules{}, "fs.write", slow, false, "error", ""},
		{"prompter panic fails closed", ModeAsk, rules{}, "fs.write", panicky, false, "error", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events []agent.Type
			g := &Gate{
				Mode: tt.mode, Rules: tt.rules, Prompt: tt.prompt, Timeout: 20 * time.Millisecond,
				ReadOnly: func(name string) bool { return name == "fs.read" },
				Emit: func(_ context.Context, typ agent.Type, data any) error {
					events = append(events, typ)
					if d, ok := data.(Decided); ok && d.By != tt.wantBy {
						t.Errorf("decided by %s, want %s", d.By, tt.wantBy)
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
			if len(events) != 2 || events[0] != TypeRequested || events[1] != TypeDecided {
				t.Errorf("events %v", events)
			}
			if tt.rules[tt.tool] != tt.wantRule {
				t.Errorf("rule afterwards %q, want %q", tt.rules[tt.tool], tt.wantRule)
			}
		})
	}
}
