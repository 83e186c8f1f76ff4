package mcp

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/samber/lo"

	"github.com/shrimp-harness/shrimp/backend/injection"
)

// Prompt is a prompt a server offers the user (MCP's prompts): a request
// written by the server, filled in with its arguments. The user picks
// one; it is never offered to the model.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments"`
}

// PromptArgument is one value a prompt is filled in with.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// maxPromptText caps a prompt's text, which becomes a request: a prompt
// that embeds a large resource is refused rather than cut unseen.
const maxPromptText = 256 << 10

// Prompts lists the server's prompts, by name (none when it offers none).
// Their titles and descriptions are freed of hidden text and cut to a line.
func (s *Session) Prompts(ctx context.Context) ([]Prompt, error) {
	if r := s.cs.InitializeResult(); r == nil || r.Capabilities == nil || r.Capabilities.Prompts == nil {
		return []Prompt{}, nil
	}
	listed, err := pages(maxTools, func(cursor string) ([]*sdk.Prompt, string, error) {
		res, err := s.cs.ListPrompts(ctx, &sdk.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return lo.Compact(res.Prompts), res.NextCursor, nil
	}, func(p *sdk.Prompt) string { return p.Name })
	if err != nil {
		return nil, fmt.Errorf("list the prompts of %s: %w", s.name, err)
	}
	out := make([]Prompt, 0, len(listed))
	for _, p := range listed {
		pr := Prompt{Name: p.Name, Title: serverLine(p.Title, maxTitle), Description: serverLine(p.Description, maxTitle), Arguments: []PromptArgument{}}
		for _, a := range lo.Compact(p.Arguments) {
			pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Title: serverLine(a.Title, maxTitle), Description: serverLine(a.Description, maxTitle), Required: a.Required})
		}
		out = append(out, pr)
	}
	slices.SortFunc(out, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Check says what is wrong with args for p before a server is asked: an
// argument it does not take, or one it requires that is empty or missing.
func (p Prompt) Check(args map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if !slices.ContainsFunc(p.Arguments, func(a PromptArgument) bool { return a.Name == k }) {
			names := lo.Map(p.Arguments, func(a PromptArgument, _ int) string { return a.Name })
			return fmt.Errorf("prompt %s takes no argument %q; it takes: %s", p.Name, k, cmp.Or(strings.Join(names, ", "), "none"))
		}
	}
	missing := lo.FilterMap(p.Arguments, func(a PromptArgument, _ int) (string, bool) {
		return a.Name, a.Required && strings.TrimSpace(args[a.Name]) == ""
	})
	if len(missing) > 0 {
		return fmt.Errorf("prompt %s needs %s", p.Name, strings.Join(missing, " and "))
	}
	return nil
}

// GetPrompt fills in a prompt and returns its text, the request the user
// will read and send: its messages' text in order (one the server marks
// as the assistant's after "Assistant: "), an embedded resource's text
// with its uri, other content by kind and size, hidden text removed.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	res, err := s.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", s.answered(err, "prompt "+name, "its prompts are listed in Extensions and by `shrimp mcp prompts "+s.name+"`")
	}
	var parts []string
	for _, m := range lo.Compact(res.Messages) {
		if m.Content == nil {
			continue
		}
		text := s.contentText(ctx, name, m.Content) // ctx shows nothing: the user reads it
		if m.Role == "assistant" {
			text = "Assistant: " + text
		}
		parts = append(parts, text)
	}
	text, _ := injection.Unhide(strings.Join(parts, "\n\n"))
	switch {
	case strings.TrimSpace(text) == "":
		return "", fmt.Errorf("%w: prompt %s of MCP server %s has no text", ErrToolFailed, name, s.name)
	case len(text) > maxPromptText:
		return "", fmt.Errorf("%w: prompt %s of MCP server %s is %d KiB of text; Shrimp takes prompts of up to %d KiB", ErrToolFailed, name, s.name, len(text)>>10, maxPromptText>>10)
	}
	return text, nil
}

// maxCompletions caps the values a server suggests for one argument.
const maxCompletions = 100

// Complete asks the server for values of a prompt's argument that go on
// from what was typed (MCP's completion), given the arguments already
// filled in; none when the server offers no completions. Each value is one
// line, hidden text removed, once.
func (s *Session) Complete(ctx context.Context, prompt, arg, typed string, filled map[string]string) ([]string, error) {
	if r := s.cs.InitializeResult(); r == nil || r.Capabilities == nil || r.Capabilities.Completions == nil {
		return []string{}, nil
	}
	res, err := s.cs.Complete(ctx, &sdk.CompleteParams{
		Ref:      &sdk.CompleteReference{Type: "ref/prompt", Name: prompt},
		Argument: sdk.CompleteParamsArgument{Name: arg, Value: typed},
		Context:  &sdk.CompleteContext{Arguments: filled},
	})
	if err != nil {
		return nil, s.answered(err, "completion of prompt "+prompt, "its prompts are listed in Extensions and by `shrimp mcp prompts "+s.name+"`")
	}
	out := []string{}
	for _, v := range res.Completion.Values {
		if v = serverLine(v, maxTitle); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
		if len(out) == maxCompletions {
			break
		}
	}
	return out, nil
}
