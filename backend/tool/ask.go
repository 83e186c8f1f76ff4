package tool

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Question is what a tool asks the user during its call: an MCP server's
// elicitation, a message and a form of simple fields. It is the server's
// text; nothing in it is an instruction to Shrimp.
type Question struct {
	Message string  `json:"message"`
	Fields  []Field `json:"fields"`
	// URL is a page the tool asks the user to open in their browser
	// (MCP's url mode: a sign-in or a payment that must not pass through
	// Shrimp). Such a question has no fields; accepting it is agreeing to
	// open the page, which the window or the terminal then does.
	URL string `json:"url,omitempty"`
	// Warnings say what about URL deserves a second look (it reads as
	// another site than the one it reaches).
	Warnings []string `json:"warnings,omitempty"`
	// Sample marks the question whether the tool may use the user's model
	// (an MCP server's sampling; Message says for what): it has no
	// fields, and accepting lets it.
	Sample bool `json:"sample,omitempty"`
}

// Field is one value a Question asks for.
type Field struct {
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Type        string   `json:"type"` // string, number, integer, boolean, or array (several of Choices)
	Required    bool     `json:"required,omitempty"`
	Choices     []string `json:"choices,omitempty"`      // the only values allowed, when set
	ChoiceNames []string `json:"choice_names,omitempty"` // what each choice is shown as
	Default     any      `json:"default,omitempty"`
	Format      string   `json:"format,omitempty"` // email, uri, date, date-time
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
	MinLength   int      `json:"min_length,omitempty"`
	MaxLength   int      `json:"max_length,omitempty"`
	MinItems    int      `json:"min_items,omitempty"` // for an array
	MaxItems    int      `json:"max_items,omitempty"`
}

// The user's answers to a Question.
const (
	Accept  = "accept"  // the form was filled in and sent
	Decline = "decline" // the user said no
	Cancel  = "cancel"  // the user dismissed it, or nobody could be asked
)

// Answer is the user's answer to a Question: Action, and with Accept the
// values, by field name (strings as typed; Parse turns them into the
// field's type).
type Answer struct {
	Action string            `json:"action"`
	Values map[string]string `json:"values,omitempty"`
}

// Asker asks the user a tool's Question and waits for the answer.
type Asker func(ctx context.Context, q Question) (Answer, error)

type askerKey struct{}

// WithAsker returns ctx carrying ask, which a tool that needs the user's
// answer during its call uses.
func WithAsker(ctx context.Context, ask Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, ask)
}

// AskerOf returns ctx's Asker, nil when nobody can be asked.
func AskerOf(ctx context.Context) Asker {
	f, _ := ctx.Value(askerKey{}).(Asker)
	return f
}

// Parse checks values typed for q's fields and returns them typed (a
// number, an integer, a boolean, text, or for an array the choices typed
// with commas between them), or an error naming the first field that is
// wrong and how. A field left empty is left out, unless it is required.
func (q Question) Parse(values map[string]string) (map[string]any, error) {
	for name := range values {
		if !slices.ContainsFunc(q.Fields, func(f Field) bool { return f.Name == name }) {
			return nil, fmt.Errorf("there is no field %q", name)
		}
	}
	out := map[string]any{}
	for _, f := range q.Fields {
		v := strings.TrimSpace(values[f.Name])
		if v == "" {
			if f.Required {
				return nil, fmt.Errorf("%s is required", f.Label())
			}
			continue
		}
		typed, err := f.parse(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Label(), err)
		}
		out[f.Name] = typed
	}
	return out, nil
}

// Label is what the field is called to the user.
func (f Field) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

func (f Field) parse(v string) (any, error) {
	if f.Type == "array" {
		var picked []string
		for _, c := range strings.Split(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !slices.Contains(picked, c) {
				if !slices.Contains(f.Choices, c) {
					return nil, fmt.Errorf("%q is not one of %s", c, strings.Join(f.Choices, ", "))
				}
				picked = append(picked, c)
			}
		}
		switch n := len(picked); {
		case f.MinItems > 0 && n < f.MinItems:
			return nil, fmt.Errorf("choose at least %d", f.MinItems)
		case f.MaxItems > 0 && n > f.MaxItems:
			return nil, fmt.Errorf("choose at most %d", f.MaxItems)
		}
		return picked, nil
	}
	if len(f.Choices) > 0 && !slices.Contains(f.Choices, v) {
		return nil, fmt.Errorf("choose one of %s", strings.Join(f.Choices, ", "))
	}
	switch f.Type {
	case "boolean":
		switch strings.ToLower(v) {
		case "true", "yes", "y", "on", "1":
			return true, nil
		case "false", "no", "n", "off", "0":
			return false, nil
		}
		return nil, fmt.Errorf("answer yes or no")
	case "number", "integer":
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, fmt.Errorf("%q is not a number", v)
		}
		if f.Type == "integer" && n != math.Trunc(n) {
			return nil, fmt.Errorf("%q is not a whole number", v)
		}
		if f.Min != nil && n < *f.Min || f.Max != nil && n > *f.Max {
			return nil, fmt.Errorf("%s is outside %s", v, f.bounds())
		}
		if f.Type == "integer" {
			return int64(n), nil
		}
		return n, nil
	}
	if err := checkFormat(f.Format, v); err != nil {
		return nil, err
	}
	switch n := len([]rune(v)); {
	case f.MinLength > 0 && n < f.MinLength:
		return nil, fmt.Errorf("write at least %d characters", f.MinLength)
	case f.MaxLength > 0 && n > f.MaxLength:
		return nil, fmt.Errorf("write at most %d characters", f.MaxLength)
	}
	return v, nil
}

func (f Field) bounds() string {
	lo, hi := "any", "any"
	if f.Min != nil {
		lo = strconv.FormatFloat(*f.Min, 'g', -1, 64)
	}
	if f.Max != nil {
		hi = strconv.FormatFloat(*f.Max, 'g', -1, 64)
	}
	return lo + " to " + hi
}

// checkFormat checks text against the formats a form may name (email,
// uri, date, date-time); others pass.
func checkFormat(format, v string) error {
	switch format {
	case "email":
		if at := strings.LastIndex(v, "@"); at < 1 || at == len(v)-1 || strings.ContainsAny(v, " \t") {
			return fmt.Errorf("%q is not an email address", v)
		}
	case "uri":
		if u, err := url.Parse(v); err != nil || u.Scheme == "" || u.Host == "" && u.Opaque == "" {
			return fmt.Errorf("%q is not an address (such as https://example.com)", v)
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, v); err != nil {
			return fmt.Errorf("%q is not a date written yyyy-mm-dd", v)
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, v); err != nil {
			return fmt.Errorf("%q is not a date and time such as 2026-12-24T18:00:00Z", v)
		}
	}
	return nil
}
