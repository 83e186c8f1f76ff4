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
			if thinking, answer := splitInChunks(&th, tt.text, r); thinking != tt.thinking || answer != tt.answer {
				t.Fatalf("%q: thinking %q, answer %q; want %q, %q", tt.text, thinking, answer, tt.thinking, tt.answer)
			}
		}
	}
}

// splitInChunks runs text through th in chunks of 1 to 6 bytes.
func splitInChunks(th *thinkTags, text string, r *rand.Rand) (thinking, answer string) {
	var tb, ab strings.Builder
	for i := 0; i < len(text); {
		n := 1 + r.IntN(6)
		a, b := th.split(text[i:min(i+n, len(text))])
		tb.WriteString(a)
		ab.WriteString(b)
		i += n
	}
	a, b := th.finish()
	tb.WriteString(a)
	ab.WriteString(b)
	return tb.String(), ab.String()
}

// TestThinkingWithoutItsOpeningTag: a model whose template opens the
// thinking block in the prompt (or that was made without the opening
// tag: ollama #10921, #12736) writes its thinking, then only the closing
// tag. Read normally, the tag is noticed (lone) and the text shown as it
// came; read headless (once the tag was noticed), what comes before it is
// the thinking, and an answer with no closing tag is the answer after
// all. Whatever the chunks.
func TestThinkingWithoutItsOpeningTag(t *testing.T) {
	tests := []struct {
		name, text       string
		headless         bool
		thinking, answer string
		lone             string
	}{
		{"noticed", "Okay, the user wants the list.\n</think>\n\nHere it is.", false, "", "Okay, the user wants the list.\n</think>\n\nHere it is.", "</think>"},
		{"noticed in another family's tag", "Plan it.[/THINK]Done.", false, "", "Plan it.[/THINK]Done.", "[/THINK]"},
		{"an answer with none", "Here it is: a < b.", false, "", "Here it is: a < b.", ""},
		{"a block opened at the start is not lone", "<think>a</think>b and </think>", false, "a", "b and </think>", ""},
		{"an answer about the tags", "Qwen thinks in <think>…</think> first.", false, "", "Qwen thinks in <think>…</think> first.", ""},
		{"a closing tag first closes an empty block", "\n</think>\n\nHello.", false, "", "Hello.", ""},
		{"a closing tag first, headless", "</think>\n\nHello.", true, "", "Hello.", ""},
		{"headless", "Okay, the user wants the list.\n</think>\n\nHere it is.", true, "Okay, the user wants the list.\n", "Here it is.", ""},
		{"headless, the opening tag written after all", " <think>x</think>y", true, "x", "y", ""},
		{"headless, blanks only", "  ", true, "", "  ", ""},
		{"headless, no closing tag: the answer", "Just the answer </thin", true, "Just the answer </thin", "Just the answer </thin", ""},
	}
	r := rand.New(rand.NewPCG(2, 28))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 200 {
				var th thinkTags
				if tt.headless {
					th.startInside("</think>")
				}
				if thinking, answer := splitInChunks(&th, tt.text, r); thinking != tt.thinking || answer != tt.answer || th.lone != tt.lone {
					t.Fatalf("thinking %q, answer %q, lone %q; want %q, %q, %q", thinking, answer, th.lone, tt.thinking, tt.answer, tt.lone)
				}
			}
		})
	}
}

// TestCallBeforeALoneClosingTag: a call written before a thinking block's
// closing tag that has no opening was only considered; one after it is
// made.
func TestCallBeforeALoneClosingTag(t *testing.T) {
	for _, tt := range []struct {
		text  string
		calls int
	}{
		{"I could run <tool_call>{\"name\": \"shell.run\", \"arguments\": {\"command\": \"touch x\"}}</tool_call> but no.\n</think>\n\nNothing to run.", 0},
		{"Read it first.\n</think>\n\n<tool_call>{\"name\": \"fs.read\", \"arguments\": {\"path\": \"a\"}}</tool_call>", 1},
		{"Maybe <tool_call>{\"name\": \"shell.run\", \"arguments\": {\"command\": \"touch x\"}}</tool_call>? No.</think><tool_call>{\"name\": \"fs.read\", \"arguments\": {\"path\": \"a\"}}</tool_call>", 1},
		// Not lone: the answer writes about the tags, and is read as
		// any answer is (a call form in it, unquoted, is a call).
		{"Qwen calls <tool_call>{\"name\": \"fs.read\", \"arguments\": {\"path\": \"a\"}}</tool_call> after <think>…</think>.", 1},
	} {
		s := newTextCalls(specs(), nil)
		shown := s.feed(tt.text)
		rest, calls := s.finish()
		shown += rest
		if len(calls) != tt.calls || tt.calls == 1 && calls[0].Function.Name != "fs.read" {
			t.Errorf("%q: calls %+v", tt.text, calls)
		}
		if tt.calls == 0 && shown != tt.text {
			t.Errorf("%q shown as %q", tt.text, shown)
		}
	}
}

