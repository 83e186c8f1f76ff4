package model

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/internal/jsonplain"
	"github.com/shrimp-harness/shrimp/internal/jsonstrings"
)

// Ollama renders a request's messages into one prompt and tokenizes it
// with special tokens parsed, so a control token's text in a message (a
// file, a page, a command's output, a pasted email) becomes the control
// token itself: "<|im_end|>\n<|im_start|>system\n…" in a file the model
// reads opens a system turn, a "</think>" ends the model's thinking
// (special.json says where this is documented); and a model that sees
// has its prompt split at Ollama's own "[img-0]" wherever it stands.
// escapeSpecial sends each such string with a word joiner after its first
// character, which breaks the match and which the model reads past;
// unescapeText takes the joiners out of what the model writes, so a call
// that copies such text into a file writes it as it was.

// joiner is U+2060 WORD JOINER: invisible, no space, nothing a shape's
// token may hold.
const joiner = "\u2060"

//go:embed special.json
var specialJSON []byte

// specialData is special.json.
type specialData struct {
	Shapes []struct {
		Families string   `json:"families"`
		Re       string   `json:"re"`
		Tokens   []string `json:"tokens"`
	} `json:"shapes"`
	Plain []string `json:"plain"`
}

// special matches any of special.json's shapes; atStart, one starting at
// the text's start.
var special, atStart = func() (*regexp.Regexp, *regexp.Regexp) {
	var d specialData
	if err := json.Unmarshal(specialJSON, &d); err != nil {
		panic(fmt.Sprintf("model: special.json: %v", err)) // embedded data; a test reads it
	}
	res := make([]string, len(d.Shapes))
	for i, s := range d.Shapes {
		res[i] = "(?:" + s.Re + ")"
	}
	alts := strings.Join(res, "|")
	return regexp.MustCompile(alts), regexp.MustCompile("^(?:" + alts + ")")
}()

// window is more than the longest text a shape matches (48 characters of
// four bytes between two three-byte bars).
const window = 256

// findSpecial returns where the control tokens' texts stand in s: at
// each place a shape matches, the longest match there; one may stand
// inside another ("[INST]" in "<|[INST]|>"), and escaping the outer one
// would leave it whole. One alternation of shapes over a long text costs
// Go's regexp ~50 ns a byte, so only the places a token can start ('<'
// and '[' with what may follow them) are tried.
func findSpecial(s string) [][]int {
	var found [][]int
	lt, br := -1, -1 // the next '<' and '[' at or after i (-1: look again; len(s): none)
	for i := 0; i < len(s); {
		if lt < i {
			lt = next(s, i, '<')
		}
		if br < i {
			br = next(s, i, '[')
		}
		p := min(lt, br)
		if p == len(s) {
			break
		}
		if p+1 < len(s) && mayOpen(s, p) {
			if m := atStart.FindStringIndex(s[p:min(p+window, len(s))]); m != nil {
				found = append(found, []int{p, p + m[1]})
			}
		}
		i = p + 1
	}
	return found
}

// next returns the index of the first c in s at or after i, or len(s).
func next(s string, i int, c byte) int {
	if j := strings.IndexByte(s[i:], c); j >= 0 {
		return i + j
	}
	return len(s)
}

// mayOpen reports whether a token's text may start at s[p:]: "<|", "<｜"
// (its first byte), "</", "<" and a small letter or "_", "<" and a
// capital when "_TOKEN>" follows close by; "[|", "[/", "["
// and a capital, and, of what code writes as often as s[i], only
// "[img-" (Ollama's "[img-0]") and "[gMASK", "[sMASK" (GLM's). What
// special.json's shapes start with; FuzzFindSpecial holds the two
// together.
func mayOpen(s string, p int) bool {
	b := s[p+1]
	if s[p] == '<' {
		if 'A' <= b && b <= 'Z' {
			return strings.Contains(s[p:min(p+12, len(s))], "_TOKEN>") // Cohere's <BOS_TOKEN>
		}
		return b == '|' || b == 0xEF || b == '/' || b == '_' || 'a' <= b && b <= 'z'
	}
	switch {
	case b == '|' || b == '/' || 'A' <= b && b <= 'Z':
		return true
	case b == 'i':
		return strings.HasPrefix(s[p:], "[img-")
	case b == 'g' || b == 's':
		return strings.HasPrefix(s[p+2:], "MASK")
	}
	return false
}

