// Package chatcheck checks the shape of a chat history as models are
// trained on it, for tests: each assistant message's tool calls are
// answered by one tool message each, right after it, and no tool message
// stands without its call. A model shown a call with no result, or a
// result with no call, is left to guess what ran (and some chat templates
// refuse such a history outright).
package chatcheck

import (
	"fmt"
	"slices"

	"github.com/ollama/ollama/api"
)

// WellFormed returns an error naming the first message that breaks the
// shape, or nil.
func WellFormed(msgs []api.Message) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == "tool" {
			return fmt.Errorf("message %d: a tool result (%s) without its call", i, m.ToolCallID)
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		var open []string
		for _, c := range m.ToolCalls {
			open = append(open, c.ID)
		}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == "tool"; j++ {
			at := slices.Index(open, msgs[j].ToolCallID)
			if at < 0 {
				return fmt.Errorf("message %d: a result for %q, which message %d did not call (or was answered already)", j, msgs[j].ToolCallID, i)
			}
			open = slices.Delete(open, at, at+1)
		}
		if len(open) > 0 {
			return fmt.Errorf("message %d: calls %v never answered", i, open)
		}
		i = j - 1
	}
	return nil
}
