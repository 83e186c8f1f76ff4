package model

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestThinkTags: whatever the chunks, a thinking block at the start (in
// any family's tags) is the thinking and the rest the answer, up to that
// block's own closing tag; any other answer passes unchanged.
func TestThinkTags(t *testing.T) {
	tests := []struct {
		text, thinking, answer string
	}{
		{"<think>\nLet me see.\n</think>\n\nThe answer is 4.", "\nLet me see.\n", "The answer is 4."},
		{"  \n<think>a < b </thin and </think>done", "a < b </thin and ", "done"},
		{"<think></think>Hi", "", "Hi"},
		{"<think>never closed", "never closed", ""},
		{"The answer. <think>not at the start</think>", "", "The answer. <think>not at the start</think>"},
		{"<thinking>is another tag</thinking>", "", "<thinking>is another tag</thinking>"},
		{"<thi", "", "<thi"},
		{"  ", "", "  "},
		{"", "", ""},
		{"<|channel>thought\nThe user wants the files.<channel|>Here they are.", "\nThe user wants the files.", "Here they are."},
		{"<|channel>other", "", "<|channel>other"},
		{"[THINK]Add 2 and 2.[/THINK]4", "Add 2 and 2.", "4"},
		{"<|START_THINKING|>Read it first.<|END_THINKING|><|START_ACTION|>[]<|END_ACTION|>", "Read it first.", "<|START_ACTION|>[]<|END_ACTION|>"},
		{"<seed:think>a</think> is not mine</seed:think>b", "a</think> is not mine", "b"},
		{"<think>[/THINK] is not mine</think>ok", "[/THINK] is not mine", "ok"},
		{"[THIN", "", "[THIN"},
		{"<|START_THINKING|>Plan.<|END_THINKING|>\n<|START_RESPONSE|>Done.<|END_RESPONSE|>", "Plan.", "Done."},
		{"<|START_RESPONSE|>Hi <b>there</b>.<|END_RESPONSE|>", "", "Hi <b>there</b>."},
		{"<|START_RESPONSE|>never closed", "", "never closed"},
		{"<|START_RESP", "", "<|START_RESP"},
		{"<think>a</think>\n\n<tool_call>{}</tool_call>", "a", "<tool_call>{}</tool_call>"},
	}
	r := rand.New(rand.NewPCG(1, 27))
	for _, tt := range tests {
		for range 200 {
			var th thinkTags
			var thinking, answer strings.Builder
			for i := 0; i < len(tt.text); {
				n := 1 + r.IntN(6)
				a, b := th.split(tt.text[i:min(i+n, len(tt.text))])
				thinking.WriteString(a)
				answer.WriteString(b)
				i += n
			}
			a, b := th.finish()
			thinking.WriteString(a)
			answer.WriteString(b)
			if thinking.String() != tt.thinking || answer.String() != tt.answer {
				t.Fatalf("%q: thinking %q, answer %q; want %q, %q", tt.text, thinking.String(), answer.String(), tt.thinking, tt.answer)
			}
		}
	}
}