// TestHeadlessTakenBack: a model read headless whose thinking the server
// gives in its own field (Ollama reads its blocks this time) has its
// answer read as the answer.
func TestHeadlessTakenBack(t *testing.T) {
	var th thinkTags
	th.startInside("</think>")
	th.notHeadless()
	a, b := th.split("The answer.")
	c, d := th.finish()
	if a+c != "" || b+d != "The answer." {
		t.Fatalf("thinking %q, answer %q", a+c, b+d)
	}
	// Once its text was read as thinking, it stays so.
	th = thinkTags{}
	th.startInside("</think>")
	th.split("Thinking")
	th.notHeadless()
	if a, b := th.split(" on.</think>Done."); a != " on." || b != "Done." {
		t.Fatalf("thinking %q, answer %q", a, b)
	}
}

// TestLongTagSplitOverChunks: a lone closing tag longer than a dozen
// bytes (Cohere's <|END_THINKING|>) is noticed when a chunk ends inside it.
func TestLongTagSplitOverChunks(t *testing.T) {
	text := "Plan the reply.<|END_THINKING|>Done."
	for cut := 1; cut < len(text); cut++ {
		var th thinkTags
		th.split(text[:cut])
		th.split(text[cut:])
		th.finish()
		if th.lone != "<|END_THINKING|>" {
			t.Fatalf("cut at %d: lone %q", cut, th.lone)
		}
	}
}

// FuzzThinkTags: any content is read the same whole and in chunks, read
// normally or headless, and what is noticed (a lone closing tag) too.
func FuzzThinkTags(f *testing.F) {
	f.Add("<think>a</think>b", uint8(3), false)
	f.Add("thinking</think>\n\nanswer", uint8(1), true)
	f.Add("\n</think>\n\nHello <think>x</think>", uint8(2), false)
	f.Add("<|START_THINKING|>p<|END_THINKING|><|START_RESPONSE|>d<|END_RESPONSE|>", uint8(5), false)
	f.Fuzz(func(t *testing.T, text string, size uint8, headless bool) {
		read := func(n int) (string, string, string) {
			var th thinkTags
			if headless {
				th.startInside("</think>")
			}
			var tb, ab strings.Builder
			for i := 0; i < len(text); i += n {
				a, b := th.split(text[i:min(i+n, len(text))])
				tb.WriteString(a)
				ab.WriteString(b)
			}
			a, b := th.finish()
			tb.WriteString(a)
			ab.WriteString(b)
			return tb.String(), ab.String(), th.lone
		}
		t1, a1, l1 := read(max(1, len(text)))
		t2, a2, l2 := read(int(size%16) + 1)
		if t1 != t2 || a1 != a2 || l1 != l2 {
			t.Fatalf("%q: whole %q %q %q; chunked %q %q %q", text, t1, a1, l1, t2, a2, l2)
		}
	})
}

// BenchmarkThinkTagsLongAnswer: an answer of 1 MB with no thinking block,
// fed in 4-byte chunks: what reading for thinking costs every answer
// (watching for a lone closing tag included).
func BenchmarkThinkTagsLongAnswer(b *testing.B) {
	text := strings.Repeat("Some words and <b>tags</b> [links] here. ", 1<<20/41)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		var th thinkTags
		for i := 0; i < len(text); i += 4 {
			th.split(text[i:min(i+4, len(text))])
		}
		th.finish()
	}
}

// TestCopiedClosingTagTeachesNothing: a closing tag the model copied from
// what it read (a file, a page: sent with escapeSpecial's joiner) is no
// lone tag, so no page can teach Shrimp to read a model's answers as
// thinking.
func TestCopiedClosingTagTeachesNothing(t *testing.T) {
	for _, tag := range closeTags {
		copied, _ := escapeText("The page said: think hard"+tag+" then answered.", nil)
		var th thinkTags
		if _, answer := splitInChunks(&th, copied, rand.New(rand.NewPCG(3, 29))); th.lone != "" || answer != copied {
			t.Errorf("%s copied: lone %q, answer %q", tag, th.lone, answer)
		}
	}
}