// escapeText returns s with a joiner after the first character of each
// control token's text in it (a shape's, or one of extra: the model's
// template's), and the first such text (empty when s holds none).
func escapeText(s string, extra []string) (string, string) {
	found := findSpecial(s)
	for _, lit := range extra {
		for i := 0; ; {
			j := strings.Index(s[i:], lit)
			if j < 0 {
				break
			}
			found = append(found, []int{i + j, i + j + len(lit)})
			i += j + len(lit)
		}
	}
	if len(found) == 0 {
		return s, ""
	}
	if len(extra) > 0 {
		slices.SortFunc(found, func(a, b []int) int { return cmp.Or(a[0]-b[0], b[1]-a[1]) })
	}
	var b strings.Builder
	b.Grow(len(s) + len(found)*len(joiner))
	last := 0
	for _, m := range found {
		if m[0]+1 == last {
			continue // a shorter one at the same place
		}
		// One inside another breaks too: both are escaped.
		b.WriteString(s[last : m[0]+1]) // '<' and '[' are one byte
		b.WriteString(joiner)
		last = m[0] + 1
	}
	b.WriteString(s[last:])
	return b.String(), s[found[0][0]:found[0][1]]
}

// templateLiterals returns what an Ollama template is built of beside its
// actions that reads as a token: text from a '<' or '[' to the bracket
// that closes it, with no blank in it, that no shape matches whole (those
// are found anyway). A family the shapes do not know is escaped by its
// own template's tokens (MiniCPM's "<用户>", a fine-tune's "[[user]]").
func templateLiterals(tmpl string) []string {
	var out []string
	for text := range templateText(tmpl) {
		for i := 0; i < len(text); i++ {
			open := text[i]
			if open != '<' && open != '[' {
				continue
			}
			shut := byte('>')
			if open == '[' {
				shut = ']'
			}
			depth, j := 0, i
			for ; j < len(text) && j-i < window; j++ {
				c := text[j]
				if c == open {
					depth++
				} else if c == shut {
					depth--
				} else if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
					break
				}
				if depth == 0 {
					break
				}
			}
			if j < len(text) && depth == 0 && j-i >= 2 {
				lit := text[i : j+1]
				if m := findSpecial(lit); len(m) != 1 || m[0][1]-m[0][0] != len(lit) {
					out = append(out, lit)
				}
				i = j
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// templateText yields a Go template's text between its actions.
func templateText(tmpl string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for tmpl != "" {
			text, rest, found := strings.Cut(tmpl, "{{")
			if !yield(text) || !found {
				return
			}
			_, tmpl, _ = strings.Cut(rest, "}}")
		}
	}
}

// unescapeText takes out the joiners escapeText puts in: one right after
// a '<' or a '['.
func unescapeText(s string) string {
	if !strings.Contains(s, joiner) {
		return s
	}
	s = strings.ReplaceAll(s, "<"+joiner, "<")
	return strings.ReplaceAll(s, "["+joiner, "[")
}

// escapeSpecial returns req, or a copy of it whose messages (content,
// thinking, tool calls' arguments) and tools' definitions have every
// control token's text escaped (a shape's, or one of extra: the model's
// template's), and the first such text found in this
// request's turns (from its last user message on: what the run has
// already been told of is not found again). req is not changed: its
// messages are the run's history.
func escapeSpecial(req *api.ChatRequest, extra []string) (*api.ChatRequest, string) {
	var first string
	newFrom := 0
	for i, m := range req.Messages {
		if m.Role == "user" {
			newFrom = i
		}
	}
	at := 0 // the message being escaped
	note := func(s string) string {
		out, f := escapeText(s, extra)
		if first == "" && at >= newFrom {
			first = f
		}
		return out
	}
	var msgs []api.Message
	for i, m := range req.Messages {
		at = i
		e := m
		e.Content, e.Thinking = note(m.Content), note(m.Thinking)
		changed := e.Content != m.Content || e.Thinking != m.Thinking
		if calls, ok := mapArgs(m.ToolCalls, note); ok {
			e.ToolCalls, changed = calls, true
		}
		if changed && msgs == nil {
			msgs = append(make([]api.Message, 0, len(req.Messages)), req.Messages[:i]...)
		}
		if msgs != nil {
			msgs = append(msgs, e)
		}
	}
	// The tools, at any depth (descriptions, enums, names): through their
	// JSON, where a token's text stands as it is.
	var tools api.Tools
	if at = -1; len(req.Tools) > 0 {
		if raw, err := json.Marshal(req.Tools); err == nil {
			if text := string(jsonplain.Unescaped(raw)); findSpecial(text) != nil || slices.ContainsFunc(extra, func(lit string) bool { return strings.Contains(text, lit) }) {
				if err := json.Unmarshal([]byte(note(text)), &tools); err != nil {
					tools = nil // cannot happen: a joiner after a '<' or '[' inside a JSON string
				}
			}
		}
	}
	if msgs == nil && tools == nil {
		return req, ""
	}
	out := *req
	if msgs != nil {
		out.Messages = msgs
	}
	if tools != nil {
		out.Tools = tools
	}
	return &out, first
}

// mapArgs returns calls with f applied to every string in their
// arguments (keys and values, at any depth), and whether any changed;
// calls is not changed.
func mapArgs(calls []api.ToolCall, f func(string) string) ([]api.ToolCall, bool) {
	var out []api.ToolCall
	for i, c := range calls {
		var args *api.ToolCallFunctionArguments // made at the first change
		n := 0
		for k, v := range c.Function.Arguments.All() {
			nk := f(k)
			nv, ch := jsonstrings.Map(v, f)
			if args == nil && (ch || nk != k) {
				a := api.NewToolCallFunctionArguments()
				args = &a
				for k0, v0 := range c.Function.Arguments.All() { // the n before it, as they were
					if args.Len() == n {
						break
					}
					args.Set(k0, v0)
				}
			}
			if args != nil {
				args.Set(nk, nv)
			}
			n++
		}
		if args != nil && out == nil {
			out = append(make([]api.ToolCall, 0, len(calls)), calls[:i]...)
		}
		if out != nil {
			if args != nil {
				c.Function.Arguments = *args
			}
			out = append(out, c)
		}
	}
	if out == nil {
		return calls, false
	}
	return out, true
}

// unescapers are a chat's unescaper for its content and its thinking.
type unescapers struct{ content, thinking unescaper }

// unescaper takes the joiners out of a stream of text that may split a
// '<' from its joiner between two pieces.
type unescaper struct{ after bool } // the last piece ended with '<' or '['

// piece returns s without escapeText's joiners.
func (u *unescaper) piece(s string) string {
	if s == "" {
		return s
	}
	if u.after && strings.HasPrefix(s, joiner) {
		s = s[len(joiner):]
	}
	s = unescapeText(s)
	u.after = s != "" && (s[len(s)-1] == '<' || s[len(s)-1] == '[')
	return s
}

// templateRead is what a client read of a model's template: its tokens,
// and when (a model that could not be read is asked about again after
// templateRetry).
type templateRead struct {
	tokens []string
	at     time.Time
	failed bool
}

// templateWait bounds asking Ollama for a model's template before a chat;
// templateRetry is how long a model whose template could not be read goes
// without its tokens before it is asked again.
const (
	templateWait  = 5 * time.Second
	templateRetry = time.Minute
)

// templateTokens returns the model's template's tokens (templateLiterals),
// read from /api/show once a client and kept (Show keeps them too); none
// when Ollama cannot say (the shapes still apply).
func (c *Client) templateTokens(ctx context.Context, model string) []string {
	key := c.Host() + " " + model
	if v, ok := c.templates.Load(key); ok {
		if r := v.(*templateRead); !r.failed || time.Since(r.at) < templateRetry {
			return r.tokens
		}
	}
	ctx, cancel := context.WithTimeout(ctx, templateWait)
	defer cancel()
	resp, err := c.API().Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		c.templates.Store(key, &templateRead{at: time.Now(), failed: true})
		return nil
	}
	return c.keepTemplate(model, resp.Template)
}

// keepTemplate keeps the tokens of a model's template as /api/show gave
// it (to templateTokens, or to Show, which the app asks before a chat)
// and returns them.
func (c *Client) keepTemplate(model, tmpl string) []string {
	r := &templateRead{tokens: templateLiterals(tmpl), at: time.Now()}
	c.templates.Store(c.Host()+" "+model, r)
	return r.tokens
}
