package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/tool"
)

// TestTerminalAsker: a tool's question on the terminal: whether to answer,
// then each field, asked again while an answer does not fit, up to three
// times; no and Enter decline and dismiss.
func TestTerminalAsker(t *testing.T) {
	one, nine := 1.0, 9.0
	q := app.ToolQuestion{ID: "c1", Tool: "mcp.shop.order", Message: "Which shirt?\nWe ship tomorrow.", Fields: []tool.Field{
		{Name: "count", Title: "How many", Type: "integer", Required: true, Min: &one, Max: &nine},
		{Name: "gift", Type: "boolean", Description: "wrap it"},
		{Name: "size", Type: "string", Choices: []string{"s", "m"}, ChoiceNames: []string{"Small", "Medium"}},
	}}
	page := app.ToolQuestion{ID: "c2", Tool: "mcp.pay.checkout", Message: "Pay for it", URL: "https://pay.example/checkout?id=7", Warnings: []string{"it reads as another site"}, Fields: []tool.Field{}}
	sample := app.ToolQuestion{ID: "c3", Tool: "mcp.notes.summarize", Message: "The MCP server \"notes\" asks to use m to write a reply of at most 64 tokens…\n\nuser:\nthe minutes", Fields: []tool.Field{}, Sample: true}
	for _, c := range []struct {
		name, typed, want string
		shown             []string
		page              bool   // ask page instead of q
		opened            string // the page opened
		sample            bool   // ask sample instead
	}{
		{"answered", "y\n12\n3\nyes\n\n", "accept map[count:3 gift:yes size:]",
			[]string{"mcp.shop.order asks you (the tool's words, not Shrimp's):\n  Which shirt?\n  We ship tomorrow.\n", "How many (a whole number from 1 to 9): ", "12 is outside 1 to 9", "gift (yes or no; wrap it; Enter to leave it out): ", "size (one of: s = Small, m = Medium; Enter to leave it out): "}, false, "", false},
		{"declined", "n\n", "decline map[]", nil, false, "", false},
		{"dismissed", "\n", "cancel map[]", nil, false, "", false},
		{"three wrong answers", "yes\nx\n0\n10\n", "cancel map[]", []string{"How many: 10 is outside 1 to 9: dismissed"}, false, "", false},
		{"a page opened", "y\n", "accept map[]", []string{"It asks you to open this page in your browser:\n  https://pay.example/checkout?id=7\n  warning: it reads as another site\nOpen it? "}, true, page.URL, false},
		{"a page declined", "n\n", "decline map[]", nil, true, "", false},
		{"the model lent", "y\n", "accept map[]", []string{"mcp.notes.summarize asks to use your model:\n  The MCP server \"notes\" asks to use m", "  the minutes\nLet the model answer it? "}, false, "", true},
		{"the model not lent", "no\n", "decline map[]", nil, false, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Each line is typed after its question is shown, as a person
			// does (lines typed ahead are dropped).
			var out strings.Builder
			lines := strings.SplitAfter(c.typed, "\n")
			in, feed := io.Pipe()
			shown := writerFunc(func(b []byte) (int, error) {
				out.Write(b)
				if strings.HasSuffix(string(b), ": ") && len(lines) > 0 && lines[0] != "" {
					next := lines[0]
					lines = lines[1:]
					go func() { _, _ = feed.Write([]byte(next)) }()
				}
				return len(b), nil
			})
			term := newTerminal(in, shown, nil)
			var opened string
			term.open = func(u string) { opened = u }
			asked := q
			if c.page {
				asked = page
			}
			if c.sample {
				asked = sample
			}
			a, err := term.asker()(context.Background(), asked, func() {})
			if opened != c.opened {
				t.Errorf("opened %q, want %q", opened, c.opened)
			}
			if got := fmt.Sprint(a.Action, " ", a.Values); err != nil || got != c.want {
				t.Errorf("%s %v, want %s", got, err, c.want)
			}
			for _, s := range c.shown {
				if !strings.Contains(out.String(), s) {
					t.Errorf("not shown: %q\n%s", s, out.String())
				}
			}
		})
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
