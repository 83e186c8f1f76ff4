package model

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
)

// Chat streams one chat request, like api.Client.Chat, with three things
// added: tool calls the model wrote into its text are turned into real tool
// calls (the text that held them is not shown); a stream that ends without
// its final chunk is an [ErrStreamCut]; and errors say what to do.
func (c *Client) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	s := &textCalls{enabled: len(req.Tools) > 0, atStart: true}
	done, sent := false, false
	call := func() error {
		return c.API().Chat(ctx, req, func(resp api.ChatResponse) error {
			sent = true
			return c.chunk(s, &done, resp, fn)
		})
	}
	err := call()
	var se api.StatusError
	if err != nil && !sent && req.Think != nil && errors.As(err, &se) && strings.Contains(se.ErrorMessage, "does not support thinking") {
		// Thinking is a nicety: ask again without it.
		req.Think = nil
		err = call()
	}
	switch {

	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil && !done && isCut(err):
		return fmt.Errorf("%w: the connection to Ollama at %s broke mid-answer (%v); check that Ollama is still running, then ask again", ErrStreamCut, c.Host(), err)
	case err != nil:
		return c.explain(err, req.Model)
	case !done:
		return fmt.Errorf("%w: Ollama at %s stopped sending before the answer was complete; check that it is still running, then ask again", ErrStreamCut, c.Host())
	}
	return nil
}

func (c *Client) chunk(s *textCalls, done *bool, resp api.ChatResponse, fn api.ChatResponseFunc) error {
	if len(resp.Message.ToolCalls) > 0 {
		s.enabled = false // the model uses native calls; leave its text alone
	}
	resp.Message.Content = s.feed(resp.Message.Content)
	if resp.Done {
		*done = true
		text, calls := s.finish()
		resp.Message.Content += text
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, calls...)
	}
	return fn(resp)
}

func isCut(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "unexpected EOF") || strings.Contains(msg, "connection reset") || strings.Contains(msg, "broken pipe")
}

// textCalls holds back text that may be a tool call written as text.
type textCalls struct {
	enabled bool
	atStart bool // nothing but whitespace shown so far
	holding bool
	pending string // a possible marker start, not shown yet
	held    strings.Builder
}

// feed takes a content chunk and returns the part to show now.
func (s *textCalls) feed(t string) string {
	if !s.enabled {
		out := s.pending + t
		s.pending = ""
		return out
	}
	if s.holding {
		s.held.WriteString(t)
		return ""
	}
	all := s.pending + t
	s.pending = ""
	i := -1
	for _, m := range markers {
		if j := strings.Index(all, m); j >= 0 && (i < 0 || j < i) {
			i = j
		}
	}
	if s.atStart {
		if j := strings.IndexAny(all, "{["); j >= 0 && strings.TrimSpace(all[:j]) == "" && (i < 0 || j < i) {
			i = j
		}
	}
	if i >= 0 {
		s.holding = true
		s.held.WriteString(all[i:])
		return all[:i]
	}
	show, keep := holdBack(all)
	s.pending = keep
	if strings.TrimSpace(show) != "" {
		s.atStart = false
	}
	return show
}

// finish returns what was held back: as tool calls when it parses as
// such, as a malformed call when it tried to be one, else as text.
func (s *textCalls) finish() (string, []api.ToolCall) {
	if !s.holding {
		out := s.pending
		s.pending = ""
		return out, nil
	}
	held := s.held.String()
	s.held.Reset()
	s.holding = false
	calls, attempted := ParseToolCalls(held)
	switch {
	case len(calls) > 0:
		return "", calls
	case attempted:
		return "", []api.ToolCall{malformedCall(held)}
	default:
		return held, nil
	}
}
